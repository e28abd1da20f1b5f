// SMS → Send when the API or the network misbehaves: no message lost, none sent twice, every
// item accounted for. Each test checks the node's output and what reached the simulator.
import { runWorkflow } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator();

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');

/** No envelope reached the simulator's accepted sends twice. */
function expectNoDuplicates() {
	const refs = ctx.sim.sentEnvelopes.map((e: { thirdPartyRef: string }) => e.thirdPartyRef);
	expect(new Set(refs).size).toBe(refs.length);
}

/** The SMS list cannot be read, so Send cannot find out what an unknown outcome was. */
const listUnreadable = () => ctx.sim.inject({ path: '/sms', status: 500, count: Infinity });

const pairedIndexes = (items: Array<{ pairedItem?: unknown }>) =>
	items.map((item) => (item.pairedItem as { item: number }).item);

describe('retries of refusals that prove nothing was sent', () => {
	test('429 with Retry-After in seconds is waited for, then the request succeeds', async () => {
		ctx.sim.inject({ host: 'send', status: 429, retryAfter: 1 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(3),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.status)).toEqual(['SENT', 'SENT', 'SENT']);
		const [refused, accepted] = sendRequests();
		expect([refused.status, accepted.status]).toEqual([429, 202]);
		expect(accepted.at - refused.at).toBeGreaterThanOrEqual(950);
		expect(ctx.sim.sentEnvelopes).toHaveLength(3);
		expectNoDuplicates();
	});

	test('429 with Retry-After as an HTTP date is waited for', async () => {
		ctx.sim.inject({
			host: 'send',
			status: 429,
			retryAfter: new Date(Date.now() + 2000).toUTCString(),
		});
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		const [refused, accepted] = sendRequests();
		expect(accepted.at - refused.at).toBeGreaterThanOrEqual(900);
		expectNoDuplicates();
	});

	test('503 twice, then success: three attempts, every item sent once', async () => {
		ctx.sim.inject({ host: 'send', status: 503, count: 2 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(5),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(sendRequests().map((r) => r.status)).toEqual([503, 503, 202]);
		expect(result.items).toHaveLength(5);
		expectNoDuplicates();
	});

	test('a 429 asking for longer than the cap is not waited for', async () => {
		ctx.sim.inject({ host: 'send', status: 429, retryAfter: 3600 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: ctx.credentials,
		});
		expect(result.error?.httpCode).toBe('429');
		expect(result.error?.description).toContain(
			'Not sent (1 message): items 0. These can be sent again.',
		);
		expect(sendRequests()).toHaveLength(1);
	});

	test('Max Attempts bounds the retries', async () => {
		ctx.sim.inject({ host: 'send', status: 503, count: Infinity });
		const result = await runWorkflow({
			parameters: send({ maxAttempts: 2 }),
			items: customers(1),
			credentials: ctx.credentials,
		});
		expect(sendRequests()).toHaveLength(2);
		expect(result.error?.httpCode).toBe('503');
	});

	test('a refused connection is retried, and the request goes out once the API is back', async () => {
		await ctx.sim.pauseSend();
		const resumed = new Promise((resolve) => setTimeout(() => resolve(ctx.sim.resumeSend()), 150));
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		await resumed;
		expect(result.error).toBeUndefined();
		expect(sendRequests()).toHaveLength(1);
		expect(result.items.map((item) => item.json.status)).toEqual(['SENT', 'SENT']);
	});

	test('a connection refused on every attempt ends as not sent', async () => {
		await ctx.sim.pauseSend();
		try {
			const result = await runWorkflow({
				parameters: send({ maxAttempts: 2 }),
				items: customers(2),
				credentials: ctx.credentials,
				continueOnFail: true,
			});
			expect(result.items.map((item) => item.json.error)).toEqual([
				'Not sent: the API could not be reached after 2 attempts: the connection was refused',
				expect.stringMatching(/^Not sent/),
			]);
			expect(result.items[0].error?.description).toBe(
				[
					'Outcome: not sent, request 1 of 1.',
					'Network error code: ECONNREFUSED.',
					'Nothing reached the API, so these messages can be sent again.',
					'Envelope: {"number":"254710000000","message":"Order ORD-0 is on its way","thirdPartyRef":"ORD-0"}',
				].join('\n'),
			);
		} finally {
			await ctx.sim.resumeSend();
		}
	});
});

describe('failures after the request may have reached the API are never retried', () => {
	test('a run whose first request has an unknown outcome and whose other items were not attempted: the title says which may have been sent', async () => {
		listUnreadable();
		ctx.sim.inject({ host: 'send', network: 'reset', process: true });
		const result = await runWorkflow({
			parameters: send({ batchSize: 1 }),
			items: customers(3),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'May have been sent: the request failed after it may have reached the API: the connection was closed before the API answered [1 of 3 items may have been sent, the others were not]',
		);
		expect(result.error?.description).toContain(
			'Not attempted, as the run stopped first (2 messages): items 1-2.',
		);
		expect(sendRequests()).toHaveLength(1);
	});

	test('a connection reset, then an SMS list that repeats its first page: the lookups end, "may have been sent"', async () => {
		ctx.sim.inject({ path: '/sms', samePage: true, count: Infinity });
		// Not processed: the lookup finds nothing on the page the list repeats.
		ctx.sim.inject({ host: 'send', network: 'reset' });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(2);
		for (const item of result.items) expect(String(item.json.error)).toMatch(/^May have been sent/);
		expect(sendRequests()).toHaveLength(1);
		// Five looks, each ending at page 4 (with at most Auto's window of pages read ahead).
		expect(ctx.sim.requests.filter((r) => r.path === '/sms').length).toBeLessThanOrEqual(5 * 35);
	});

	test('a connection reset mid-request: may have been sent, with the envelopes, and nothing re-sent', async () => {
		listUnreadable();
		ctx.sim.inject({ host: 'send', network: 'reset', process: true });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'May have been sent: the request failed after it may have reached the API: the connection was closed before the API answered [every item of this run]',
		);
		expect(result.error?.description).toContain('Network error code: ECONNRESET.');
		expect(result.error?.description).toContain('Check SMS → Get Many');
		expect(result.error?.description).toContain('"number":"254710000000"');
		expect(sendRequests()).toHaveLength(1);
		// The simulator processed the request before dropping the connection: charged once, never twice.
		expect(ctx.sim.balance).toBe(100000 - 2);
	});

	test('a timeout: may have been sent for its items under Continue On Fail, the envelopes in the error items', async () => {
		// The lookup cannot tell (a message the API took late is found: send-ceilings.test.ts).
		listUnreadable();
		ctx.sim.inject({ host: 'send', untilClientGone: true });
		const result = await runWorkflow({
			parameters: { ...send(), requestOptions: { timeout: 300 } },
			items: customers(2),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(2);
		expect(result.items[0].json.error).toBe(
			'May have been sent: the request failed after it may have reached the API: the API did not answer within the timeout',
		);
		expect(result.items[0].json).toEqual({ error: result.items[0].error?.message });
		expect(result.items[0].error?.description).toContain(
			'Outcome: may have been sent, request 1 of 1.',
		);
		expect(result.items[0].error?.description).toContain(
			'Envelope: {"number":"254710000000","message":"Order ORD-0 is on its way","thirdPartyRef":"ORD-0"}',
		);
		expect(sendRequests()).toHaveLength(1);
	});
});

describe('responses are checked, not trusted', () => {
	test('a 2xx that is not JSON: may have been sent, never an empty success', async () => {
		listUnreadable();
		ctx.sim.inject({ host: 'send', malformed: 'not-json' });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'May have been sent: The API answered HTTP 202 with an unexpected body: it is not a JSON object [every item of this run]',
		);
		expect(result.items).toEqual([]);
		expect(sendRequests()).toHaveLength(1);
	});

	test('a 2xx without data', async () => {
		listUnreadable();
		ctx.sim.inject({ host: 'send', malformed: 'no-data' });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items[0].json.error).toBe(
			'May have been sent: The API answered HTTP 202 with an unexpected body: it has no "data" object',
		);
	});

	test('a short outgoings array: the records that echo their envelopes are sent, the rest may have been', async () => {
		listUnreadable();
		ctx.sim.inject({ host: 'send', dropOutgoings: 1 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(3),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(3);
		expect(result.items.slice(0, 2).map((item) => item.json.thirdPartyRef)).toEqual([
			'ORD-0',
			'ORD-1',
		]);
		expect(result.items[2].json.error).toBe(
			'May have been sent: the API accepted the request (HTTP 202) but no outgoing record pairs with 1 of its 3 messages (by number and reference, then text)',
		);
		expect(result.items[2].error?.description).toMatch(
			/^Outcome: may have been sent, request 1 of 1\./,
		);
	});
});

describe('partial failure is accounted for exactly', () => {
	// One request at a time, so that the fourth request to reach the API is batch 4 and nothing is
	// in flight beside it; test/sms-send-parallel.test.ts tells the same story in parallel.
	const tenBatches = { batchSize: 10, maxAttempts: 1, parallelRequests: 1 };

	test('batch 4 of 10 refused for good (402), no Continue On Fail: the error lists sent, not sent and not attempted', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 3, count: Infinity });
		const result = await runWorkflow({
			parameters: send(tenBatches),
			items: customers(100),
			credentials: ctx.credentials,
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe('payment required');
		const description = result.error?.description ?? '';
		expect(description).toContain('Request 4 of 10, items 30-39: payment required.');
		expect(description).toContain(
			'Sent and charged (30 messages): items 0-29. A retry of this execution skips them; a new execution sends them again.',
		);
		expect(description).toContain('Not sent (10 messages): items 30-39. These can be sent again.');
		expect(description).toContain(
			'Not attempted, as the run stopped first (60 messages): items 40-99. These can be sent again.',
		);
		expect(description).not.toContain('May have been sent');
		expect(sendRequests()).toHaveLength(4);
		expect(ctx.sim.sentEnvelopes).toHaveLength(30);
		expectNoDuplicates();
	});

	test('with Continue On Fail (stop): sent items, then error items for the refused and the not attempted', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 3, count: Infinity });
		const result = await runWorkflow({
			parameters: send(tenBatches),
			items: customers(100),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(100);
		expect(pairedIndexes(result.items)).toEqual(Array.from({ length: 100 }, (_, i) => i));
		const status = (i: number) =>
			/^Outcome: ([^.]+)/.exec(result.items[i].error?.description ?? '')?.[1] ??
			result.items[i].json.status;
		expect(status(0)).toBe('SENT');
		expect(status(29)).toBe('SENT');
		expect(status(30)).toBe('not sent, request 4 of 10');
		expect(status(39)).toBe('not sent, request 4 of 10');
		expect(status(40)).toBe('not sent, not attempted');
		expect(status(99)).toBe('not sent, not attempted');
		expect(result.items[40].json).toEqual({
			error: 'Not attempted: an earlier request of this run failed',
		});
		expect(sendRequests()).toHaveLength(4);
		expectNoDuplicates();
	});

	test('with Continue On Fail and "Continue": the other nine batches go out', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 3, count: 1 });
		const result = await runWorkflow({
			parameters: send({ ...tenBatches, onRequestFailure: 'continue' }),
			items: customers(100),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(100);
		expect(result.items.filter((item) => item.json.error)).toHaveLength(10);
		expect(sendRequests()).toHaveLength(10);
		expect(ctx.sim.sentEnvelopes).toHaveLength(90);
		expectNoDuplicates();
	});

	test('"Continue" without Continue On Fail sends the rest, then stops with the full account', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 3, count: 1 });
		const result = await runWorkflow({
			parameters: send({ ...tenBatches, onRequestFailure: 'continue' }),
			items: customers(100),
			credentials: ctx.credentials,
		});
		expect(result.error?.description).toContain('Request 4 of 10, items 30-39: payment required.');
		expect(result.error?.description).toContain('Not sent (10 messages): items 30-39.');
		expect(result.error?.description).toContain('Sent and charged (90 messages)');
		expect(result.error?.description).not.toContain('Not attempted');
		expect(ctx.sim.sentEnvelopes).toHaveLength(90);
	});
});

