// What the queue-mode tests share: where the setup runs, and reading n8n's own records of it
// (execution rows in PostgreSQL, executions through the REST API, each worker's log).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { N8n, smsNode, type WorkflowNode } from '../e2e/n8n-rest';
import { packageRoot } from '../helpers/package-root';

export const DATA_DIR = path.join(packageRoot(), '.n8n-local', 'queue-test');
export const STATE_FILE = path.join(DATA_DIR, 'state.json');
/** Away from `npm run start:queue` (7700) and the end-to-end tests; QUEUE_TEST_PORT_BASE moves it. */
export const PORT_BASE = Number(process.env.QUEUE_TEST_PORT_BASE || 7720);

/**
 * Shorter than n8n's defaults (a 60 s job lock renewed every 10 s, stalled jobs looked for every
 * 30 s), so that a killed worker's job is noticed within seconds; the mechanism is the same.
 */
export const TEST_QUEUE_ENV = {
	QUEUE_WORKER_LOCK_DURATION: '8000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
	QUEUE_WORKER_STALLED_INTERVAL: '4000',
};

export interface QueueState {
	n8nUrl: string;
	version: string;
	simulatorBaseUrl: string;
	simulatorSendBaseUrl: string;
	simulatorToken: string;
	n8nDir: string;
	postgresPort: number;
	mainLog: string;
	workers: Array<{ name: string; pid: number; logFile: string }>;
}

/** A started cluster (scripts/lib/queue-mode's startQueueMode), as its tests and bench use it. */
interface StartedCluster {
	n8nUrl: string;
	version: string;
	main: { logFile: string };
	workers: Array<{ name: string; pid: number; logFile: string }>;
}

/** What tests and the bench know of a started cluster, its n8n install and its simulator. */
export function clusterState(
	cluster: StartedCluster,
	simulator: { baseUrl: string; sendBaseUrl: string; token: string },
	{ n8nDir, postgresPort }: { n8nDir: string; postgresPort: number },
): QueueState {
	return {
		n8nUrl: cluster.n8nUrl,
		version: cluster.version,
		simulatorBaseUrl: simulator.baseUrl,
		simulatorSendBaseUrl: simulator.sendBaseUrl,
		simulatorToken: simulator.token,
		n8nDir,
		postgresPort,
		mainLog: cluster.main.logFile,
		workers: cluster.workers.map(({ name, pid, logFile }) => ({ name, pid, logFile })),
	};
}

export function queueState(): QueueState {
	return JSON.parse(fs.readFileSync(STATE_FILE, 'utf8'));
}

/** The REST client of the end-to-end tests, pointed at queue mode's main. */
export function n8nClient(state: QueueState) {
	return new N8n({ line: '2.x', ...state });
}

/** A row of n8n's execution_entity table. */
interface ExecutionRow {
	id: string;
	status: string;
	mode: string;
	finished: boolean;
}

/** n8n's execution rows of a workflow, from its PostgreSQL database, through n8n's own `pg`. */
export async function executionRows(state: QueueState, workflowId: string) {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const queue = require(path.join(packageRoot(), 'scripts/lib/queue-mode'));
	const rows = (await queue.query(
		state.postgresPort,
		'SELECT id, status, mode, finished FROM execution_entity WHERE "workflowId" = $1 ORDER BY id',
		[workflowId],
	)) as Array<{ id: number | string; status: string; mode: string; finished: boolean }>;
	return rows.map((row) => ({ ...row, id: String(row.id) })) as ExecutionRow[];
}

