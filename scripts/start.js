'use strict';
// `npm start`: a local n8n with this package installed as a community node, the API simulator,
// a credential pointing at it and the example workflows. Ctrl-C stops everything it started.
const path = require('node:path');

const local = require('./lib/local-n8n');
const { Simulator } = require('../test/simulator/simulator');

const LINE = process.env.N8N_LINE || '2.x';
const PORT = Number(process.env.N8N_PORT || 5678);
/** The example that starts on its own (examples/alert-on-failed-sms.json). */
const ALERT = require('../examples/alert-on-failed-sms.json');

async function main() {
	// Sent messages are delivered, or fail, half a minute later, so the trigger example has work.
	const simulator = new Simulator({
		token: 'sim-token',
		deliveryDelayMs: 30_000,
		failureRate: 0.25,
	});
	const { baseUrl, sendBaseUrl } = await simulator.start({ apiPort: 8787, sendPort: 8788 });
	const n8n = await local.launch(LINE, {
		userFolder: path.join(local.root, '.n8n-local', `user-${LINE}`),
		port: PORT,
		brokerPort: 5679,
		examples: { apiToken: simulator.token, baseUrl, sendBaseUrl },
		inheritOutput: true,
	});
	const n8nUrl = `http://127.0.0.1:${PORT}`;
	const session = await local.login(n8nUrl);
	const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0];
	// Turned on when it is imported; a user who turned it off since finds it off.
	const alertImported = n8n.imported.includes(ALERT.name);
	if (alertImported) await local.activateWorkflow(n8nUrl, cookie, ALERT.id);
	const examples =
		n8n.imported.length === 0
			? 'Every example workflow was there already and is kept as you left it.'
			: `Imported: ${n8n.imported.map((name) => `"${name}"`).join(', ')}.`;
	local.log(`
n8n ${local.version(LINE)} is running with the SMS Messaging node.

  Open     http://127.0.0.1:${PORT}
  Log in   ${local.OWNER.email} / ${local.OWNER.password}

  The credential "${local.EXAMPLE_CREDENTIAL.name}" was made for the API simulator:
    Base URL ${baseUrl}, Send Base URL ${sendBaseUrl}, token ${simulator.token}
    (approved Sender IDs: ACME, NOTIFY; balance ${simulator.balance} credits)
  To use your real account, put your token and base URLs into that credential.

  ${examples}
  npm start imports only the examples (and the credential) n8n does not hold yet, by id: your
  edits stay. To get one back as shipped, delete it in n8n and run npm start again.

  Try first: open "SMS: send a personalised message to every row" and click Execute workflow:
  three items go out as three envelopes of one request. Then "SMS: find contacts matching a search".
  "${ALERT.name}" is ${alertImported ? 'active' : 'active unless you turned it off'}: about a quarter of the
  messages you send fail half a minute later, and its next poll (every minute) runs it with them
  (see Executions).

Ctrl-C stops n8n and the simulator.`);

	const stop = async () => {
		const exited = new Promise((resolve) => n8n.child.once('exit', resolve));
		n8n.child.kill('SIGTERM');
		await Promise.all([exited, simulator.stop()]);
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	n8n.child.on('exit', async (code) => {
		await simulator.stop();
		process.exit(code ?? 0);
	});
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
