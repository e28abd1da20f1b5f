// SMS → Send tells the truth about every message: sent, not sent, or may have been sent, decided
// the same way for every request, and worded from that decision in every error, error item and
// in the run's account. Each test checks what came out and what reached the simulator.
import { runWorkflow } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator();

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');
const listRequests = () => ctx.sim.requests.filter((r) => r.path === '/sms');

/** The SMS list cannot be read, so Send cannot find out what an unknown outcome was. */
const listUnreadable = () => ctx.sim.inject({ path: '/sms', status: 500, count: Infinity });

describe('unknown outcomes are never reported as nothing sent', () => {
	test('a timeout while the API accepts the messages, the SMS list unreadable: may have been sent, never "Not sent"', async () => {
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
		listUnreadable();
		const result = await runWorkflow({
			parameters: send({ timeout: 500 }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toMatch(/^May have been sent: /);
		const description = result.error?.description ?? '';
		expect(description).toContain(
			'May have been sent (2 messages): items 0-1. Check SMS → Get Many before sending them again.',
		);
		expect(description).toContain('Not checked in the SMS list: ');
		expect(description).not.toContain('Not sent (');
		// The simulator accepted both: reporting them as not sent would have them paid twice.
		expect(ctx.sim.sentEnvelopes).toHaveLength(2);
		expect(sendRequests()).toHaveLength(1);
	});

	test.each([500, 502, 504, 520, 521, 522, 523, 524])(
		'HTTP %i on a send: may have been sent, not retried, and never "Try again later"',
		async (status) => {
			ctx.sim.inject({ host: 'send', status });
			const result = await runWorkflow({
				parameters: send(),
				items: customers(2),
				credentials: ctx.credentials,
			});
			expect(result.error?.httpCode).toBe(String(status));
			expect(result.error?.message).toMatch(/^May have been sent: /);
			const description = result.error?.description ?? '';
			expect(description).toContain('Request 1 of 1, items 0-1: May have been sent: ');
			expect(description).toContain('May have been sent (2 messages): items 0-1.');
			expect(description).not.toContain('Try again later');
			expect(description).not.toContain('Not sent (');
			expect(sendRequests()).toHaveLength(1);
		},
	);

	test('with Continue On Fail, a 524 gives error items that say the messages may have been sent', async () => {
		ctx.sim.inject({ host: 'send', status: 524 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		for (const item of result.items) {
			expect(item.json.error).toMatch(/^May have been sent: /);
			expect(item.error?.description).toMatch(/^Outcome: may have been sent, request 1 of 1\./);
			expect(item.error?.description).not.toContain('Try again later');
		}
	});

	test('a 503 on every attempt and a 402 are not sent: the account says so', async () => {
		ctx.sim.inject({ host: 'send', status: 503, count: 2 });
		const unavailable = await runWorkflow({
			parameters: send({ maxAttempts: 2 }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(unavailable.error?.description).toContain('Not sent (2 messages): items 0-1.');
		ctx.sim.inject({ host: 'send', status: 402 });
		const refused = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(refused.error?.description).toContain('Not sent (2 messages): items 0-1.');
		expect(ctx.sim.sentEnvelopes).toHaveLength(0);
	});

	test('sent, not sent and may have been sent in one run, each counted with its items', async () => {
		// Request 2 times out after the API processed it; request 3 is refused.
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true, skip: 1 });
		listUnreadable();
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow({
			parameters: send({
				batchSize: 2,
				parallelRequests: 1,
				onRequestFailure: 'continue',
				timeout: 500,
			}),
			items: customers(6),
			credentials: ctx.credentials,
		});
		const description = result.error?.description ?? '';
		expect(description).toContain('Sent and charged (2 messages): items 0-1.');
		expect(description).toContain('May have been sent (2 messages): items 2-3.');
		expect(description).toContain('Not sent (2 messages): items 4-5.');
		expect(ctx.sim.sentEnvelopes.map((e: { thirdPartyRef: string }) => e.thirdPartyRef)).toEqual([
			'ORD-0',
			'ORD-1',
			'ORD-2',
			'ORD-3',
		]);
	});
});

describe('unknown outcomes are looked up in the SMS list', () => {
	test("a timeout after the API accepted the messages: both found in today's SMS list, reported as sent with its records", async () => {
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
		const startedAt = Date.now();
		const result = await runWorkflow({
			parameters: send({ timeout: 500 }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		// In the shape of Send's other items (the outgoing record's fields), the list's record beside.
		expect(
			result.items.map((item) => [item.pairedItem, item.json.recipient, item.json.message]),
		).toEqual([
			[{ item: 0 }, '254710000000', 'Order ORD-0 is on its way'],
			[{ item: 1 }, '254710000001', 'Order ORD-1 is on its way'],
		]);
		expect(result.items.every((item) => item.json.foundInSmsList === true)).toBe(true);
		expect(
			result.items.map((item) => (item.json.smsRecord as { content: string }).content),
		).toEqual(['Order ORD-0 is on its way', 'Order ORD-1 is on its way']);
		expect(result.items.map((item) => item.json.id)).toEqual(
			result.items.map((item) => (item.json.smsRecord as { id: number }).id),
		);
		expect(sendRequests()).toHaveLength(1);
		expect(ctx.sim.sentEnvelopes).toHaveLength(2);
		// From the day before the run (less two minutes for clocks and 12 hours for an API in
		// UTC−12:00), whichever way the API reads it.
		const dayMs = 86_400_000;
		const dayBefore = (ms: number) =>
			new Date(Math.floor((ms - dayMs / 2) / dayMs) * dayMs - dayMs).toISOString().slice(0, 10);
		expect(listRequests().map((r) => r.query['start-date'])).toContain(
			dayBefore(startedAt - 120_000),
		);

		// Send → Get Delivery Status with its defaults reads these items as any other Send item.
		const checked = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus' },
			items: result.items.map((item) => item.json),
			credentials: ctx.credentials,
		});
		expect(checked.error).toBeUndefined();
		expect(checked.items.map((item) => item.json.content)).toEqual([
			'Order ORD-0 is on its way',
			'Order ORD-1 is on its way',
		]);
	});

	test("request 1's messages found in the SMS list, request 2 not attempted: the headline is item 1's, never an earlier try's", async () => {
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
		const result = await runWorkflow({
			parameters: send({ timeout: 500, batchSize: 1, parallelRequests: 1 }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		const description = result.error?.description ?? '';
		expect(result.error?.message).toBe('Not attempted: an earlier request of this run failed');
		expect(description).toContain('Sent and charged (1 message): items 0.');
		expect(description).toContain('Not attempted, as the run stopped first (1 message): items 1.');
		expect(description).not.toContain('Not sent (');
		expect(description).not.toContain('earlier try');
		expect(ctx.sim.sentEnvelopes).toHaveLength(1);
	});

	test('a 502 whose request was never processed: not found, so it stays "may have been sent", and nothing is re-sent', async () => {
		ctx.sim.inject({ host: 'send', status: 502 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error?.description).toContain('May have been sent (2 messages): items 0-1.');
		expect(result.error?.description).toContain(
			'Not found in the SMS list when this run looked it up',
		);
		expect(listRequests().length).toBeGreaterThan(0);
		expect(sendRequests()).toHaveLength(1);
	});

	test('the same text to the same number sent before this run is not taken as proof', async () => {
		ctx.sim.addSms({
			recipient: '254710000000',
			content: 'Order ORD-0 is on its way',
			sentAt: new Date(Date.now() - 10 * 60_000).toISOString(),
			campaignId: undefined,
		});
		ctx.sim.inject({ host: 'send', status: 504 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: ctx.credentials,
		});
		expect(result.error?.description).toContain('May have been sent (1 message): items 0.');
	});

	test.each([
		['are the list ids', false],
		['are not the list ids', true],
	])(
		"the run's own sent message with the same number and text is never another item's proof (outgoing ids %s)",
		async (_, foreignIds) => {
			// Two identical envelopes: request 1 carries item 0 and is accepted; request 2 (item 1) gets
			// a 500 without being processed. The one SMS record is item 0's, whatever its id.
			const items = [0, 1].map(() => ({ phone: '254710000000', order: 'SAME' }));
			if (foreignIds) ctx.sim.inject({ host: 'send', foreignIds: true });
			ctx.sim.inject({ host: 'send', status: 500, skip: foreignIds ? 0 : 1 });
			const result = await runWorkflow({
				parameters: send({ batchSize: 1, parallelRequests: 1 }),
				items,
				credentials: ctx.credentials,
				continueOnFail: true,
			});
			expect(result.items[0].json.status).toBe('SENT');
			expect(result.items[1].json.error).toMatch(/^May have been sent: /);
			expect(ctx.sim.sentEnvelopes).toHaveLength(1);
		},
	);
});

describe('outgoing records are matched to envelopes by what they echo', () => {
	const noReference = (options = {}) => ({ ...send(options), thirdPartyRef: '' });

	test('outgoings answered in another order, no Reference: each item gets its own record', async () => {
		ctx.sim.inject({ host: 'send', reverseOutgoings: true });
		const result = await runWorkflow({
			parameters: noReference(),
			items: customers(3),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.recipient)).toEqual([
			'254710000000',
			'254710000001',
			'254710000002',
		]);
		expect(result.items.map((item) => item.json.message)).toEqual([
			'Order ORD-0 is on its way',
			'Order ORD-1 is on its way',
			'Order ORD-2 is on its way',
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
	});

	test('a recipient echoed with a + is the same number, as Send normalises it', async () => {
		ctx.sim.inject({ host: 'send', echoPlus: true, reverseOutgoings: true });
		const result = await runWorkflow({
			parameters: noReference(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.recipient)).toEqual([
			'+254710000000',
			'+254710000001',
		]);
	});

	test('identical envelopes get one record each, none given twice', async () => {
		const items = [0, 1, 2].map(() => ({ phone: '254710000000', order: 'SAME' }));
		ctx.sim.inject({ host: 'send', reverseOutgoings: true });
		const result = await runWorkflow({
			parameters: noReference(),
			items,
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		const ids = result.items.map((item) => item.json.id);
		expect(new Set(ids).size).toBe(3);
	});
});

describe('the credential URLs are checked before the first request', () => {
	test.each([
		['sendBaseUrl', 'Send Base URL', 'send.example.com/api/v3'],
		['sendBaseUrl', 'Send Base URL', 'ftp://send.example.com/api/v3'],
		['baseUrl', 'Base URL', 'api.example.com/api/v3'],
	])('%s %s = %s is refused by name, nothing sent', async (field, label, url) => {
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: { ...ctx.credentials, [field]: url },
		});
		expect(result.error?.message).toBe(
			`${label} is not an http or https URL with a host: ${JSON.stringify(url)}`,
		);
		expect(result.error?.description).toContain('Nothing was sent.');
		expect(ctx.sim.requests).toEqual([]);
	});

	test('https to an http port: the TLS handshake fails before the request is written, so not sent', async () => {
		const sendBaseUrl = ctx.credentials.sendBaseUrl.replace(/^http:/, 'https:');
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: { ...ctx.credentials, sendBaseUrl },
			continueOnFail: true,
		});
		expect(result.items.map((item) => item.json.error)).toEqual([
			'Not sent: the API could not be reached after 1 attempt: the TLS handshake failed before the request was written',
			expect.stringMatching(/^Not sent: /),
		]);
		expect(result.items[0].error?.description).toContain('Outcome: not sent, request 1 of 1.');
		expect(sendRequests()).toEqual([]);
	});
});

test('a Reference of only spaces is left out of the envelope, as an empty one is', async () => {
	const result = await runWorkflow({
		parameters: { ...send(), thirdPartyRef: '   ' },
		items: customers(1),
		credentials: ctx.credentials,
	});
	expect(result.error).toBeUndefined();
	expect(sendRequests()[0].body.envelopes).toEqual([
		{ number: '254710000000', message: 'Order ORD-0 is on its way' },
	]);
});
