// One benchmark measurement, run in a child process of its own so that its peak memory is its
// own: `node contender.js <name> <count> <baseUrl> <sendBaseUrl> <token> [batchSize] [parallel]`.
import http from 'node:http';
import type { INodeType } from 'n8n-workflow';

import { nodeTypeInstances, runWorkflow, type Credentials } from '../test/helpers/n8n';
import { STATUS_WINDOW, statusWindow } from './statusWindow';

const PER_ITEM_TYPE = 'bench.perItemSms';
const PAGE_100_TYPE = 'bench.pagedBy100';

/**
 * What a per-item SMS node (or an HTTP Request node) does: one declarative request per item,
 * through the same routing engine, with the same credential.
 */
nodeTypeInstances[PER_ITEM_TYPE] = {
	description: {
		displayName: 'Per-item SMS',
		name: 'perItemSms',
		group: ['output'],
		version: 1,
		description: '',
		defaults: { name: 'Per-item SMS' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		requestDefaults: {
			baseURL: '={{ $credentials.sendBaseUrl }}',
			method: 'POST',
			url: '/outgoings/send',
		},
		properties: [
			{ displayName: 'Number', name: 'number', type: 'string', default: '' },
			{ displayName: 'Message', name: 'message', type: 'string', default: '' },
			{
				displayName: 'Body',
				name: 'body',
				type: 'hidden',
				default: '',
				routing: {
					send: {
						type: 'body',
						property: 'envelopes',
						value: '={{ [{ number: $parameter.number, message: $parameter.message }] }}',
					},
					request: { body: { senderId: 'ACME' } },
				},
			},
		],
	},
} as unknown as INodeType;

/**
 * Return All one page after another: a node with n8n's generic pagination, pages of 100, through
 * the same engine (this node has no setting for reading one page at a time).
 */
nodeTypeInstances[PAGE_100_TYPE] = {
	description: {
		displayName: 'Paged by 100',
		name: 'pagedBy100',
		group: ['input'],
		version: 1,
		description: '',
		defaults: { name: 'Paged by 10' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		requestDefaults: { baseURL: '={{ $credentials.baseUrl }}', method: 'GET', url: '/sms' },
		properties: [
			{
				displayName: 'Return All',
				name: 'returnAll',
				type: 'hidden',
				default: true,
				routing: {
					send: { paginate: true },
					operations: {
						pagination: {
							type: 'generic',
							properties: {
								continue: '={{ $response.body.data.pagination.last === false }}',
								// The next page after the one just received; the first request has no response yet.
								request: {
									qs: {
										page: '={{ ($response.body?.data?.pagination?.pageNumber ?? 0) + 1 }}',
										records: 100,
									},
								},
							},
						},
					},
					output: {
						postReceive: [{ type: 'rootProperty', properties: { property: 'data.content' } }],
					},
				},
			},
		],
	},
} as unknown as INodeType;

const PER_ITEM_SEARCH_TYPE = 'bench.perItemSearch';

/**
 * The naive way to check delivery: one search of the SMS list per item (`query` = its number),
 * as a per-item node or an HTTP Request node does, through the same routing engine.
 */
nodeTypeInstances[PER_ITEM_SEARCH_TYPE] = {
	description: {
		displayName: 'Per-item SMS search',
		name: 'perItemSearch',
		group: ['input'],
		version: 1,
		description: '',
		defaults: { name: 'Per-item SMS search' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		requestDefaults: { baseURL: '={{ $credentials.baseUrl }}', method: 'GET', url: '/sms' },
		properties: [
			{
				displayName: 'Recipient',
				name: 'recipient',
				type: 'string',
				default: '',
				routing: { send: { type: 'query', property: 'query' } },
			},
			{
				displayName: 'Start Date',
				name: 'startDate',
				type: 'string',
				default: '',
				routing: {
					send: { type: 'query', property: 'start-date' },
					request: { qs: { records: 100 } },
					output: {
						postReceive: [{ type: 'rootProperty', properties: { property: 'data.content' } }],
					},
				},
			},
		],
	},
} as unknown as INodeType;

/** `count` of the window's messages spread over all of it, as Send's output gives them. */
function sentMessages(count: number, windowSize: number) {
	const window = statusWindow(windowSize);
	const step = Math.floor(windowSize / count);
	return Array.from({ length: count }, (_, i) => {
		const k = i * step;
		return { id: k + 1, recipient: window[k].recipient, message: window[k].content };
	});
}

function envelopes(count: number) {
	return Array.from({ length: count }, (_, i) => ({
		number: String(254700000000 + i),
		message: `Your code is ${String(100000 + i)}`,
	}));
}

/** node:http with keep-alive and nothing else: the least any client has to do. */
function post(url: URL, token: string, body: unknown, agent: http.Agent): Promise<unknown> {
	const text = JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const request = http.request(
			url,
			{
				method: 'POST',
				agent,
				headers: {
					authorization: `Bearer ${token}`,
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(text),
				},
			},
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
			},
		);
		request.on('error', reject);
		request.end(text);
	});
}

