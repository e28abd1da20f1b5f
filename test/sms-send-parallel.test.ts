// SMS → Send with requests in parallel against an API 50 to 100 ms away (the simulator's latency):
// every guarantee of one request at a time still holds. Each test checks the node's output and
// what reached the simulator, including when each request arrived and was answered.
import { runWorkflow } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator();

interface SimRequest {
	arrivedAt: number;
	at: number;
	status: number | 'reset' | undefined;
	body: { envelopes: Array<{ thirdPartyRef: string }> };
}

const sendRequests = (): SimRequest[] => ctx.sim.requests.filter((r) => r.host === 'send');

/** Item indexes (from ORD-n references) carried by these requests. */
const itemsOf = (requests: SimRequest[]) =>
	requests
		.flatMap((r) => r.body.envelopes.map((e) => Number(e.thirdPartyRef.slice(4))))
		.sort((a, b) => a - b);

/** The most requests the simulator held at once, from arrival to answer. */
function mostAtOnce(requests: SimRequest[]) {
	return Math.max(
		...requests.map(
			(r) => requests.filter((o) => o.arrivedAt <= r.arrivedAt && o.at > r.arrivedAt).length,
		),
	);
}

/** "0-9, 20-29" for sorted item indexes, as the node's error writes them. */
function ranges(indexes: number[]) {
	const out: string[] = [];
	for (let i = 0; i < indexes.length; i++) {
		const start = indexes[i];
		while (i + 1 < indexes.length && indexes[i + 1] === indexes[i] + 1) i++;
		out.push(start === indexes[i] ? `${start}` : `${start}-${indexes[i]}`);
	}
	return out.join(', ');
}

const outcome = (item: { json: { status?: unknown }; error?: { description?: string | null } }) =>
	/^Outcome: ([^.]+)/
		.exec(item.error?.description ?? '')?.[1]
		?.replace(/, request \d+ of \d+$/, '') ?? item.json.status;

beforeEach(() => {
	ctx.sim.latencyMs = 50;
});

