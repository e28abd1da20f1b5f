// SMS → Send under n8n's own retries: Retry On Fail on the node, and a failed execution retried
// from the Executions list (mode `retry`). No envelope the API accepted goes out again, none whose
// outcome is unknown is sent blindly, and a new execution is never held back.
import { retryExecution, runWorkflow, type RunOptions } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator();

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');
const sentRefs = () => ctx.sim.sentEnvelopes.map((e: { thirdPartyRef: string }) => e.thirdPartyRef);
const orders = (from: number, to: number) =>
	Array.from({ length: to - from }, (_, i) => `ORD-${from + i}`);

// One request at a time, so that the second request to reach the API is batch 2.
const threeBatches = { batchSize: 10, parallelRequests: 1 };
const retryOnFail = { maxTries: 3, waitBetweenTries: 0 };

describe("n8n's Retry On Fail", () => {
	test('request 2 of 3 refused once (402): the next try sends only items 10-29, and the output has all 30 with their records', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow({
			parameters: send(threeBatches),
			items: customers(30),
			credentials: ctx.credentials,
			retryOnFail,
		});
		expect(result.error).toBeUndefined();
		expect(sendRequests().map((r) => r.status)).toEqual([202, 402, 202, 202]);
		// Every envelope accepted exactly once.
		expect(sentRefs()).toEqual(orders(0, 30));
		expect(result.items.map((item) => item.pairedItem)).toEqual(
			Array.from({ length: 30 }, (_, item) => ({ item })),
		);
		expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(orders(0, 30));
		expect(result.items.every((item) => item.json.status === 'SENT')).toBe(true);
		// Items 0-9 carry the records the first try got back (the simulator holds 57 seeded messages).
		expect(result.items.slice(0, 10).map((item) => item.json.id)).toEqual(
			Array.from({ length: 10 }, (_, i) => 58 + i),
		);
	});

	test('a Message that changes on each evaluation ({{ $now }}): the next try does not send the accepted items again', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow({
			parameters: {
				...send(threeBatches),
				message: '=Order {{ $json.order }}, code {{ $now.toMillis() }}-{{ Math.random() }}',
			},
			items: customers(30),
			credentials: ctx.credentials,
			retryOnFail,
		});
		expect(result.error).toBeUndefined();
		expect(sendRequests().map((r) => r.status)).toEqual([202, 402, 202, 202]);
		expect(sentRefs()).toEqual(orders(0, 30));
	});

	test('three tries, the Message changing once between the first and the second: no output shows a text the API did not take', async () => {
		// The clock moves a minute on while the first try's second request is refused: the second
		// and third tries read the Message at the same later minute.
		let now = Date.parse('2026-11-28T09:30:10Z');
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
		try {
			ctx.sim.inject({ host: 'send', status: 402, skip: 1, beforeAnswer: () => (now += 60_000) });
			ctx.sim.inject({ host: 'send', status: 402, skip: 2 });
			const result = await runWorkflow({
				parameters: {
					...send({ batchSize: 100, parallelRequests: 1 }),
					message: "=Order {{ $json.order }} at {{ $now.toUTC().toFormat('HH:mm') }}",
				},
				items: customers(300),
				credentials: ctx.credentials,
				retryOnFail,
			});
			expect(result.error).toBeUndefined();
			expect(sendRequests().map((r) => r.status)).toEqual([202, 402, 202, 402, 202]);
			const took = new Map<string, string>(
				ctx.sim.sentEnvelopes.map((e: { thirdPartyRef: string; message: string }) => [
					e.thirdPartyRef,
					e.message,
				]),
			);
			expect(took.size).toBe(300);
			// Each output shows the text the API took, or none (with a note saying why).
			const wrong = result.items.filter(
				(item) =>
					item.json.message !== undefined &&
					item.json.message !== took.get(String(item.json.thirdPartyRef)),
			);
			expect(wrong).toEqual([]);
			expect(result.items.slice(0, 100).every((item) => item.json.note !== undefined)).toBe(true);
			expect(result.items.slice(100).every((item) => item.json.message !== undefined)).toBe(true);
		} finally {
			clock.mockRestore();
		}
	});

	test('300 items, the 2nd request refused once: 300 envelopes accepted, none twice', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 100 }),
			items: customers(300),
			credentials: ctx.credentials,
			retryOnFail,
		});
		expect(result.error).toBeUndefined();
		expect(ctx.sim.sentEnvelopes).toHaveLength(300);
		expect(new Set(sentRefs()).size).toBe(300);
		expect(result.items).toHaveLength(300);
	});

	test('a request of unknown outcome is never sent again by a later try: it stays "may have been sent"', async () => {
		// Request 2 is processed, but its answer comes after the timeout; the SMS list cannot be read
		// to find out.
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true, skip: 1 });
		ctx.sim.inject({ path: '/sms', status: 500, count: Infinity });
		const result = await runWorkflow({
			parameters: send({ ...threeBatches, timeout: 500 }),
			items: customers(30),
			credentials: ctx.credentials,
			retryOnFail,
		});
		// Try 1: requests 1 and 2; later tries: request 3's items only, once.
		expect(sentRefs()).toEqual(orders(0, 30));
		expect(result.error?.message).toMatch(/^May have been sent: /);
		const description = result.error?.description ?? '';
		expect(description).toContain('May have been sent (10 messages): items 10-19.');
		expect(description).toContain('Sent and charged (20 messages): items 0-9, 20-29.');
		expect(description).toContain('were not sent again');
	});

	test('with Continue On Fail, n8n 2.x tries again when the first item is an error: nothing goes out twice', async () => {
		// Request 1 is refused, requests 2 and 3 go out: item 0 is an error item, so n8n re-runs the node.
		ctx.sim.inject({ host: 'send', status: 402 });
		const result = await runWorkflow({
			parameters: send({ ...threeBatches, onRequestFailure: 'continue' }),
			items: customers(30),
			credentials: ctx.credentials,
			retryOnFail,
			continueOnFail: true,
		});
		expect(sendRequests().map((r) => r.status)).toEqual([402, 202, 202, 202]);
		expect([...sentRefs()].sort()).toEqual(orders(0, 30).sort());
		expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(orders(0, 30));
	});
});

