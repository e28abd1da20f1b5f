// n8n 1.x (the other tested line) re-runs a job whose worker stopped renewing its lock, up to
// QUEUE_WORKER_MAX_STALLED_COUNT times (1 by default): what that does to Send when a worker is
// killed mid-run, and what the safe setting, 0, does instead. Each case brings up its own n8n 1.x
// in queue mode (scripts/lib/queue-mode.js with line 1.x) and its own simulator.
import fs from 'node:fs';

import { Simulator } from '../simulator/simulator';
import {
	clusterState,
	DATA_DIR,
	PORT_BASE,
	TEST_QUEUE_ENV,
	callWebhook,
	executionData,
	executionRows,
	n8nClient,
	publishWebhookWorkflow,
	recipients,
	SEND,
	settledExecutions,
	smsNode,
	SPLIT_RECIPIENTS,
	workerLog,
	type QueueState,
} from './cluster';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/lib/queue-mode');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const local = require('../../scripts/lib/local-n8n');

const ITEMS = 300;

/** Brings up n8n 1.x in queue mode with `maxStalledCount`, runs one Send, kills its worker. */
async function killMidSend(maxStalledCount: string) {
	const dataDir = `${DATA_DIR}-1x`;
	fs.rmSync(dataDir, { recursive: true, force: true });
	const ports = queue.portsFrom(PORT_BASE + 40);
	const simulator = new Simulator({ token: 'queue-1x-token', balance: 1e9, smsRecords: 0 });
	const urls = await simulator.start({ apiPort: ports.api, sendPort: ports.send });
	let cluster;
	try {
		cluster = await queue.startQueueMode({
			line: '1.x',
			dataDir,
			ports,
			workers: 2,
			env: { ...TEST_QUEUE_ENV, QUEUE_WORKER_MAX_STALLED_COUNT: maxStalledCount },
		});
		const state: QueueState = clusterState(
			cluster,
			{ ...urls, token: simulator.token },
			{ n8nDir: local.paths('1.x').dir, postgresPort: ports.postgres },
		);
		const n8n = n8nClient(state);
		await n8n.login();
		const credential = await n8n.createCredential('SMS Messaging (1.x)');
		const workflow = await publishWebhookWorkflow(n8n, state, 'queue 1.x: send', 'queue-1x-send', [
			SPLIT_RECIPIENTS,
			smsNode(credential, SEND),
		]);
		// Three requests of 100, each answered after 1.5 s: the worker dies after the first.
		simulator.inject({ host: 'send', delayMs: 1500, count: 1000 });
		const batch = recipients(200_000, ITEMS);
		await callWebhook(workflow.url, { recipients: batch });

		const deadline = Date.now() + 60_000;
		let victim: QueueState['workers'][number] | undefined;
		let id = '';
		while (!victim && Date.now() < deadline) {
			id = (await executionRows(state, workflow.id))[0]?.id ?? '';
			const by = workerLog(state).started.get(id);
			const sent = simulator.requests.some((r: { host: string }) => r.host === 'send');
			if (by && sent) victim = state.workers.find((w) => w.name === by[0]);
			else await new Promise((resolve) => setTimeout(resolve, 100));
		}
		expect(victim).toBeDefined();
		process.kill(-victim!.pid, 'SIGKILL');
		const [row] = await settledExecutions(state, workflow.id, 1, 180_000);
		// A re-run may still be sending when the row settles: wait until the API is quiet.
		let count = -1;
		while (count !== simulator.requests.length) {
			count = simulator.requests.length;
			await new Promise((resolve) => setTimeout(resolve, 2000));
		}
		const run = await executionData(n8n, state, row.id);
		const perNumber = new Map<string, number>();
		for (const envelope of simulator.sentEnvelopes as Array<{ number: string }>)
			perNumber.set(envelope.number, (perNumber.get(envelope.number) ?? 0) + 1);
		const twice = [...perNumber.values()].filter((n) => n > 1).length;
		const result = {
			version: cluster.version,
			victim: victim!.name,
			startedBy: workerLog(state).started.get(row.id),
			status: row.status,
			error: run.resultData.error?.message,
			envelopes: simulator.sentEnvelopes.length,
			distinct: perNumber.size,
			twice,
		};
		process.stdout.write(
			`n8n ${result.version}, QUEUE_WORKER_MAX_STALLED_COUNT=${maxStalledCount}: ${JSON.stringify(result)}\n`,
		);
		return result;
	} finally {
		await cluster?.stop();
		await simulator.stop();
	}
}

describe('n8n 1.x in queue mode, a worker killed mid-Send', () => {
	test('with n8n 1.x default (QUEUE_WORKER_MAX_STALLED_COUNT=1) the other worker runs the execution again from the start: envelopes reach the API twice', async () => {
		const result = await killMidSend('1');
		// Both workers started it, the killed one among them (the logs are read worker by worker,
		// so their order is not the order of the starts).
		expect(result.startedBy).toHaveLength(2);
		expect(new Set(result.startedBy)).toEqual(new Set(['worker-1', 'worker-2']));
		expect(result.startedBy).toContain(result.victim);
		// n8n reports a success, while the envelopes the killed worker had sent went out again.
		expect(result.status).toBe('success');
		expect(result.twice).toBeGreaterThan(0);
		expect(result.envelopes).toBe(ITEMS + result.twice);
		expect(result.distinct).toBe(ITEMS);
	});

	test('with QUEUE_WORKER_MAX_STALLED_COUNT=0 (what start:queue sets) the execution fails and nothing is sent twice', async () => {
		const result = await killMidSend('0');
		expect(result.startedBy).toEqual([result.victim]);
		expect(['error', 'crashed']).toContain(result.status);
		expect(result.twice).toBe(0);
		expect(result.envelopes).toBeLessThan(ITEMS);
	});
});