function get(
	url: URL,
	token: string,
	agent: http.Agent,
): Promise<{ data: { content: unknown[]; pagination: { last: boolean; totalPages: number } } }> {
	return new Promise((resolve, reject) => {
		http
			.get(url, { agent, headers: { 'x-service': `Bearer ${token}` } }, (response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
			})
			.on('error', reject);
	});
}

/** Runs `task(0)`, `task(1)`, … with at most `parallel` running at once. */
async function inParallel(count: number, parallel: number, task: (index: number) => Promise<void>) {
	let next = 0;
	const worker = async () => {
		while (next < count) await task(next++);
	};
	await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}

const CONTENDERS = {
	/** This node's Send through n8n-core's engine. */
	async send(count: number, credentials: Credentials, batchSize: number, parallel?: number) {
		const result = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'send',
				senderId: 'ACME',
				number: '={{ $json.number }}',
				message: '={{ $json.message }}',
				options: { batchSize, ...(parallel ? { parallelRequests: parallel } : {}) },
			},
			items: envelopes(count),
			inputDirect: true,
			credentials,
		});
		if (result.error || result.items.length !== count)
			throw new Error(`send failed: ${result.error?.message}`);
		return result.items.length;
	},

	/** One request per item, through the same engine. */
	async perItem(count: number, credentials: Credentials) {
		const result = await runWorkflow({
			nodeType: PER_ITEM_TYPE,
			parameters: { number: '={{ $json.number }}', message: '={{ $json.message }}' },
			items: envelopes(count),
			inputDirect: true,
			credentials,
		});
		if (result.error || result.items.length !== count)
			throw new Error(`per-item failed: ${result.error?.message}`);
		return result.items.length;
	},

	/**
	 * The floor for sending: the same envelopes, batched by 100, straight from node:http with
	 * keep-alive, `parallel` requests in flight.
	 */
	async sendFloor(count: number, credentials: Credentials, batchSize: number, parallel = 1) {
		const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
		const all = envelopes(count);
		let sent = 0;
		await inParallel(Math.ceil(count / batchSize), parallel, async (index) => {
			const start = index * batchSize;
			const body = (await post(
				new URL(`${credentials.sendBaseUrl}/outgoings/send`),
				credentials.apiToken,
				{ senderId: 'ACME', envelopes: all.slice(start, start + batchSize) },
				agent,
			)) as { data: { outgoings: unknown[] } };
			sent += body.data.outgoings.length;
		});
		agent.destroy();
		return sent;
	},

	/** This node's Get Delivery Status on `count` sent messages of a window of STATUS_WINDOW. */
	async status(count: number, credentials: Credentials) {
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus', options: { lookbackDays: 1 } },
			items: sentMessages(count, STATUS_WINDOW),
			inputDirect: true,
			credentials,
		});
		if (result.error || result.items.some((item) => item.json.content === undefined))
			throw new Error(`status failed: ${result.error?.message}`);
		return result.items.length;
	},

	/** Get Delivery Status of every message of a window of `count` messages (the scaling rows). */
	async statusWhole(count: number, credentials: Credentials) {
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus', options: { lookbackDays: 1 } },
			items: sentMessages(count, count),
			inputDirect: true,
			credentials,
		});
		if (result.error || result.items.some((item) => item.json.content === undefined))
			throw new Error(`status failed: ${result.error?.message}`);
		return result.items.length;
	},

	/** The same messages, one search per item (its number), through the same engine. */
	async statusPerItem(count: number, credentials: Credentials) {
		const result = await runWorkflow({
			nodeType: PER_ITEM_SEARCH_TYPE,
			parameters: {
				recipient: '={{ $json.recipient }}',
				startDate: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
			},
			items: sentMessages(count, STATUS_WINDOW),
			inputDirect: true,
			credentials,
		});
		if (result.error) throw new Error(`per-item search failed: ${result.error.message}`);
		return result.items.length;
	},

	/** This node's SMS → Get Many with Return All. */
	async list(_count: number, credentials: Credentials) {
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
			credentials,
		});
		if (result.error) throw new Error(`list failed: ${result.error.message}`);
		return result.items.length;
	},

	/** Return All one page after another, pages of 100, through the same engine. */
	async listSequential(_count: number, credentials: Credentials) {
		const result = await runWorkflow({ nodeType: PAGE_100_TYPE, parameters: {}, credentials });
		if (result.error) throw new Error(`sequential list failed: ${result.error.message}`);
		return result.items.length;
	},

	/**
	 * The floor for listing: pages of 100 straight from node:http with keep-alive; the first page
	 * alone, then the others `parallel` at a time up to its totalPages.
	 */
	async listFloor(_count: number, credentials: Credentials, _batchSize: number, parallel = 1) {
		const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
		const page = (n: number) =>
			get(new URL(`${credentials.baseUrl}/sms?page=${n}&records=100`), credentials.apiToken, agent);
		const first = await page(1);
		let records = first.data.content.length;
		await inParallel(first.data.pagination.totalPages - 1, parallel, async (index) => {
			const { data } = await page(index + 2);
			records += data.content.length;
		});
		agent.destroy();
		return records;
	},
};