/** Waits until a workflow has `count` executions and none is new or running. */
export async function settledExecutions(
	state: QueueState,
	workflowId: string,
	count: number,
	timeoutMs = 240_000,
) {
	const deadline = Date.now() + timeoutMs;
	let rows: ExecutionRow[] = [];
	while (Date.now() < deadline) {
		rows = await executionRows(state, workflowId);
		if (rows.length >= count && rows.every((row) => !['new', 'running'].includes(row.status)))
			return rows;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error(`executions did not settle: ${JSON.stringify(rows)}`);
}

/**
 * Which process ran which execution, from each process's own log: a worker logs "Worker started
 * execution N (job J)" and "Worker finished execution N (job J)" (n8n's job processor, info level).
 * On this machine n8n's hostId cannot tell the workers apart (in a container it is the hostname,
 * the same for both), and the execution row does not record a worker.
 */
export function workerLog(state: QueueState) {
	const started = new Map<string, string[]>();
	const finished = new Map<string, string[]>();
	const processes = [...state.workers, { name: 'main', logFile: state.mainLog }];
	for (const { name, logFile } of processes) {
		const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
		for (const [, verb, id] of text.matchAll(/Worker (started|finished) execution (\d+) \(job/g)) {
			const map = verb === 'started' ? started : finished;
			map.set(id, [...(map.get(id) ?? []), name]);
		}
	}
	return { started, finished };
}

/**
 * The worker logs once every execution in `ids` has its "finished" line: a worker logs it after
 * saving the execution, and its output reaches the log file through a pipe, so a settled row can
 * come first.
 */
export async function workerLogWhenFinished(state: QueueState, ids: string[], timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const log = workerLog(state);
		if (ids.every((id) => log.finished.has(id)) || Date.now() > deadline) return log;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

/** A production execution's run data, from n8n's REST API. */
export async function executionData(n8n: N8n, state: QueueState, id: string) {
	const execution = await n8n.rest<{ status: string; mode: string; data: string }>(
		'GET',
		`/executions/${id}`,
	);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const flatted = require(path.join(state.n8nDir, 'node_modules/flatted'));
	const data = flatted.parse(execution.data) as {
		resultData: {
			runData: Record<
				string,
				Array<{
					data?: { main: Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }>> };
					error?: { message: string };
				}>
			>;
			error?: { message: string; description?: string };
		};
	};
	return { status: execution.status, mode: execution.mode, resultData: data.resultData };
}

/** Webhook (POST /webhook/<path>, answering at once) → the given nodes, one after the other. */
function webhookWorkflow(name: string, webhookPath: string, nodes: WorkflowNode[]) {
	const chain: WorkflowNode[] = [
		{
			id: 'webhook',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: randomUUID(),
			parameters: {
				httpMethod: 'POST',
				path: webhookPath,
				responseMode: 'onReceived',
				options: {},
			},
		},
		...nodes,
	].map((node, i) => ({ position: [220 * i, 0], ...node }));
	const connections = Object.fromEntries(
		chain
			.slice(0, -1)
			.map((node, i) => [
				node.name,
				{ main: [[{ node: chain[i + 1].name, type: 'main', index: 0 }]] },
			]),
	);
	return { name, nodes: chain, connections, settings: { executionOrder: 'v1' }, active: false };
}

/** Split Out: one item per entry of the request body's `recipients`. */
export const SPLIT_RECIPIENTS: WorkflowNode = {
	id: 'split',
	name: 'Recipients',
	type: 'n8n-nodes-base.splitOut',
	typeVersion: 1,
	parameters: { fieldToSplitOut: 'body.recipients', include: 'noOtherFields', options: {} },
};

/** SMS → Send with each item's number and message. */
export const SEND = {
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '={{ $json.number }}',
	message: '={{ $json.message }}',
	options: {},
};

/** Creates and publishes a webhook workflow; resolves with its id and production URL. */
export async function publishWebhookWorkflow(
	n8n: N8n,
	state: QueueState,
	name: string,
	webhookPath: string,
	nodes: WorkflowNode[],
) {
	const created = await n8n.createWorkflow(webhookWorkflow(name, webhookPath, nodes));
	await n8n.rest('POST', `/workflows/${created.id}/activate`, { versionId: created.versionId });
	const url = `${state.n8nUrl}/webhook/${webhookPath}`;
	// n8n registers the webhook shortly after answering; a GET tells registered (wrong method) from
	// not registered without starting an execution.
	const deadline = Date.now() + 30_000;
	while ((await (await fetch(url)).text()).includes('The requested webhook')) {
		if (Date.now() > deadline) throw new Error(`webhook ${webhookPath} was never registered`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	return { id: created.id, url };
}

export { smsNode };

/** Recipients `first` … `first + count - 1`, each with its own number and message. */
export function recipients(first: number, count: number) {
	return Array.from({ length: count }, (_, i) => ({
		number: `2547${String(10000000 + first + i)}`,
		message: `Queue test message ${first + i}`,
	}));
}

/** Starts a production execution through the webhook; n8n answers once it is queued. */
export async function callWebhook(url: string, body: unknown) {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`webhook: ${response.status} ${await response.text()}`);
	return response;
}
