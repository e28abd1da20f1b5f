// The node in n8n's queue mode: production executions, started by a Webhook, run on `n8n worker`
// processes that each have the package installed in their own user folder. What n8n records
// (PostgreSQL rows, the REST API's run data, each worker's log) and what the API simulator
// received are both checked, and compared with the same workflow run in one process.
import fs from 'node:fs';
import path from 'node:path';

import { codeNode, linearWorkflow } from '../e2e/n8n-rest';
import { runWorkflow, type RunOptions } from '../helpers/n8n';
import { Simulator } from '../simulator/simulator';
import {
	DATA_DIR,
	PORT_BASE,
	TEST_QUEUE_ENV,
	callWebhook,
	executionData,
	executionRows,
	n8nClient,
	publishWebhookWorkflow,
	queueState,
	recipients,
	SEND,
	settledExecutions,
	smsNode,
	SPLIT_RECIPIENTS,
	workerLog,
	workerLogWhenFinished,
	type QueueState,
} from './cluster';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/lib/queue-mode');

type Item = { json: Record<string, unknown>; pairedItem?: unknown };

let state: QueueState;
let n8n: ReturnType<typeof n8nClient>;
let credential: { id: string; name: string };

/** Envelopes the simulator's send host received, by number. */
async function receivedByNumber() {
	const counts = new Map<string, number>();
	for (const request of await n8n.simRequests()) {
		if (request.host !== 'send') continue;
		for (const envelope of request.body.envelopes ?? [])
			counts.set(envelope.number, (counts.get(envelope.number) ?? 0) + 1);
	}
	return counts;
}

/** What the same workflow gives in one process (n8n-core's engine), against its own simulator. */
async function singleInstance(parameters: RunOptions['parameters'], items: object[]) {
	const sim = new Simulator({ token: state.simulatorToken, balance: 1e9, smsRecords: 60 });
	const urls = await sim.start();
	try {
		const result = await runWorkflow({
			parameters,
			items,
			credentials: { apiToken: state.simulatorToken, ...urls },
		});
		expect(result.error).toBeUndefined();
		return result.items as Item[];
	} finally {
		await sim.stop();
	}
}

/** A Send output item without what depends on the order of sends (the API's id, the balance). */
const sendResult = ({ json, pairedItem }: Item) => {
	// What differs between two runs of the same send: the ids, the balance and when it went out.
	const { id: _id, balance: _balance, sentAt, ...rest } = json;
	expect(sentAt).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/));
	return { json: rest, pairedItem };
};

beforeAll(async () => {
	state = queueState();
	n8n = n8nClient(state);
	await n8n.login();
	credential = await n8n.createCredential('SMS Messaging (queue test)');
});