export type ContenderName = keyof typeof CONTENDERS;

async function main() {
	const [name, count, baseUrl, sendBaseUrl, apiToken, batchSize, parallel] = process.argv.slice(2);
	const credentials = { baseUrl, sendBaseUrl, apiToken };
	// Several processes measured together (as n8n workers) start at one agreed time.
	const startAt = Number(process.env.BENCH_START_AT || 0);
	const lateMs = startAt ? Date.now() - startAt : 0;
	if (lateMs < 0) await new Promise((resolve) => setTimeout(resolve, -lateMs));
	const startedAt = Date.now();
	const started = process.hrtime.bigint();
	// BENCH_RUNS: the operation that many times in a row in this one process, as n8n runs one
	// execution after another: a later run finds what Auto learnt in the ones before (limiter.ts).
	const runs: Array<{ startedAt: number; ms: number }> = [];
	let items = 0;
	for (let run = 0; run < Number(process.env.BENCH_RUNS || 1); run++) {
		const runStart = process.hrtime.bigint();
		runs.push({ startedAt: Date.now(), ms: 0 });
		items = await CONTENDERS[name as ContenderName](
			Number(count),
			credentials,
			Number(batchSize || 100),
			parallel ? Number(parallel) : undefined,
		);
		runs[run].ms = Number(process.hrtime.bigint() - runStart) / 1e6;
	}
	const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
	const maxRssMb = process.resourceUsage().maxRSS / 1024;
	process.stdout.write(JSON.stringify({ items, wallMs, startedAt, runs, maxRssMb }));
}

if (require.main === module) {
	main().catch((error) => {
		process.stderr.write(`${error.stack}\n`);
		process.exit(1);
	});
}
