// npm start's simulator never gives a sent message an id it gave before, across restarts: the
// alert example's trigger (whose memory n8n keeps in its user folder) would otherwise take a new
// #58 that fails for the #58 it saw delivered, and never alert. Wired as scripts/start.js wires it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require('./simulator/simulator');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { sentIds } = require('../scripts/lib/sent-ids');

/** One `npm start`'s simulator on `userFolder`: sends `count` messages, stops, gives their ids. */
async function startAndSend(userFolder: string, count: number): Promise<number[]> {
	const ids = sentIds(userFolder);
	const simulator = new Simulator({
		token: 'sim-token',
		firstSentId: ids.firstSentId,
		onMessage: (sms: { id: number }) => ids.record(sms.id),
	});
	const { sendBaseUrl } = await simulator.start();
	try {
		const response = await fetch(`${sendBaseUrl}/outgoings/send`, {
			method: 'POST',
			headers: { authorization: 'Bearer sim-token', 'content-type': 'application/json' },
			body: JSON.stringify({
				senderId: 'ACME',
				envelopes: Array.from({ length: count }, (_, at) => ({
					number: `25471200000${at}`,
					message: `Message ${at}`,
				})),
			}),
		});
		const { data } = (await response.json()) as { data: { outgoings: Array<{ id: number }> } };
		return data.outgoings.map(({ id }) => id);
	} finally {
		await simulator.stop();
	}
}

test('ids of sent messages go on across restarts of npm start, never repeating', async () => {
	const folder = mkdtempSync(join(tmpdir(), 'sms-start-ids-'));
	const first = await startAndSend(folder, 2);
	expect(first).toEqual([58, 59]);
	const second = await startAndSend(folder, 3);
	expect(second).toEqual([60, 61, 62]);
	const third = await startAndSend(folder, 1);
	expect(third).toEqual([63]);
	// Another user folder (a new n8n, with no memory) starts afresh.
	expect(await startAndSend(mkdtempSync(join(tmpdir(), 'sms-start-ids-')), 1)).toEqual([58]);
});
