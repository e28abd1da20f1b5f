// `npm run bench:n8n`: inside a real n8n (the pinned 2.x that `npm start` uses), 10,000 items sent
// by this node against the same messages sent by n8n's own HTTP Request node, one request per
// item. Both workflows run through n8n's REST API; the simulator counts the requests.
import fs from 'node:fs';
import path from 'node:path';

import { lineEndpoints } from '../test/e2e/lines';
import { codeNode, linearWorkflow, N8n, smsNode, type WorkflowNode } from '../test/e2e/n8n-rest';
import { packageRoot } from '../test/helpers/package-root';

const root = packageRoot();
/* eslint-disable @typescript-eslint/no-require-imports */
const local = require(path.join(root, 'scripts/lib/local-n8n'));
const { Simulator } = require(path.join(root, 'test/simulator/simulator'));
/* eslint-enable @typescript-eslint/no-require-imports */

const COUNT = Number(process.env.BENCH_COUNT || 10_000);
const LINE = '2.x';
const PORTS = { n8n: 5750, broker: 5751, api: 5752, send: 5753 };
const MARKER = '\n## In a real n8n';

const rows = `return Array.from({ length: ${COUNT} }, (_, i) => ({ json: { number: String(254700000000 + i), message: 'Your code is ' + (100000 + i) } }));`;

/** Manual trigger → Code node making the items → the sender under test. */
function workflow(name: string, sender: WorkflowNode) {
	return linearWorkflow(name, [codeNode(rows), sender]);
}

async function main() {
	const userFolder = path.join(root, '.n8n-local', 'bench-user');
	fs.rmSync(userFolder, { recursive: true, force: true });
	const simulator = new Simulator({
		token: 'bench-token',
		balance: 1e12,
		smsRecords: 0,
		contacts: 0,
	});
	const urls = await simulator.start({ apiPort: PORTS.api, sendPort: PORTS.send });
	const n8nProcess = await local.launch(LINE, {
		userFolder,
		port: PORTS.n8n,
		brokerPort: PORTS.broker,
	});
	try {
		const n8n = new N8n(lineEndpoints(LINE, PORTS.n8n, { ...urls, token: simulator.token }));
		await n8n.login();
		const credential = await n8n.createCredential('Bench');
		const node = await n8n.createWorkflow(
			workflow(
				'bench: this node',
				smsNode(credential, {
					resource: 'sms',
					operation: 'send',
					senderId: 'ACME',
					number: '={{ $json.number }}',
					message: '={{ $json.message }}',
					options: {},
				}),
			),
		);
		const httpRequest = await n8n.createWorkflow(
			workflow('bench: HTTP Request node per item', {
				id: 'http',
				name: 'HTTP Request',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: {
					method: 'POST',
					url: `${urls.sendBaseUrl}/outgoings/send`,
					sendHeaders: true,
					headerParameters: {
						parameters: [{ name: 'Authorization', value: `Bearer ${simulator.token}` }],
					},
					sendBody: true,
					specifyBody: 'json',
					jsonBody:
						'={{ JSON.stringify({ senderId: "ACME", envelopes: [{ number: $json.number, message: $json.message }] }) }}',
					options: {},
				},
			}),
		);
		const results: string[] = [];
		for (const [label, id] of [
			['this node, Send (batches of 100)', node.id],
			["n8n's HTTP Request node, one request per item", httpRequest.id],
		] as const) {
			simulator.requests = [];
			const started = Date.now();
			const run = await n8n.run(id);
			const wallMs = Date.now() - started;
			const sent = simulator.sentEnvelopes.length;
			if (run.status !== 'success' || sent !== COUNT)
				throw new Error(`${label}: ${run.status}, ${sent} sent`);
			results.push(
				`| ${label} | ${simulator.requests.length.toLocaleString('en')} | ${(wallMs / 1000).toFixed(2)} s | ${Math.round((COUNT / wallMs) * 1000).toLocaleString('en')} |`,
			);
			process.stdout.write(`${label}: ${(wallMs / 1000).toFixed(2)} s\n`);
		}
		const section = `${MARKER}

Produced by \`npm run bench:n8n\` on ${new Date().toISOString().slice(0, 10)}: n8n ${local.version(LINE)} started as \`npm start\` does, two
workflows (manual trigger → Code node making ${COUNT.toLocaleString('en')} items → sender) run through n8n's REST API,
wall time from the run request to the finished execution, one run each.

| Sender | HTTP requests | Wall time | Items/s |
|---|---:|---:|---:|
${results.join('\n')}
`;
		const file = path.join(root, 'BENCHMARKS.md');
		const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
		const before = existing.includes(MARKER)
			? existing.slice(0, existing.indexOf(MARKER))
			: existing;
		fs.writeFileSync(file, `${before.trimEnd()}\n${section}`);
		process.stdout.write(section);
	} catch (error) {
		process.stderr.write(`n8n's output:\n${n8nProcess.output().slice(-3000)}\n`);
		throw error;
	} finally {
		n8nProcess.child.kill('SIGTERM');
		await simulator.stop();
	}
}

main().catch((error) => {
	process.stderr.write(
		`${error.stack}\n${error.cause ? `cause: ${error.cause.stack ?? error.cause}` : ''}\n`,
	);
	process.exit(1);
});
