// Drives a running n8n through its own REST API, the way the editor does.
import fs from 'node:fs';
import path from 'node:path';
import type { INodeTypeDescription } from 'n8n-workflow';

import { localN8n, STATE_FILE, type LineEndpoints } from './lines';

export function lines(): LineEndpoints[] {
	return JSON.parse(fs.readFileSync(STATE_FILE, 'utf8'));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until n8n serves a waiting execution's page: n8n 1.82 reports an execution waiting a moment
 * before its webhook can load it (a 500, "Cannot read properties of undefined (reading
 * 'resultData')", in a cold CI run), a moment no person who reads the SMS first meets. Opening the
 * page changes nothing; a link n8n refuses (4xx) returns at once.
 */
export async function pageServed(link: string) {
	const deadline = Date.now() + 10_000;
	while ((await fetch(link)).status >= 500 && Date.now() < deadline) await sleep(300);
}

/** Reads until `done` says so (a read that fails counts as not done), for up to `ms`. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000) {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await read().catch(() => undefined);
		if (value !== undefined && done(value)) return value;
		if (Date.now() > deadline) throw new Error(`not done: ${JSON.stringify(value)}`);
		await sleep(300);
	}
}

export interface SimRequest {
	host: 'api' | 'send';
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string | undefined>;
	body: { senderId?: string; envelopes?: Array<Record<string, string>> } & Record<string, unknown>;
	status: number;
}

type ExecutionError = { message?: string; description?: string };

/** What the package's tests read of an execution's stored data. */
interface StoredExecutionData {
	waitTill?: string;
	resultData?: {
		error?: ExecutionError;
		runData?: Record<
			string,
			Array<{
				data?: { main: Array<Array<{ json: Record<string, unknown> }>> };
				error?: ExecutionError;
			}>
		>;
	};
}

export class N8n {
	private cookie = '';

	private readonly flatted: { parse: (text: string) => unknown };

	constructor(readonly endpoints: LineEndpoints) {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		this.flatted = require(path.join(endpoints.n8nDir, 'node_modules/flatted'));
	}

	async login() {
		const response = await localN8n.login(this.endpoints.n8nUrl);
		if (!response.ok) throw new Error(`login failed: ${response.status} ${await response.text()}`);
		this.cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
	}

	/** The session cookie of the last login. */
	get sessionCookie() {
		return this.cookie;
	}

	async rest<T>(method: string, route: string, body?: unknown): Promise<T> {
		const request = () =>
			fetch(`${this.endpoints.n8nUrl}/rest${route}`, {
				method,
				headers: { 'content-type': 'application/json', cookie: this.cookie },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
		// A busy n8n can close a kept-alive connection just as it is reused; a read can be repeated.
		const response = await request().catch((error) => {
			if (method !== 'GET') throw error;
			return request();
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
		return (JSON.parse(text) as { data: T }).data;
	}

	/** The node types the editor is offered. */
	async nodeTypes(): Promise<string[]> {
		return (await this.nodeTypeDescriptions()).map((type) => type.name);
	}

	/** The node type descriptions n8n's editor loads (its nodes panel and forms come from them). */
	async nodeTypeDescriptions(): Promise<INodeTypeDescription[]> {
		const response = await fetch(`${this.endpoints.n8nUrl}/types/nodes.json`, {
			headers: { cookie: this.cookie },
		});
		return (await response.json()) as INodeTypeDescription[];
	}

	/** A credential of this package's type; `data` overrides the simulator defaults. */
	async createCredential(name: string, data: Record<string, string> = {}) {
		const credential = await this.rest<{ id: string }>('POST', '/credentials', {
			name,
			type: 'smsMessagingApi',
			data: {
				apiToken: this.endpoints.simulatorToken,
				baseUrl: this.endpoints.simulatorBaseUrl,
				sendBaseUrl: this.endpoints.simulatorSendBaseUrl,
				...data,
			},
		});
		return { id: credential.id, name };
	}

	async createWorkflow(workflow: Record<string, unknown>) {
		return await this.rest<{ id: string } & Record<string, unknown>>(
			'POST',
			'/workflows',
			workflow,
		);
	}

	/** Runs a saved workflow from its manual trigger and waits for the execution to end. */
	async run(workflowId: string, trigger = 'Run manually') {
		const workflowData = await this.rest<Record<string, unknown>>(
			'GET',
			`/workflows/${workflowId}`,
		);
		const { executionId } = await this.rest<{ executionId: string }>(
			'POST',
			`/workflows/${workflowId}/run`,
			{
				workflowData,
				triggerToStartFrom: { name: trigger },
				startNodes: [],
			},
		);
		const deadline = Date.now() + 120_000;
		while (Date.now() < deadline) {
			const execution = await this.rest<{ status: string; finished: boolean; data: string }>(
				'GET',
				`/executions/${executionId}`,
			);
			if (!['new', 'running', 'waiting'].includes(execution.status)) {
				const data = this.flatted.parse(execution.data) as {
					resultData: {
						runData: Record<
							string,
							Array<{
								data?: {
									main: Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }>>;
								};
								error?: { message: string; description?: string };
								hints?: Array<{ message: string; group?: { summary: string } }>;
							}>
						>;
						error?: { message: string; description?: string };
					};
				};
				// n8n 1.x can report the execution finished before its run data is saved.
				if (data?.resultData)
					return { status: execution.status, raw: execution.data, resultData: data.resultData };
			}
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
		throw new Error(`execution ${executionId} did not finish`);
	}

	/** The ids of a workflow's executions, newest first. */
	async executionIds(workflowId: string): Promise<string[]> {
		return (await this.executions(workflowId)).map((execution) => execution.id);
	}

	/** A workflow's executions, newest first, with their status. */
	async executions(workflowId: string): Promise<Array<{ id: string; status: string }>> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const { results } = await this.rest<{ results: Array<{ id: string; status: string }> }>(
			'GET',
			`/executions?filter=${filter}`,
		);
		return results;
	}

	/**
	 * A stored execution's status and data. n8n 1.82 on SQLite writes an execution's status and its
	 * data one after the other, not in one transaction: a status read between the two comes with
	 * the data saved when it went to wait, so while that data says it waits, its status is waiting.
	 */
	private async storedExecution(executionId: string) {
		const execution = await this.rest<{ status: string; data: string }>(
			'GET',
			`/executions/${executionId}`,
		);
		const data = this.flatted.parse(execution.data) as StoredExecutionData | null;
		return { status: data?.waitTill ? 'waiting' : execution.status, data };
	}

	/** What a node put on its first output in a stored execution. */
	async executionOutput(executionId: string, node: string) {
		const { status, data } = await this.storedExecution(executionId);
		return { status, items: data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0] ?? [] };
	}

	/** A stored execution's status and the error it ended with (the run's, or its node's). */
	async executionError(executionId: string) {
		const { status, data } = await this.storedExecution(executionId);
		// n8n 1.82 keeps a node's error on its run only.
		const runErrors = Object.values(data?.resultData?.runData ?? {})
			.flat()
			.map((run) => run.error);
		return {
			status,
			error: data?.resultData?.error ?? runErrors.find((error) => error !== undefined),
		};
	}

	/** A stored execution's status and every run of `node`: its first output's items' json. */
	async executionRuns(executionId: string, node: string) {
		const { status, data } = await this.storedExecution(executionId);
		const runs = data?.resultData?.runData?.[node] ?? [];
		return {
			status,
			runs: runs.map((run) => (run.data?.main?.[0] ?? []).map((item) => item.json)),
		};
	}

	async simRequests(): Promise<SimRequest[]> {
		return (await (await fetch(this.simControl('/requests'))).json()) as SimRequest[];
	}

	async simReset() {
		await fetch(this.simControl('/reset'), { method: 'POST' });
	}

	async simFault(fault: Record<string, unknown>) {
		await fetch(this.simControl('/faults'), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(fault),
		});
	}

	private simControl(route: string) {
		return `${this.endpoints.simulatorBaseUrl.replace(/\/api\/v3$/, '')}/__sim${route}`;
	}
}

export type WorkflowNode = { id: string; name: string; type: string; typeVersion: number } & Record<
	string,
	unknown
>;

/** A workflow running `nodes` one after the other from a manual trigger named "Run manually". */
export function linearWorkflow(name: string, nodes: WorkflowNode[]) {
	const chain: WorkflowNode[] = [
		{
			id: 'trigger',
			name: 'Run manually',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			parameters: {},
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

/** A Code node that outputs the items its JavaScript returns. */
export function codeNode(jsCode: string): WorkflowNode {
	return {
		id: 'rows',
		name: 'Rows',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		parameters: { jsCode },
	};
}

/** This package's node with `parameters`, the credential, and node settings such as onError. */
export function smsNode(
	credential: { id: string; name: string },
	parameters: Record<string, unknown>,
	settings: Record<string, unknown> = {},
): WorkflowNode {
	return {
		id: 'sms',
		name: 'SMS Messaging',
		type: 'n8n-nodes-sms-messaging.smsMessaging',
		typeVersion: 1,
		parameters,
		credentials: { smsMessagingApi: credential },
		...settings,
	};
}

/** Sender ID → Create parameters registering one Sender ID named by each item's `brand`. */
export const CREATE_SENDER_ID_PER_BRAND = {
	resource: 'senderId',
	operation: 'create',
	name: '={{ $json.brand }}',
	purpose: 'TRANSACTIONAL',
	access: 'PRIVATE',
	sample: 'Your order has shipped.',
};

/** The items a node put on its first output in a finished run. */
export function outputOf(
	run: Awaited<ReturnType<N8n['run']>>,
	node: string,
): Array<{ json: Record<string, unknown>; pairedItem?: unknown }> {
	return run.resultData.runData[node]?.[0]?.data?.main?.[0] ?? [];
}
