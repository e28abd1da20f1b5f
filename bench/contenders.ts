// One benchmark measurement, run in a child process of its own so that its peak memory is its
// own: `node contender.js <name> <count> <baseUrl> <sendBaseUrl> <token> [batchSize]`.
import http from 'node:http';
import type { INodeType } from 'n8n-workflow';

import { nodeTypeInstances, runWorkflow, type Credentials } from '../test/helpers/n8n';

const PER_ITEM_TYPE = 'bench.perItemSms';
const PAGE_10_TYPE = 'bench.pagedBy10';

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

/** Return All as a node with n8n's generic pagination and the API's default page size (10). */
nodeTypeInstances[PAGE_10_TYPE] = {
	description: {
		displayName: 'Paged by 10',
		name: 'pagedBy10',
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
										records: 10,
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
): Promise<{ data: { content: unknown[]; pagination: { last: boolean } } }> {
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

export const CONTENDERS = {
	/** This node's Send through n8n-core's engine. */
	async send(count: number, credentials: Credentials, batchSize: number) {
		const result = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'send',
				senderId: 'ACME',
				number: '={{ $json.number }}',
				message: '={{ $json.message }}',
				options: { batchSize },
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

	/** The floor for sending: the same envelopes, batched by 100, straight from node:http. */
	async sendFloor(count: number, credentials: Credentials, batchSize: number) {
		const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
		const all = envelopes(count);
		let sent = 0;
		for (let start = 0; start < count; start += batchSize) {
			const body = (await post(
				new URL(`${credentials.sendBaseUrl}/outgoings/send`),
				credentials.apiToken,
				{ senderId: 'ACME', envelopes: all.slice(start, start + batchSize) },
				agent,
			)) as { data: { outgoings: unknown[] } };
			sent += body.data.outgoings.length;
		}
		agent.destroy();
		return sent;
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

	/** Return All with the API's default page size, 10, through the same engine. */
	async listBy10(_count: number, credentials: Credentials) {
		const result = await runWorkflow({ nodeType: PAGE_10_TYPE, parameters: {}, credentials });
		if (result.error) throw new Error(`list by 10 failed: ${result.error.message}`);
		return result.items.length;
	},

	/** The floor for listing: pages of 100 straight from node:http. */
	async listFloor(_count: number, credentials: Credentials) {
		const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
		let records = 0;
		for (let page = 1; ; page++) {
			const body = await get(
				new URL(`${credentials.baseUrl}/sms?page=${page}&records=100`),
				credentials.apiToken,
				agent,
			);
			records += body.data.content.length;
			if (body.data.pagination.last || body.data.content.length === 0) break;
		}
		agent.destroy();
		return records;
	},
};

export type ContenderName = keyof typeof CONTENDERS;

async function main() {
	const [name, count, baseUrl, sendBaseUrl, apiToken, batchSize] = process.argv.slice(2);
	const credentials = { baseUrl, sendBaseUrl, apiToken };
	const started = process.hrtime.bigint();
	const items = await CONTENDERS[name as ContenderName](
		Number(count),
		credentials,
		Number(batchSize || 100),
	);
	const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
	process.stdout.write(
		JSON.stringify({ items, wallMs, maxRssMb: process.resourceUsage().maxRSS / 1024 }),
	);
}

if (require.main === module) {
	main().catch((error) => {
		process.stderr.write(`${error.stack}\n`);
		process.exit(1);
	});
}
