'use strict';
// npm start's simulator numbers sent messages on from where the last start stopped: the next id
// is kept in n8n's user folder, so that no id repeats across restarts (a real API never reuses
// one), and the trigger of the alert example, whose memory n8n keeps, sees every new message.
const fs = require('node:fs');
const path = require('node:path');

const FILE = 'simulator-next-sms-id.json';

/**
 * The first id for this start's sent messages (undefined on a first start: the simulator's own
 * numbering), and `record(id)` to call with every id the simulator gives, which keeps the next.
 */
function sentIds(userFolder) {
	const file = path.join(userFolder, FILE);
	let next;
	try {
		next = JSON.parse(fs.readFileSync(file, 'utf8')).next;
	} catch {
		next = undefined;
	}
	const record = (id) => {
		if (next !== undefined && id < next) return;
		next = id + 1;
		fs.mkdirSync(userFolder, { recursive: true });
		fs.writeFileSync(file, JSON.stringify({ next }));
	};
	return { firstSentId: Number.isInteger(next) ? next : undefined, record };
}

module.exports = { sentIds };
