'use strict';
// `npm run simulator`: the API simulator with seeded data, on fixed ports unless told otherwise.
const { Simulator } = require('./simulator');

async function main() {
	const simulator = new Simulator({
		token: process.env.SIM_TOKEN || 'sim-token',
		latencyMs: Number(process.env.SIM_LATENCY_MS || 0),
	});
	const { baseUrl, sendBaseUrl } = await simulator.start({
		apiPort: Number(process.env.SIM_API_PORT || 8787),
		sendPort: Number(process.env.SIM_SEND_PORT || 8788),
	});
	console.log(`Messaging Service API simulator
  Base URL:      ${baseUrl}
  Send Base URL: ${sendBaseUrl}
  API token:     ${simulator.token}
  Approved Sender IDs: ${simulator.senderIds.map((s) => s.name).join(', ')}; balance ${simulator.balance} credits
  Latency: ${simulator.latencyMs} ms per request (SIM_LATENCY_MS; POST .../__sim/latency {"latencyMs": n})
  Inspect: GET ${baseUrl.replace('/api/v3', '')}/__sim/requests   Reset: POST .../__sim/reset
Ctrl-C stops it.`);
	const stop = () => simulator.stop().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