describe('retrying a failed execution (mode retry)', () => {
	const options = (items = customers(30)): RunOptions => ({
		parameters: send(threeBatches),
		items,
		credentials: ctx.credentials,
		mode: 'webhook',
	});

	test('an execution that failed at request 2 of 3 (402), retried: every envelope reaches the API exactly once', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const failed = await runWorkflow(options());
		expect(failed.error?.description).toContain('Sent and charged (10 messages): items 0-9.');
		expect(sentRefs()).toEqual(orders(0, 10));

		const retried = await retryExecution(failed, options());
		expect(retried.error).toBeUndefined();
		expect(sentRefs()).toEqual(orders(0, 30));
		expect(retried.items.map((item) => item.json.thirdPartyRef)).toEqual(orders(0, 30));
		expect(retried.items.map((item) => item.pairedItem)).toEqual(
			Array.from({ length: 30 }, (_, item) => ({ item })),
		);
		// Once everything is sent, the execution's data no longer carries what was sent.
		expect(JSON.stringify(retried.run.data.executionData?.contextData)).not.toContain('ORD-');
	});

	test('retried twice (the retry failed too): still every envelope once', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const failed = await runWorkflow(options());
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const failedAgain = await retryExecution(failed, options());
		expect(failedAgain.error?.description).toContain('were not sent again');
		expect(sentRefs()).toEqual(orders(0, 20));
		const retried = await retryExecution(failedAgain, options());
		expect(retried.error).toBeUndefined();
		expect(sentRefs()).toEqual(orders(0, 30));
	});

	test('a request of unknown outcome, retried ten minutes later: found in the SMS list from the failed try on, sent, never sent again', async () => {
		// Request 2 is processed but answers after the timeout, and the SMS list cannot be read then:
		// items 10-19 stay "may have been sent", 20-29 are not attempted.
		const timedOut = (): RunOptions => ({
			...options(),
			parameters: send({ ...threeBatches, timeout: 500 }),
		});
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true, skip: 1 });
		ctx.sim.inject({ path: '/sms', status: 500 });
		const failed = await runWorkflow(timedOut());
		expect(failed.error?.description).toContain('May have been sent (10 messages): items 10-19.');
		expect(sentRefs()).toEqual(orders(0, 20));

		// The failed execution ran ten minutes ago: its messages, and its try, are that old.
		const tenMinutes = 10 * 60_000;
		const earlier = new Date(Date.now() - tenMinutes).toISOString();
		for (const record of ctx.sim.sms) record.sentAt = earlier;
		const shift = (value: unknown): void => {
			if (!value || typeof value !== 'object') return;
			const object = value as Record<string, unknown>;
			if (typeof object.triedAt === 'number') object.triedAt -= tenMinutes;
			Object.values(object).forEach(shift);
		};
		shift(failed.run.data.executionData?.contextData);

		const retried = await retryExecution(failed, timedOut());
		expect(retried.error).toBeUndefined();
		expect(sentRefs()).toEqual(orders(0, 30));
		expect(retried.items.map((item) => item.json.message)).toEqual(
			orders(0, 30).map((order) => `Order ${order} is on its way`),
		);
		expect(retried.items.slice(10, 20).every((item) => item.json.foundInSmsList === true)).toBe(
			true,
		);
	});

	test('retried with a workflow whose message changed since: what went out to a recipient is not sent to them again', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const failed = await runWorkflow(options());
		const retried = await retryExecution(
			failed,
			{
				...options(),
				parameters: { ...send(threeBatches), message: '=Order {{ $json.order }} has shipped' },
			},
			{ loadWorkflow: true },
		);
		expect(retried.error).toBeUndefined();
		expect(sentRefs()).toEqual(orders(0, 30));
	});

	test('retried with a workflow whose recipients changed since: a new recipient is a new message', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const failed = await runWorkflow(options());
		const retried = await retryExecution(
			failed,
			{
				...options(),
				parameters: { ...send(threeBatches), number: '=2547999{{ $itemIndex + 10000 }}' },
			},
			{ loadWorkflow: true },
		);
		expect(retried.error).toBeUndefined();
		expect(sentRefs()).toEqual([...orders(0, 10), ...orders(0, 30)]);
	});
});

test('a new execution is never held back: the same messages sent again on purpose go out again', async () => {
	ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
	const failed = await runWorkflow({
		parameters: send(threeBatches),
		items: customers(30),
		credentials: ctx.credentials,
		mode: 'webhook',
	});
	expect(failed.error).toBeDefined();
	const again = await runWorkflow({
		parameters: send(threeBatches),
		items: customers(30),
		credentials: ctx.credentials,
		mode: 'webhook',
	});
	expect(again.error).toBeUndefined();
	expect(sentRefs()).toEqual([...orders(0, 10), ...orders(0, 30)]);
});
