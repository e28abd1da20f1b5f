'use strict';
// `npm start`: a local n8n with this package installed as a community node, the API simulator,
// a credential pointing at it and the example workflows. Ctrl-C, or SIGINT or SIGTERM to npm or
// to this script, stops everything it started and prints "Stopped."; so does the end of npm.
// Ports: N8N_PORT (5678), N8N_RUNNERS_BROKER_PORT (5679), SIM_API_PORT (8787), SIM_SEND_PORT (8788).
// SMS_MESSAGING_START_FOLDER: n8n's user folder (default .n8n-local/user-<line>).
// The terminal shows this script's lines only: what n8n prints goes to n8n.log in that folder, and
// each failed execution is told in one line.
const path = require('node:path');

const { watchFailedExecutions } = require('./lib/failed-executions');
const local = require('./lib/local-n8n');
const { sentIds } = require('./lib/sent-ids');
const { Simulator, inboxLine } = require('../test/simulator/simulator');

const LINE = process.env.N8N_LINE || '2.x';
const PORT = Number(process.env.N8N_PORT || 5678);
/** Sent messages leave SENT this long after they were sent: delivered, or failed at FAILURE_RATE. */
const DELIVERY_DELAY_MS = 30_000;
const FAILURE_RATE = 0.25;
/** The example that starts on its own (examples/alert-on-failed-sms.json). */
const ALERT = require('../examples/alert-on-failed-sms.json');
/** How long the delivery check example waits before it reads the statuses, in seconds. */
const CHECK_WAIT_S = require('../examples/send-and-check-delivery.json').nodes.find(
	(node) => node.type === 'n8n-nodes-base.wait',
).parameters.amount;

const userFolder =
	process.env.SMS_MESSAGING_START_FOLDER || path.join(local.root, '.n8n-local', `user-${LINE}`);
// Sent messages are numbered on from the last start: n8n (the alert's trigger) remembers ids.
const ids = sentIds(userFolder);
const simulator = new Simulator({
	token: 'sim-token',
	deliveryDelayMs: DELIVERY_DELAY_MS,
	failureRate: FAILURE_RATE,
	firstSentId: ids.firstSentId,
	onMessage: (sms) => {
		ids.record(sms.id);
		local.log(inboxLine(sms));
	},
});

let stopping;
let stopWatching = () => {};
/** Stops whatever runs (an install, n8n's CLI, n8n, the simulator), once, then exits. */
function stop(why, code = 0) {
	stopping ??= (async () => {
		stopWatching();
		if (why) local.log(why);
		await Promise.all([local.stopAll(), simulator.stop()]);
		local.log('Stopped.');
		process.exit(code);
	})();
	return stopping;
}

process.on('SIGINT', () => stop('Stopping n8n and the simulator…'));
process.on('SIGTERM', () => stop('Stopping n8n and the simulator…'));
// npm forwards its signals; should npm (or whatever started this script) end some other way,
// this script notices that it has a new parent and stops too.
const parent = process.ppid;
setInterval(() => {
	if (process.ppid !== parent) stop('The process that ran npm start has ended; stopping.');
}, 1000).unref();

async function main() {
	const { baseUrl, sendBaseUrl } = await simulator.start({
		apiPort: Number(process.env.SIM_API_PORT || 8787),
		sendPort: Number(process.env.SIM_SEND_PORT || 8788),
	});
	const inbox = `${baseUrl.replace('/api/v3', '')}/__sim/inbox`;
	const logFile = path.join(userFolder, 'n8n.log');
	const n8n = await local.launch(LINE, {
		userFolder,
		port: PORT,
		brokerPort: Number(process.env.N8N_RUNNERS_BROKER_PORT || 5679),
		examples: { apiToken: simulator.token, baseUrl, sendBaseUrl },
		logFile,
		detached: true,
	});
	n8n.child.once('exit', (code, signal) => {
		if (!stopping) {
			stop(
				`n8n ended (${signal ?? `exit code ${code}`}); what it printed is in ${logFile}.`,
				code ?? 1,
			);
		}
	});
	const n8nUrl = `http://127.0.0.1:${PORT}`;
	const session = await local.login(n8nUrl);
	const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0];
	stopWatching = await watchFailedExecutions({
		n8nUrl,
		cookie,
		n8nDir: local.paths(LINE).dir,
		notify: local.log,
	});
	// Published when it is imported; a user who unpublished it since finds it unpublished.
	const alertImported = n8n.imported.includes(ALERT.name);
	if (alertImported) await local.activateWorkflow(n8nUrl, cookie, ALERT.id);
	const examples =
		n8n.imported.length === 0
			? 'Every example workflow was there already and is kept as you left it.'
			: `Imported: ${n8n.imported.map((name) => `"${name}"`).join(', ')}.`;
	const published = LINE === '2.x' ? 'published' : 'active';
	local.log(`
n8n ${local.version(LINE)} is running with the SMS Messaging node.

  Open     ${n8nUrl}/home/workflows (the example workflows) and log in:
           ${local.OWNER.email} / ${local.OWNER.password}
  Inbox    ${inbox} shows every SMS the simulator accepted, approval links
           included; each is also printed here as it arrives.
  n8n log  ${logFile} holds what n8n prints; a failed execution is told here in one line.

  The credential "${local.EXAMPLE_CREDENTIAL.name}" was made for the API simulator:
    Base URL ${baseUrl}, Send Base URL ${sendBaseUrl}, token ${simulator.token}
    (approved Sender IDs: ACME, NOTIFY; balance ${simulator.balance} credits)
  To use your real account, put your token and base URLs into that credential.

  ${examples}
  npm start imports only the examples (and the credential) n8n does not hold yet, by id: your
  edits stay. To get one back as shipped, delete it in n8n and run npm start again.

  Next steps (numbered as in README.md); for 3, 4 and 6 to 9 open the workflow, click Execute workflow:
  3. "SMS: send a personalised message to every row": three messages go out in one request.
  4. "SMS: approve a bulk send by SMS before it goes out": open the link of the approval SMS (in
     the inbox) and press "Send it"; the three messages go out.
  5. "${ALERT.name}" is ${alertImported ? published : `${published} unless you changed that`} and checks every minute.
     The simulator marks each SMS delivered or failed ${DELIVERY_DELAY_MS / 1000} s after it accepted it (about 1 in
     ${Math.round(1 / FAILURE_RATE)} fail, at random); the next check runs the alert with the failed ones (see Executions).
  6. "SMS: send, wait, check delivery and alert on failures": it waits ${CHECK_WAIT_S} s, then reads each status.
  7. "SMS: collect a field report by SMS (a form)": open the link of the technician's SMS (in the
     inbox), fill in the form and press "Send report"; the workflow goes on with the report, typed.
  8. "SMS: ask a customer a question and get a typed answer": open the link of the customer's SMS,
     type a day and time and press "Send"; the workflow goes on with the words as data.text.
  9. "SMS: proof of delivery by SMS (a photo and a choice)": open the link of the driver's SMS,
     choose a photo, choose how the parcel was handed over and press "Send proof"; the workflow
     goes on with the photo as binary data.

Ctrl-C stops n8n and the simulator.`);
}

main().catch((error) => {
	// Once stopping, what was starting fails because it was stopped: no news.
	if (!stopping) console.error(error);
	stop(undefined, 1);
});