describe('SMS → Send in parallel, 50 ms from the API', () => {
	test('by default (Auto) 4 requests at a time after the first, which goes alone; every envelope once, outputs paired in input order', async () => {
		const result = await runWorkflow({
			parameters: send({ batchSize: 10 }),
			items: customers(200),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		const requests = sendRequests();
		expect(requests).toHaveLength(20);
		// The first request is answered before any other arrives.
		expect(Math.min(...requests.slice(1).map((r) => r.arrivedAt))).toBeGreaterThanOrEqual(
			requests[0].at,
		);
		// The four after the first arrive before any of them is answered; then Auto adapts (its
		// growth and cap: test/adaptive-parallel.test.ts).
		expect(requests.slice(1, 5).every((r) => r.arrivedAt < requests[1].at)).toBe(true);
		const atOnce = mostAtOnce(requests);
		expect(atOnce).toBeGreaterThanOrEqual(2);
		expect(atOnce).toBeLessThanOrEqual(32);
		expect(itemsOf(requests)).toEqual(Array.from({ length: 200 }, (_, i) => i));
		expect(result.items.map((item) => item.pairedItem)).toEqual(
			Array.from({ length: 200 }, (_, item) => ({ item })),
		);
		expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(
			customers(200).map((c) => c.order),
		);
		expect(ctx.sim.balance).toBe(100000 - 200);
	});

	test('Requests in Parallel bounds the requests in flight; 1 sends one after another', async () => {
		await runWorkflow({
			parameters: send({ batchSize: 10, parallelRequests: 2 }),
			items: customers(100),
			credentials: ctx.credentials,
		});
		expect(mostAtOnce(sendRequests())).toBe(2);
		ctx.sim.reset();
		ctx.sim.latencyMs = 50;
		await runWorkflow({
			parameters: send({ batchSize: 10, parallelRequests: 1 }),
			items: customers(50),
			credentials: ctx.credentials,
		});
		expect(sendRequests()).toHaveLength(5);
		expect(mostAtOnce(sendRequests())).toBe(1);
	});

	test('a failure with Stop: no request starts after it, and every item is accounted for exactly as the API saw it', async () => {
		// The sixth and seventh requests to arrive are refused for good, while others are in flight.
		ctx.sim.inject({ host: 'send', status: 402, skip: 5, count: 2 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 10, maxAttempts: 1, parallelRequests: 4 }),
			items: customers(200),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		const requests = sendRequests();
		const failed = requests.filter((r) => r.status === 402);
		const firstFailure = Math.min(...failed.map((r) => r.at));
		// Requests the node started before it saw the failure arrive within moments of it; none later.
		expect(requests.filter((r) => r.arrivedAt > firstFailure + 25)).toEqual([]);
		expect(requests.length).toBeLessThan(20);

		const sent = itemsOf(requests.filter((r) => r.status === 202));
		const failedItems = itemsOf(failed);
		const seen = new Set(itemsOf(requests));
		const notAttempted = Array.from({ length: 200 }, (_, i) => i).filter((i) => !seen.has(i));
		expect(notAttempted.length).toBeGreaterThan(0);

		expect(result.items.map((item) => item.pairedItem)).toEqual(
			Array.from({ length: 200 }, (_, item) => ({ item })),
		);
		const byOutcome = (what: unknown) =>
			result.items.flatMap((item, i) => (outcome(item) === what ? [i] : []));
		expect(byOutcome('SENT')).toEqual(sent);
		expect(byOutcome('not sent')).toEqual(failedItems);
		expect(byOutcome('not sent, not attempted')).toEqual(notAttempted);
		expect(sent.length + failedItems.length + notAttempted.length).toBe(200);
		expect(ctx.sim.sentEnvelopes).toHaveLength(sent.length);
	});

	test('the same without Continue On Fail: the error names exactly the sent, the not sent and the not attempted', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 5 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 10, maxAttempts: 1, parallelRequests: 4 }),
			items: customers(200),
			credentials: ctx.credentials,
		});
		expect(result.items).toEqual([]);
		const requests = sendRequests();
		const failed = requests.filter((r) => r.status === 402);
		expect(failed).toHaveLength(1);
		expect(requests.filter((r) => r.arrivedAt > failed[0].at + 25)).toEqual([]);
		const sent = itemsOf(requests.filter((r) => r.status === 202));
		const seen = new Set(itemsOf(requests));
		const notAttempted = Array.from({ length: 200 }, (_, i) => i).filter((i) => !seen.has(i));
		const description = result.error?.description ?? '';
		expect(description).toMatch(
			new RegExp(`Request \\d+ of 20, items ${ranges(itemsOf(failed))}: payment required\\.`),
		);
		expect(description).toContain(
			`Sent and charged (${sent.length} messages): items ${ranges(sent)}.`,
		);
		expect(description).toContain(
			`Not attempted, as the run stopped first (${notAttempted.length} messages): items ${ranges(notAttempted)}.`,
		);
		expect(description).toContain(
			`Not sent (${itemsOf(failed).length} messages): items ${ranges(itemsOf(failed))}.`,
		);
		expect(ctx.sim.sentEnvelopes).toHaveLength(sent.length);
	});

	test('"Continue" sends every other request in parallel and reports the failed one', async () => {
		ctx.sim.inject({ host: 'send', status: 500, skip: 3 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 10, maxAttempts: 1, onRequestFailure: 'continue' }),
			items: customers(100),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		const failed = itemsOf(sendRequests().filter((r) => r.status === 500));
		expect(failed).toHaveLength(10);
		expect(result.items.flatMap((item, i) => (item.json.error ? [i] : []))).toEqual(failed);
		expect(sendRequests()).toHaveLength(10);
		expect(ctx.sim.sentEnvelopes).toHaveLength(90);
	});

	test('a 429 with Retry-After on one request holds back every request of the run until its wait is over', async () => {
		ctx.sim.latencyMs = 100;
		// The second request to arrive: one of the four that go out together after the first.
		ctx.sim.inject({ host: 'send', status: 429, retryAfter: 1, skip: 1 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 10, parallelRequests: 4 }),
			items: customers(120),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		const requests = sendRequests();
		const [refused] = requests.filter((r) => r.status === 429);
		// Requests started before the node read the 429 arrive within moments of it; then none
		// arrives until the second asked for is over.
		const duringWait = requests.filter(
			(r) => r.arrivedAt > refused.at + 25 && r.arrivedAt < refused.at + 950,
		);
		expect(duringWait).toHaveLength(0);
		expect(requests.filter((r) => r.arrivedAt >= refused.at + 950).length).toBeGreaterThan(1);
		// 12 batches and the one retry; every envelope accepted once, outputs in input order.
		expect(requests).toHaveLength(13);
		expect(itemsOf(requests.filter((r) => r.status === 202))).toEqual(
			Array.from({ length: 120 }, (_, i) => i),
		);
		expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(
			customers(120).map((c) => c.order),
		);
	});

	test('Batch Interval spaces the starts of requests, and parallel requests still overlap', async () => {
		ctx.sim.latencyMs = 300;
		const result = await runWorkflow({
			parameters: {
				...send({ batchSize: 1 }),
				requestOptions: { batching: { batch: { batchSize: -1, batchInterval: 100 } } },
			},
			items: customers(4),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		const arrived = sendRequests()
			.map((r) => r.arrivedAt)
			.sort((a, b) => a - b);
		// Requests 2 to 4 go out in parallel after the first, their starts at least 100 ms apart
		// (without Batch Interval they would start together). An arrival may lag its start on a busy
		// machine, so the span of the three is checked, less a lag of the first of them.
		expect(arrived).toHaveLength(4);
		expect(arrived[3] - arrived[1]).toBeGreaterThanOrEqual(2 * 100 - 30);
		expect(mostAtOnce(sendRequests())).toBeGreaterThanOrEqual(2);
	});

	test('Dry Run and Max Messages per Run send nothing, in parallel as before', async () => {
		const dry = await runWorkflow({
			parameters: send({ dryRun: true }),
			items: customers(30),
			credentials: ctx.credentials,
		});
		expect(dry.items).toHaveLength(30);
		const capped = await runWorkflow({
			parameters: send({ maxMessages: 29 }),
			items: customers(30),
			credentials: ctx.credentials,
		});
		expect(capped.error?.message).toBe(
			'This run would send 30 messages, more than Max Messages per Run (29)',
		);
		expect(ctx.sim.requests).toEqual([]);
	});
});
