// n8n's Request Options (the node's Settings → Request Options, which n8n's loader adds to a node
// without `execute`): Proxy, Timeout, Ignore SSL Issues and Batching, for every operation. The
// routed operations get them from n8n's routing; Send applies them itself.
import type { INodeParameters } from 'n8n-workflow';

import { runWorkflow } from './helpers/n8n';
import { startProxy, type TestProxy } from './helpers/proxy';
import { TOKEN, useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

interface Operation {
	name: string;
	parameters: INodeParameters;
	/** The request it makes, as the simulator records it. */
	request: string;
	/** The header its token travels in; the other one must be absent. */
	header: 'x-service' | 'authorization';
	/**
	 * Its error when the API does not answer within the timeout; a read (undefined here) is tried
	 * again instead, as reading changes nothing.
	 */
	timeoutError?: string;
}

const UNANSWERED =
	'the request failed after it may have reached the API: the API did not answer within the timeout';

const OPERATIONS: Operation[] = [
	{
		name: 'Sender ID → Create',
		parameters: {
			resource: 'senderId',
			operation: 'create',
			name: 'PROXIED',
			purpose: 'TRANSACTIONAL',
			access: 'PRIVATE',
			sample: 'Your order has shipped.',
		},
		request: 'POST /sender-ids',
		header: 'x-service',
		timeoutError: `The request failed${UNANSWERED.slice('the request failed'.length)}`,
	},
	{
		name: 'Sender ID → Update',
		parameters: {
			resource: 'senderId',
			operation: 'update',
			id: 1,
			name: 'ACME',
			purpose: 'TRANSACTIONAL',
			access: 'PUBLIC',
			sample: 'ACME sample',
		},
		request: 'PUT /sender-ids',
		header: 'x-service',
		timeoutError: `The request failed${UNANSWERED.slice('the request failed'.length)}`,
	},
	{
		name: 'SMS → Get Many',
		parameters: { resource: 'sms', operation: 'getAll', limit: 5 },
		request: 'GET /sms',
		header: 'x-service',
	},
	{
		name: 'Contact → Get Many',
		parameters: { resource: 'contact', operation: 'getAll', limit: 5 },
		request: 'GET /contacts',
		header: 'x-service',
	},
	{
		name: 'SMS → Send',
		parameters: {
			resource: 'sms',
			operation: 'send',
			senderId: 'ACME',
			number: '254712345678',
			message: 'Hello through the settings',
			options: {},
		},
		request: 'POST /outgoings/send',
		header: 'authorization',
		// Its one item failed: the title names the run.
		timeoutError: `May have been sent: ${UNANSWERED} [every item of this run]`,
	},
];

const withSettings = (operation: Operation, requestOptions: INodeParameters): INodeParameters => ({
	...operation.parameters,
	requestOptions,
});

describe('over HTTP', () => {
	const ctx = useSimulator();
	/** The SMS list answers 500: Send's lookup of unknown outcomes cannot tell, and says so. */
	const listUnreadable = () => ctx.sim.inject({ path: '/sms', status: 500, count: Infinity });
	let proxy: TestProxy;
	beforeAll(async () => {
		proxy = await startProxy();
	});
	beforeEach(() => {
		proxy.requests.length = 0;
	});
	afterAll(async () => await proxy.stop());

	describe.each(OPERATIONS)('$name', (operation) => {
		test('with Proxy set, every request goes through the proxy with its credential header', async () => {
			const result = await runWorkflow({
				parameters: withSettings(operation, { proxy: proxy.url }),
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			expect(result.items.length).toBeGreaterThan(0);
			expect(result.items[0].json.error).toBeUndefined();
			const received = ctx.sim.requests.map((r) => `${r.method} ${r.path}`);
			expect(received).toEqual([operation.request]);
			expect(proxy.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
				operation.request.replace(' /', ' /api/v3/'),
			]);
			const [through] = proxy.requests;
			expect(through.headers[operation.header]).toBe(`Bearer ${TOKEN}`);
			const other = operation.header === 'x-service' ? 'authorization' : 'x-service';
			expect(through.headers[other]).toBeUndefined();
		});

		test('with a Proxy where nothing listens, the run fails and the API receives nothing', async () => {
			const result = await runWorkflow({
				parameters: withSettings(operation, { proxy: 'http://127.0.0.1:9' }),
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toMatch(/refused/);
			expect(result.items).toEqual([]);
			expect(ctx.sim.requests).toEqual([]);
		});

		test('with Timeout set and the API answering late, the run fails fast with a clear error (a read tries again)', async () => {
			const [method, path] = operation.request.split(' ');
			// The API holds its answer 30 s: well within Send's own 60 s and routing's 300 s, so that
			// only the Timeout of 200 ms ends the request before the answer comes. (The Timeout is a
			// socket's, on the machine's clock: the test checks what the run waited for, not how long.)
			ctx.sim.inject({ path, method, delayMs: 30_000 });
			// Send's lookup cannot tell: it would find the message the API takes late.
			if (path === '/outgoings/send') listUnreadable();
			const result = await runWorkflow({
				parameters: withSettings(operation, { timeout: 200 }),
				credentials: ctx.credentials,
			});
			const same = () =>
				ctx.sim.requests.filter((r) => `${r.method} ${r.path}` === operation.request);
			// Fast: the run ended without the held answer, which the simulator had not given yet (a
			// request that reaches it after the client gave up is not in its log yet: unanswered too).
			expect(same()[0]?.status).toBeUndefined();
			expect(result.error?.message).toBe(operation.timeoutError);
			// A request that timed out is never repeated, but for a read: the API may have processed
			// it (Send then only reads the SMS list to find out).
			const made = operation.timeoutError === undefined ? 2 : 1;
			// On a busy machine the request may reach the simulator after the client gave up on it:
			// wait for it here, so that it is counted, and counted in this test.
			for (let wait = 0; wait < 100 && same().length < made; wait++) {
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
			expect(same()).toHaveLength(made);
			expect(result.serialized).not.toContain(TOKEN);
		});
	});

	test('Send: a request that timed out gives "may have been sent" items with Continue On Fail, never a success', async () => {
		ctx.sim.inject({ path: '/outgoings/send', delayMs: 30_000 });
		listUnreadable();
		const result = await runWorkflow({
			parameters: {
				...OPERATIONS[4].parameters,
				number: '={{ $json.phone }}',
				requestOptions: { timeout: 200 },
			},
			items: [{ phone: '254712345678' }, { phone: '254712345679' }],
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items.map((item) => [item.pairedItem, item.json.error])).toEqual([
			[{ item: 0 }, `May have been sent: ${UNANSWERED}`],
			[{ item: 1 }, `May have been sent: ${UNANSWERED}`],
		]);
		for (const item of result.items) {
			expect(item.error?.description).toMatch(/^Outcome: may have been sent, request 1 of 1\./);
		}
	});

	test("Send: a workflow saved with Send's former Options → Timeout runs, with the Settings' Timeout", async () => {
		// n8n drops a collection value its node no longer offers when it loads the workflow.
		ctx.sim.inject({ path: '/outgoings/send', delayMs: 600 });
		listUnreadable();
		const result = await runWorkflow({
			parameters: {
				...OPERATIONS[4].parameters,
				options: { timeout: 5000 },
				requestOptions: { timeout: 100 },
			},
			continueOnFail: true,
			credentials: ctx.credentials,
		});
		expect(result.items[0].json.error).toBe(`May have been sent: ${UNANSWERED}`);
	});

	test("Send: without the Settings' Timeout, a saved Options → Timeout gives way to Send's 60 s", async () => {
		ctx.sim.inject({ path: '/outgoings/send', delayMs: 600 });
		const result = await runWorkflow({
			parameters: { ...OPERATIONS[4].parameters, options: { timeout: 300 } },
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ status: 'SENT' });
	});

	test.each(['not a proxy', 'myproxy:3128'])(
		'Send: a Proxy of %j is refused before anything is sent',
		async (proxyValue) => {
			const result = await runWorkflow({
				parameters: withSettings(OPERATIONS[4], { proxy: proxyValue }),
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toBe(`Proxy is not a URL: ${JSON.stringify(proxyValue)}`);
			expect(ctx.sim.requests).toEqual([]);
		},
	);
});

// Batch Interval is a wait of the node's (Send) or of n8n's routing: on a clock the test controls,
// which moves only when no request is on its way, the simulator's clock shows it exactly, however
// busy the machine. A simulator of its own: no test on the machine's clock uses its limiters.
describe('Batching, over HTTP on a clock the test controls', () => {
	const ctx = useSimulator();
	useVirtualClock();

	test('Send: Batching caps the envelopes of a request at Items per Batch and pauses Batch Interval between requests', async () => {
		const result = await runWorkflow({
			parameters: {
				...OPERATIONS[4].parameters,
				number: '={{ $json.phone }}',
				requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 300 } } },
			},
			items: [1, 2, 3, 4, 5].map((k) => ({ phone: `25471234567${k}` })),
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(5);
		expect(ctx.sim.requests.map((r) => r.body.envelopes.length)).toEqual([2, 2, 1]);
		const at = ctx.sim.requests.map((r) => r.at);
		expect(at[1] - at[0]).toBeGreaterThanOrEqual(300);
		expect(at[2] - at[1]).toBeGreaterThanOrEqual(300);
	});

	test.each(OPERATIONS.slice(0, 4))(
		"$name: Batching starts Items per Batch items, then waits Batch Interval (n8n's routing)",
		async (operation) => {
			const result = await runWorkflow({
				parameters: withSettings(operation, {
					batching: { batch: { batchSize: 1, batchInterval: 300 } },
				}),
				items: [{}, {}, {}],
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			const at = ctx.sim.requests.map((r) => r.at);
			expect(at).toHaveLength(3);
			expect(at[1] - at[0]).toBeGreaterThanOrEqual(300);
			expect(at[2] - at[1]).toBeGreaterThanOrEqual(300);
		},
	);
});

describe('over HTTPS with a self-signed certificate', () => {
	const ctx = useSimulator({ tls: true });

	describe.each(OPERATIONS)('$name', (operation) => {
		test('with Ignore SSL Issues on, the API is reached', async () => {
			const result = await runWorkflow({
				parameters: withSettings(operation, { allowUnauthorizedCerts: true }),
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json.error).toBeUndefined();
			expect(ctx.sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([operation.request]);
		});

		test('with it off, the run fails with a certificate error and nothing reaches the API', async () => {
			const result = await runWorkflow({
				parameters: operation.parameters,
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toMatch(/TLS certificate was not accepted \(\w+\)/);
			expect(ctx.sim.requests).toEqual([]);
		});
	});
});