describe('Dry Run and the per-run cap', () => {
	test('Dry Run checks and estimates every item without calling the send endpoint', async () => {
		const items = [
			{ phone: '+254 712 345 678', order: 'A' },
			{ phone: '254712345679', order: 'B' },
		];
		const result = await runWorkflow({
			parameters: {
				...send({ dryRun: true }),
				message:
					'={{ $json.order === "A" ? "Price: 10€ [promo]" : "Habari 👋 " + "x".repeat(70) }}',
			},
			items,
			credentials: ctx.credentials,
		});
		expect(ctx.sim.requests).toEqual([]);
		expect(result.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				dryRun: true,
				number: '254712345678',
				message: 'Price: 10€ [promo]',
				encoding: 'GSM-7',
				characters: 21, // €, [ and ] take two septets each
				parts: 1,
				estimatedCredits: 1,
				totalMessages: 2,
				totalEstimatedCredits: 3,
			}),
			expect.objectContaining({ encoding: 'UCS-2', characters: 80, parts: 2, estimatedCredits: 2 }),
		]);
	});

	// Worked out by hand, not by either counter: GSM-7 fits 160 septets in one part and 153 per part
	// when split, UCS-2 70 code units and 67 per part; the GSM extension characters (€ [ ] { } ~ | ^
	// \ and form feed) take two septets; one character outside GSM 03.38 makes the whole text UCS-2.
	const charged: Array<[string, string, 'GSM-7' | 'UCS-2', number, number]> = [
		['160 GSM-7 characters', 'a'.repeat(160), 'GSM-7', 160, 1],
		['161 GSM-7 characters', 'a'.repeat(161), 'GSM-7', 161, 2],
		['306 GSM-7 characters', 'a'.repeat(306), 'GSM-7', 306, 2],
		['307 GSM-7 characters', 'a'.repeat(307), 'GSM-7', 307, 3],
		['459 GSM-7 characters', 'a'.repeat(459), 'GSM-7', 459, 3],
		['460 GSM-7 characters', 'a'.repeat(460), 'GSM-7', 460, 4],
		['accents in the GSM table (é, Ç, ü), newlines', 'Ça été\nsüper '.repeat(10), 'GSM-7', 130, 1],
		['80 × € (two septets each) is 160 septets', '€'.repeat(80), 'GSM-7', 160, 1],
		['80 × € and one letter is 161 septets', '€'.repeat(80) + 'a', 'GSM-7', 161, 2],
		['158 letters and [ is 160 septets', 'a'.repeat(158) + '[', 'GSM-7', 160, 1],
		['159 letters and ] is 161 septets', 'a'.repeat(159) + ']', 'GSM-7', 161, 2],
		['{ } ~ | ^ \\ in 153 septets × 2', '{}~|^\\'.repeat(25) + 'abcdef', 'GSM-7', 306, 2],
		['70 UCS-2 characters', 'ж'.repeat(70), 'UCS-2', 70, 1],
		['71 UCS-2 characters', 'ж'.repeat(71), 'UCS-2', 71, 2],
		['134 UCS-2 characters', 'ж'.repeat(134), 'UCS-2', 134, 2],
		['135 UCS-2 characters', 'ж'.repeat(135), 'UCS-2', 135, 3],
		['one ç (not in GSM; Ç is) makes 69 letters UCS-2', 'a'.repeat(69) + 'ç', 'UCS-2', 70, 1],
		['a ` makes 70 letters UCS-2', 'a'.repeat(70) + '`', 'UCS-2', 71, 2],
		['160 letters and one ж: 161 UCS-2 units', 'a'.repeat(160) + 'ж', 'UCS-2', 161, 3],
		['35 emoji are 70 UTF-16 units', '👋'.repeat(35), 'UCS-2', 70, 1],
		['36 emoji are 72 UTF-16 units', '👋'.repeat(36), 'UCS-2', 72, 2],
	];

	test('the estimate is what the API charges, for hand-checked messages at each part boundary', async () => {
		const items = charged.map(([, text], i) => ({ phone: `2547${10000000 + i}`, text }));
		const parameters = { ...send(), message: '={{ $json.text }}', thirdPartyRef: '' };
		const dry = await runWorkflow({
			parameters: { ...parameters, options: { dryRun: true } },
			items,
			credentials: ctx.credentials,
		});
		expect(ctx.sim.requests).toEqual([]);
		const real = await runWorkflow({ parameters, items, credentials: ctx.credentials });
		expect(real.error).toBeUndefined();

		const expected = charged.map(([what, , encoding, characters, parts]) => ({
			what,
			encoding,
			characters,
			parts,
		}));
		expect(
			dry.items.map((item, i) => ({
				what: charged[i][0],
				encoding: item.json.encoding,
				characters: item.json.characters,
				parts: item.json.estimatedCredits,
			})),
		).toEqual(expected);
		// What the simulator charged, as the node reports it.
		expect(real.items.map((item) => item.json.credits)).toEqual(expected.map((e) => e.parts));
		const total = charged.reduce((sum, [, , , , parts]) => sum + parts, 0);
		expect(dry.items[0].json.totalEstimatedCredits).toBe(total);
		expect(ctx.sim.balance).toBe(100000 - total);
		expect(ctx.sim.sentEnvelopes.map((e: { message: string }) => e.message)).toEqual(
			charged.map(([, text]) => text),
		);
	});

	test('Max Messages per Run refuses a larger run before anything is sent', async () => {
		const result = await runWorkflow({
			parameters: send({ maxMessages: 5 }),
			items: customers(6),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'This run would send 6 messages, more than Max Messages per Run (5)',
		);
		expect(ctx.sim.requests).toEqual([]);
	});
});
