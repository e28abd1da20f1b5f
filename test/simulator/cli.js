'use strict';
// `npm run simulator`: the API simulator with seeded data, on fixed ports unless told otherwise.
// Prints one line per SMS it accepts (see inbox.js).
const { Simulator, inboxLine } = require('./simulator');

async function main() {
	const simulator = new Simulator({
		token: process.env.SIM_TOKEN || 'sim-token',
		latencyMs: Number(process.env.SIM_LATENCY_MS || 0),
		onMessage: (sms) => console.log(inboxLine(sms)),
	});
	const { baseUrl, sendBaseUrl } = await simulator.start({
		apiPort: Number(process.env.SIM_API_PORT || 8787),
		sendPort: Number(process.env.SIM_SEND_PORT || 8788),
	});
	const root = baseUrl.replace('/api/v3', '');
	console.log(`Messaging Service API simulator
  Base URL:      ${baseUrl}
  Send Base URL: ${sendBaseUrl}
  API token:     ${simulator.token}
  Approved Sender IDs: ${simulator.senderIds.map((s) => s.name).join(', ')}; balance ${simulator.balance} credits
  Latency: ${simulator.latencyMs} ms per request (SIM_LATENCY_MS; POST .../__sim/latency {"latencyMs": n})
  Inbox:   ${root}/__sim/inbox lists the SMS it accepted (each is printed below too)
  Inspect: GET ${root}/__sim/requests   Reset: POST .../__sim/reset
Ctrl-C stops it.`);
	const stop = () =>
		simulator.stop().then(() => {
			console.log('Stopped.');
			process.exit(0);
		});
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