describe(`queue mode: n8n main and two workers (n8n ${queueState().version}, PostgreSQL, Redis)`, () => {
	test('the node is installed on main and on every worker, each in its own user folder', async () => {
		expect(await n8n.nodeTypes()).toContain('n8n-nodes-sms-messaging.smsMessaging');
		const { workers } = state;
		expect(workers.map((w) => w.name)).toEqual(['worker-1', 'worker-2']);
		// Each worker is a separate process with its own copy of the package (see global-setup).
		for (const worker of workers) {
			const installed = path.join(
				DATA_DIR,
				worker.name,
				'.n8n/nodes/node_modules/n8n-nodes-sms-messaging/package.json',
			);
			expect(JSON.parse(fs.readFileSync(installed, 'utf8')).name).toBe('n8n-nodes-sms-messaging');
		}
	});

	test('SMS → Get Many started by a webhook runs on a worker and returns what one process returns', async () => {
		await n8n.simReset();
		const parameters = { resource: 'sms', operation: 'getAll', returnAll: true };
		const workflow = await publishWebhookWorkflow(n8n, state, 'queue: get many', 'queue-get-many', [
			smsNode(credential, parameters),
		]);
		await Promise.all([1, 2, 3, 4].map(() => callWebhook(workflow.url, {})));
		const rows = await settledExecutions(state, workflow.id, 4);
		expect(rows.map((row) => [row.mode, row.status])).toEqual(
			Array(4).fill(['webhook', 'success']),
		);

		const { started } = workerLog(state);
		for (const row of rows)
			expect(started.get(row.id)).toEqual([expect.stringMatching(/^worker-/)]);

		const expected = await singleInstance(parameters, [{}]);
		expect(expected).toHaveLength(60);
		for (const row of rows) {
			const run = await executionData(n8n, state, row.id);
			const output = run.resultData.runData['SMS Messaging'][0].data!.main[0];
			expect(output).toEqual(expected);
		}
		// Four runs of Return All, each a page of 100 holding the 60 seeded records.
		const lists = (await n8n.simRequests()).filter((r) => r.path === '/sms');
		expect(lists).toHaveLength(4);
	});

	test("a manual run from the editor's Execute workflow runs on a worker too (OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS)", async () => {
		await n8n.simReset();
		const workflow = await n8n.createWorkflow(
			linearWorkflow('queue: manual send', [
				codeNode(`return ${JSON.stringify(recipients(700_000, 3))}.map((json) => ({ json }));`),
				smsNode(credential, SEND),
			]),
		);
		const run = await n8n.run(workflow.id);
		expect(run.status).toBe('success');
		const [row] = await executionRows(state, workflow.id);
		expect(row.mode).toBe('manual');
		expect(workerLog(state).started.get(row.id)).toEqual([expect.stringMatching(/^worker-[12]$/)]);
		const output = run.resultData.runData['SMS Messaging'][0].data!.main[0];
		expect(output.map((item) => item.json.recipient)).toEqual(
			recipients(700_000, 3).map((r) => r.number),
		);
		const sends = (await n8n.simRequests()).filter((r) => r.host === 'send');
		expect(sends).toHaveLength(1);
		expect(sends[0].body.envelopes).toHaveLength(3);
	});

	test('20 Send executions of 100 items started at once run on both workers: 2,000 envelopes received once each, 20 outputs of 100 paired items, as in one process', async () => {
		await n8n.simReset();
		const workflow = await publishWebhookWorkflow(n8n, state, 'queue: send', 'queue-send', [
			SPLIT_RECIPIENTS,
			smsNode(credential, SEND),
		]);
		const batches = Array.from({ length: 20 }, (_, b) => recipients(b * 100, 100));
		await Promise.all(batches.map((batch) => callWebhook(workflow.url, { recipients: batch })));

		const rows = await settledExecutions(state, workflow.id, 20);
		expect(rows).toHaveLength(20);
		expect(rows.every((row) => row.mode === 'webhook' && row.status === 'success')).toBe(true);

		// Which worker ran each execution: exactly one worker each, both workers some, main none.
		const { started, finished } = await workerLogWhenFinished(
			state,
			rows.map((row) => row.id),
		);
		const ranBy = rows.map((row) => started.get(row.id));
		for (const [i, row] of rows.entries()) {
			expect(ranBy[i]).toEqual([expect.stringMatching(/^worker-[12]$/)]);
			expect(finished.get(row.id)).toEqual(ranBy[i]);
		}
		const perWorker = { 'worker-1': 0, 'worker-2': 0 } as Record<string, number>;
		for (const [name] of ranBy as string[][]) perWorker[name]++;
		process.stdout.write(`20 Send executions: ${JSON.stringify(perWorker)}\n`);
		expect(perWorker['worker-1']).toBeGreaterThan(0);
		expect(perWorker['worker-2']).toBeGreaterThan(0);

		// The API received every envelope exactly once, in 20 requests of 100.
		const sends = (await n8n.simRequests()).filter((r) => r.host === 'send');
		expect(sends).toHaveLength(20);
		expect(sends.every((r) => r.status === 202 && r.body.envelopes?.length === 100)).toBe(true);
		const received = await receivedByNumber();
		const all = batches.flat();
		expect(received.size).toBe(2000);
		expect([...received.values()].every((count) => count === 1)).toBe(true);
		expect([...received.keys()].sort()).toEqual(all.map((r) => r.number).sort());

		// Each execution's output: its batch's 100 items, paired in order, as in one process.
		const reference = (await singleInstance(SEND, batches[0])).map(sendResult);
		expect(reference).toHaveLength(100);
		const outputs = [];
		for (const row of rows) {
			const run = await executionData(n8n, state, row.id);
			const input = run.resultData.runData.Recipients[0].data!.main[0];
			const output = run.resultData.runData['SMS Messaging'][0].data!.main[0];
			expect(output).toHaveLength(100);
			expect(output.map((item) => item.pairedItem)).toEqual(
				Array.from({ length: 100 }, (_, item) => ({ item })),
			);
			expect(output.map((item) => item.json.recipient)).toEqual(
				input.map((item) => item.json.number),
			);
			outputs.push(output);
		}
		// The batch each execution sent, found by its first number; compared with one process.
		const first = outputs.find((o) => o[0].json.recipient === batches[0][0].number)!;
		expect(first.map(sendResult)).toEqual(reference);
		const batchOf = outputs.map((o) =>
			batches.findIndex((b) => b[0].number === o[0].json.recipient),
		);
		expect([...batchOf].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, b) => b));
		for (const output of outputs)
			for (const item of output)
				expect(item.json).toMatchObject({ status: 'SENT', senderId: 'ACME' });
	});

	test('a worker killed with SIGKILL mid-run: the executions it held end failed, never success, are not re-run, and no envelope reaches the API twice', async () => {
		await n8n.simReset();
		// Every send request is answered after 1.5 s, so that the worker dies in the middle of a run.
		await n8n.simFault({ host: 'send', path: '/outgoings/send', delayMs: 1500, count: 100000 });
		const workflow = await publishWebhookWorkflow(
			n8n,
			state,
			'queue: send, worker killed',
			'queue-kill',
			[SPLIT_RECIPIENTS, smsNode(credential, SEND)],
		);
		const COUNT = 6;
		const ITEMS = 300;
		const batches = Array.from({ length: COUNT }, (_, b) => recipients(100_000 + b * ITEMS, ITEMS));
		await Promise.all(batches.map((batch) => callWebhook(workflow.url, { recipients: batch })));

		// Wait until a worker runs executions of this workflow and the API has had a send request.
		const deadline = Date.now() + 60_000;
		let victim: QueueState['workers'][number] | undefined;
		while (!victim && Date.now() < deadline) {
			const ids = new Set((await executionRows(state, workflow.id)).map((row) => row.id));
			const { started } = workerLog(state);
			const sent = (await n8n.simRequests()).some((r) => r.host === 'send');
			const busiest = state.workers
				.map((w) => ({
					w,
					n: [...started].filter(([id, by]) => ids.has(id) && by.includes(w.name)).length,
				}))
				.sort((a, b) => b.n - a.n)[0];
			if (sent && busiest.n > 0) victim = busiest.w;
			else await new Promise((resolve) => setTimeout(resolve, 100));
		}
		expect(victim).toBeDefined();
		process.kill(-victim!.pid, 'SIGKILL');
		const killedAt = Date.now();
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const atKill = workerLog(state);
		const ids = (await executionRows(state, workflow.id)).map((row) => row.id);
		const held = ids.filter(
			(id) => atKill.started.get(id)?.includes(victim!.name) && !atKill.finished.get(id),
		);
		expect(held.length).toBeGreaterThan(0);

		const rows = await settledExecutions(state, workflow.id, COUNT, 180_000);
		const settledAfter = ((Date.now() - killedAt) / 1000).toFixed(1);
		const survivor = state.workers.find((w) => w !== victim)!.name;
		const { started } = workerLog(state);
		const runs = new Map<string, Awaited<ReturnType<typeof executionData>>>();
		for (const row of rows) runs.set(row.id, await executionData(n8n, state, row.id));
		process.stdout.write(
			`worker killed: ${victim!.name} (held ${held.join(', ')}), survivor ${survivor}; all settled ${settledAfter} s after the kill\n` +
				rows
					.map(
						(row) =>
							`execution ${row.id}: started by ${started.get(row.id) ?? 'none'}, ${row.status}` +
							(runs.get(row.id)!.resultData.error
								? `: ${runs.get(row.id)!.resultData.error!.message}`
								: ''),
					)
					.join('\n') +
				'\n',
		);
		for (const row of rows) {
			if (started.get(row.id)?.includes(survivor)) {
				// The surviving worker's executions run to the end, each once.
				expect(started.get(row.id)).toEqual([survivor]);
				expect(row.status).toBe('success');
			} else {
				// The killed worker's (started, or taken from the queue and not yet started): reported
				// failed, never success, and not re-run by the surviving worker.
				expect(['error', 'crashed']).toContain(row.status);
				expect(row.finished).toBe(false);
				expect(runs.get(row.id)!.status).toBe(row.status);
			}
		}
		for (const id of held) expect(rows.find((row) => row.id === id)!.status).not.toBe('success');

		// No envelope reached the API twice; every execution that succeeded had all of its sent.
		const received = await receivedByNumber();
		expect([...received.values()].every((count) => count === 1)).toBe(true);
		let sentBySuccesses = 0;
		for (const row of rows.filter((r) => r.status === 'success')) {
			const output = runs.get(row.id)!.resultData.runData['SMS Messaging'][0].data!.main[0];
			expect(output).toHaveLength(ITEMS);
			for (const item of output) expect(received.get(item.json.recipient as string)).toBe(1);
			sentBySuccesses += output.length;
		}
		// What the failed executions had sent before their worker died stays sent (the API took it);
		// n8n reports them failed, so retrying one would send those envelopes again.
		process.stdout.write(
			`envelopes received: ${received.size}, of which ${received.size - sentBySuccesses} from the executions on the killed worker (of ${(rows.length - rows.filter((r) => r.status === 'success').length) * ITEMS} they held)\n`,
		);
	});
});

