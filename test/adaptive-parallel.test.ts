// Requests in Parallel = Auto (the default) through n8n-core's engine, with the benchmark's
// gateway (bench/gateway.ts) in front of the simulator: it adds latency and enforces a limit the
// node is never told, answering 429 (or 503) with Retry-After: 1 beyond it. Every test starts its
// own gateway, so that its credential's base URL, and with it the shared limiter, is its own.
// Assertions are on what the gateway and the simulator received, never on how long a run took.
// Every test runs on a clock the test controls (test/helpers/virtual-clock.ts): the gateway's
// latency and the node's waits take their time on it, and nothing else does, so a busy machine
// slows an answer by nothing that Auto could take for a queueing API; a refusal takes 1 ms of it,
// as it takes a moment over the loopback.
import { startGateway, throughGateway, type Gateway, type GatewayOptions } from '../bench/gateway';
import { runWorkflow, type Credentials } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { TOKEN, useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

const ctx = useSimulator({ smsRecords: 1050 });
useVirtualClock();

const gateways: Gateway[] = [];
afterEach(async () => {
	await Promise.all(gateways.splice(0).map((gateway) => gateway.stop()));
});

/** A gateway in front of the send host (or the API host) and the credentials through it. */
async function gatewayFor(
	host: 'send' | 'api',
	options: Omit<GatewayOptions, 'target'>,
): Promise<{ gateway: Gateway; credentials: Credentials }> {
	const base = host === 'send' ? ctx.credentials.sendBaseUrl : ctx.credentials.baseUrl;
	const gateway = await startGateway({ target: new URL(base).origin, refusalMs: 1, ...options });
	gateways.push(gateway);
	const through = throughGateway(gateway, base);
	const credentials =
		host === 'send'
			? { ...ctx.credentials, sendBaseUrl: through }
			: { ...ctx.credentials, baseUrl: through };
	return { gateway, credentials };
}

/** Refs of the envelopes the simulator accepted: each exactly once, every item's. */
function expectEveryEnvelopeOnce(count: number) {
	const refs = ctx.sim.sentEnvelopes.map((e: { thirdPartyRef: string }) => e.thirdPartyRef);
	expect(refs).toHaveLength(count);
	expect(new Set(refs)).toEqual(new Set(customers(count).map((c) => c.order)));
}

const refused = (gateway: Gateway) => gateway.records.filter((r) => r.refused);

describe('Requests in Parallel = Auto', () => {
	test('grows while requests succeed: from 4 after the first request, up to its cap of 64 and never past it', async () => {
		const { gateway, credentials } = await gatewayFor('send', { latencyMs: 200 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 10 }),
			items: customers(3000),
			credentials,
		});
		expect(result.error).toBeUndefined();
		const [first, ...rest] = gateway.records;
		expect(gateway.records).toHaveLength(300);
		// The first alone; then four, and no fifth before one of them is answered.
		expect(rest[0].arrivedAt).toBeGreaterThanOrEqual(first.answeredAt!);
		const wave = rest.slice(0, 4);
		expect(Math.max(...wave.map((r) => r.inFlight))).toBeLessThanOrEqual(4);
		expect(rest[4].arrivedAt).toBeGreaterThanOrEqual(Math.min(...wave.map((r) => r.answeredAt!)));
		expect(gateway.peak).toBe(64);
		expect(refused(gateway)).toHaveLength(0);
		expectEveryEnvelopeOnce(3000);
		expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(
			customers(3000).map((c) => c.order),
		);
	});

	test.each([429, 503])(
		'backs off on a %i: the refused request waits its Retry-After while the others go on; refusals stay few; every envelope once',
		async (status) => {
			const { gateway, credentials } = await gatewayFor('send', {
				latencyMs: 100,
				maxInFlight: 6,
				refuseWith: status,
			});
			const result = await runWorkflow({
				parameters: send({ batchSize: 10 }),
				items: customers(400),
				credentials,
			});
			expect(result.error).toBeUndefined();
			const refusals = refused(gateway);
			expect(refusals.length).toBeGreaterThan(0);
			const [firstRefusal] = refusals;
			const T = firstRefusal.answeredAt!;
			// Its envelopes go again only once the second it asked for is over...
			const refs = (body: string) =>
				(JSON.parse(body) as { envelopes: Array<{ thirdPartyRef: string }> }).envelopes
					.map((e) => e.thirdPartyRef)
					.join();
			const retry = gateway.records.find(
				(r) => !r.refused && refs(r.body) === refs(firstRefusal.body),
			)!;
			expect(retry.arrivedAt).toBeGreaterThanOrEqual(T + 1000);
			// ...and the other requests do not wait for it (issue 74: before, every request of the
			// credential waited the second out, though the API had only refused one too many at once).
			const during = gateway.records.filter((r) => r.arrivedAt > T && r.arrivedAt < T + 1000);
			expect(during.filter((r) => !r.refused).length).toBeGreaterThan(0);
			// Refusals stay few: every one shrinks the window.
			expect(refusals.length).toBeLessThanOrEqual(8);
			expect(gateway.records.filter((r) => !r.refused)).toHaveLength(40);
			expectEveryEnvelopeOnce(400);
			expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(
				customers(400).map((c) => c.order),
			);
		},
	);

	test('a refusal of a request sent after another refusal came back, nothing accepted between, holds every request for its Retry-After', async () => {
		const { gateway, credentials } = await gatewayFor('send', { latencyMs: 100 });
		// The first request passes; the next 5 are refused: the 4 sent together after it, and the
		// first one sent once their refusals came back.
		ctx.sim.inject({ host: 'send', status: 429, retryAfter: 1, skip: 1, count: 5 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 10 }),
			items: customers(200),
			credentials,
		});
		expect(result.error).toBeUndefined();
		const refusals = gateway.records.filter((r) => r.status === 429);
		expect(refusals).toHaveLength(5);
		const firstBack = Math.min(...refusals.map((r) => r.answeredAt!));
		const afterIt = refusals.filter((r) => r.arrivedAt >= firstBack);
		expect(afterIt).toHaveLength(1);
		// The API let nothing through: every request waits the second out, the 4 refused first too.
		const T = afterIt[0].answeredAt!;
		expect(gateway.records.filter((r) => r.arrivedAt > T && r.arrivedAt < T + 1000)).toEqual([]);
		expect(gateway.records.filter((r) => r.status === 202)).toHaveLength(20);
		expectEveryEnvelopeOnce(200);
	});

	test('a rate limit never fails a run that makes progress: it goes on at the rate the API allows, even with Max Attempts 2', async () => {
		const { gateway, credentials } = await gatewayFor('send', { latencyMs: 20, perSecond: 8 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 10, maxAttempts: 2 }),
			items: customers(300),
			credentials,
		});
		expect(result.error).toBeUndefined();
		expect(refused(gateway).length).toBeGreaterThan(0);
		expect(gateway.records.filter((r) => !r.refused)).toHaveLength(30);
		expectEveryEnvelopeOnce(300);
		expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(
			customers(300).map((c) => c.order),
		);
	});

	test('Max Attempts still ends a request refused again and again while nothing gets through; the error says how far the run got', async () => {
		const { gateway, credentials } = await gatewayFor('send', {
			latencyMs: 20,
			maxInFlight: 0,
			retryAfter: '0',
		});
		const result = await runWorkflow({
			parameters: send({ batchSize: 10, maxAttempts: 3 }),
			items: customers(50),
			credentials,
		});
		// The first request goes alone and is refused three times in a row: the run stops there.
		expect(gateway.records).toHaveLength(3);
		// The first request's items not sent, the others not attempted; no item is sent.
		expect(result.error?.message).toMatch(/ \[every item of this run\]$/);
		expect(result.error?.description).toContain('Not sent (10 messages): items 0-9.');
		expect(result.error?.description).toContain(
			'Not attempted, as the run stopped first (40 messages): items 10-49.',
		);
		expect(ctx.sim.sentEnvelopes).toHaveLength(0);
	});

	test('two runs at once with one credential share one limiter: together never past the cap', async () => {
		const { gateway, credentials } = await gatewayFor('send', { latencyMs: 200 });
		const [a, b] = await Promise.all([
			runWorkflow({ parameters: send({ batchSize: 10 }), items: customers(3000), credentials }),
			runWorkflow({ parameters: send({ batchSize: 10 }), items: customers(3000), credentials }),
		]);
		expect(a.error).toBeUndefined();
		expect(b.error).toBeUndefined();
		expect(gateway.records).toHaveLength(600);
		// Two limiters would reach 128 together; the shared one keeps both runs at 64.
		expect(gateway.peak).toBe(64);
		for (const result of [a, b]) {
			expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(
				customers(3000).map((c) => c.order),
			);
		}
		expect(ctx.sim.sentEnvelopes).toHaveLength(6000);
	});

	test('two runs at once under a limit of 8 in flight: refusals do not double', async () => {
		const { gateway, credentials } = await gatewayFor('send', { latencyMs: 100, maxInFlight: 8 });
		const [a, b] = await Promise.all([
			runWorkflow({ parameters: send({ batchSize: 10 }), items: customers(300), credentials }),
			runWorkflow({ parameters: send({ batchSize: 10 }), items: customers(300), credentials }),
		]);
		expect(a.error).toBeUndefined();
		expect(b.error).toBeUndefined();
		expect(gateway.records.filter((r) => !r.refused)).toHaveLength(60);
		expect(refused(gateway).length).toBeLessThanOrEqual(8);
	});

	test('Return All under a limit of 3 in flight: every page read once, every record once in API order', async () => {
		const { gateway, credentials } = await gatewayFor('api', { latencyMs: 50, maxInFlight: 3 });
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
			credentials,
		});
		expect(result.error).toBeUndefined();
		const accepted = gateway.records.filter((r) => !r.refused);
		const pages = accepted.map((r) => Number(new URL(r.url, 'http://x').searchParams.get('page')));
		expect(pages.sort((x, y) => x - y)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
		expect(gateway.peak).toBeLessThanOrEqual(3);
		const ids: number[] = [];
		for (let page = 1; page <= 11; page++) {
			const response = await fetch(`${ctx.credentials.baseUrl}/sms?page=${page}&records=100`, {
				headers: { 'X-Service': `Bearer ${TOKEN}` },
			});
			const { data } = (await response.json()) as { data: { content: Array<{ id: number }> } };
			ids.push(...data.content.map((record) => record.id));
		}
		expect(result.items.map((item) => item.json.id)).toEqual(ids);
	});

	test('backs off on rising latency: an API that answers slower the more it is given keeps the window small', async () => {
		// 100 ms, and 40 ms more per request already waiting: at 8 in flight an answer takes 380 ms.
		const { gateway, credentials } = await gatewayFor('send', {
			latencyMs: 100,
			queueMsPerRequest: 40,
		});
		const result = await runWorkflow({
			parameters: send({ batchSize: 10 }),
			items: customers(1500),
			credentials,
		});
		expect(result.error).toBeUndefined();
		expect(gateway.records).toHaveLength(150);
		// With the brake the most in flight stays at half the cap or below (14 on this clock), and
		// never below where Auto starts; without it, this run reaches 20 (and a steady latency the
		// cap, 64).
		expect(gateway.peak).toBeGreaterThanOrEqual(4);
		expect(gateway.peak).toBeLessThanOrEqual(16);
		expectEveryEnvelopeOnce(1500);
	});

	test('a fixed Requests in Parallel keeps its number: 4 never grows', async () => {
		const { gateway, credentials } = await gatewayFor('send', { latencyMs: 50 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 10, parallelRequests: 4 }),
			items: customers(600),
			credentials,
		});
		expect(result.error).toBeUndefined();
		expect(gateway.peak).toBe(4);
	});
});