describe('a worker without the package', () => {
	test('cannot run the node: the execution fails with "Unrecognized node type" and nothing is sent', async () => {
		// Only the new worker may take the job: stop the others (one may be gone already).
		const alive = (pid: number) => {
			try {
				process.kill(pid, 0);
				return true;
			} catch {
				return false;
			}
		};
		for (const worker of state.workers.filter((w) => alive(w.pid))) {
			process.kill(-worker.pid, 'SIGTERM');
			const deadline = Date.now() + 60_000;
			while (alive(worker.pid) && Date.now() < deadline)
				await new Promise((resolve) => setTimeout(resolve, 200));
			expect(alive(worker.pid)).toBe(false);
		}
		// A third worker with a fresh user folder: the same n8n and settings, no community package.
		const bare = queue.launchWorker({
			dataDir: DATA_DIR,
			ports: queue.portsFrom(PORT_BASE),
			index: 3,
			env: TEST_QUEUE_ENV,
		});
		try {
			await bare.ready;
			await n8n.simReset();
			const workflow = await publishWebhookWorkflow(
				n8n,
				state,
				'queue: send on a worker without the package',
				'queue-bare-worker',
				[SPLIT_RECIPIENTS, smsNode(credential, SEND)],
			);
			await callWebhook(workflow.url, { recipients: recipients(500_000, 10) });
			const [row] = await settledExecutions(state, workflow.id, 1, 120_000);
			const run = await executionData(n8n, state, row.id);
			process.stdout.write(
				`worker-3 (no package): execution ${row.id} ${row.status}: ${run.resultData.error?.message}\n`,
			);
			expect(row.status).toBe('error');
			expect(run.resultData.error?.message).toMatch(
				/Unrecognized node type: n8n-nodes-sms-messaging\.smsMessaging/,
			);
			expect(
				workerLog({
					...state,
					workers: [{ name: 'worker-3', pid: bare.pid, logFile: bare.logFile }],
				}).started.get(row.id),
			).toEqual(['worker-3']);
			expect((await n8n.simRequests()).filter((r) => r.host === 'send')).toEqual([]);
		} finally {
			await bare.stop('SIGTERM');
		}
	});
});
