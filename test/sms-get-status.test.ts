// SMS → Get Delivery Status, run through n8n's engine against the simulator: what came out per
// item, and what the API received (how many list requests, with which query).
import { sleep, type INodeParameters } from 'n8n-workflow';

import { runWorkflow, type RunOptions } from './helpers/n8n';
import { startProxy } from './helpers/proxy';
import { packageRoot } from './helpers/package-root';
import { TOKEN, useSimulator } from './helpers/simulator';

const DAY_MS = 86_400_000;
const today = (daysBack: number) =>
	new Date(Date.now() - daysBack * DAY_MS).toISOString().slice(0, 10);
/**
 * The `start-date` asked for messages sent from `since` (ms) on: the day before the day of 12
 * hours earlier (an API in UTC−12:00 dates them up to 12 hours earlier).
 */
const dayBefore = (since: number) => {
	const inAnyZone = since - DAY_MS / 2;
	return new Date(Math.floor(inAnyZone / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10);
};
/** The same for items SMS → Send gave: from the earliest `sentAt`, less two minutes for clocks. */
const dayBeforeSent = (sent: Array<{ sentAt?: unknown }>) =>
	dayBefore(Math.min(...sent.map((s) => Date.parse(String(s.sentAt)))) - 120_000);
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

const getStatus = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'sms',
	operation: 'getStatus',
	...extra,
});

const sendParameters = {
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '={{ $json.text }}',
};

describe('SMS → Get Delivery Status', () => {
	const ctx = useSimulator({ smsRecords: 0 });
	const listRequests = () => ctx.sim.requests.filter((r) => r.path === '/sms');
	const run = (options: Omit<RunOptions, 'credentials'>) =>
		runWorkflow({ ...options, credentials: ctx.credentials });
	/** Sends these items with SMS → Send and gives Send's output items (json). */
	const send = async (items: Array<{ phone: string; text: string }>) => {
		const sent = await run({ parameters: sendParameters, items });
		expect(sent.error).toBeUndefined();
		return sent.items.map((item) => item.json);
	};
	/** `count` older messages in the window, each to its own number, oldest first. */
	const fillWindow = (count: number) => {
		for (let k = 0; k < count; k++) {
			ctx.sim.addSms({
				recipient: `25479${String(k).padStart(7, '0')}`,
				content: `Older message ${k}`,
				status: 'DELIVERED',
				sentAt: hoursAgo(20 - (k / count) * 10),
			});
		}
	};

	describe('straight after SMS → Send, with no configuration', () => {
		test('gives each item its SMS record as the list gives it, paired, in one request', async () => {
			fillWindow(30);
			const sent = await send([
				{ phone: '+254 712 345 678', text: 'Your code is 1234' },
				{ phone: '254799000111', text: 'Your order has shipped' },
				{ phone: '00254733222111', text: 'See you tomorrow' },
			]);
			ctx.sim.setSmsStatus(Number(sent[0].id), 'DELIVERED');
			ctx.sim.setSmsStatus(Number(sent[1].id), 'FAILED');
			ctx.sim.requests.length = 0;

			const result = await run({ parameters: getStatus(), items: sent });

			expect(result.error).toBeUndefined();
			const listed = ctx.sim.sms;
			expect(result.items.map((item) => item.json)).toEqual(
				sent.map((outgoing) => listed.find((record) => record.id === outgoing.id)),
			);
			expect(result.items.map((item) => [item.pairedItem, item.json.status])).toEqual([
				[{ item: 0 }, 'DELIVERED'],
				[{ item: 1 }, 'FAILED'],
				[{ item: 2 }, 'SENT'],
			]);
			expect(result.items[0].json.deliveredAt).toEqual(expect.any(String));
			// The newest page of the window holds them all: one request, and no search.
			expect(listRequests().map((r) => r.query)).toEqual([
				{ 'start-date': dayBeforeSent(sent), sort: 'sentAt,desc', page: '1', records: '100' },
			]);
			expect(listRequests()[0].headers['x-service']).toBe(`Bearer ${TOKEN}`);
			expect(ctx.sim.requests.filter((r) => r.host === 'send')).toHaveLength(0);
		});

		test('works on any items that carry a number and a text, without a message ID', async () => {
			ctx.sim.addSms({
				recipient: '254712345678',
				content: 'Hello from a sheet',
				status: 'DELIVERED',
			});
			const result = await run({
				parameters: getStatus({ recipient: '={{ $json.phone }}', message: '={{ $json.body }}' }),
				items: [{ phone: '+254-712-345-678', body: 'Hello from a sheet', id: 'row-7' }],
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({
				recipient: '254712345678',
				content: 'Hello from a sheet',
				status: 'DELIVERED',
			});
		});
	});

	describe('matching', () => {
		test('the same text sent to the same number several times: each item gets its own record by ID, in any order', async () => {
			const sent = await send([
				{ phone: '254712345678', text: 'Reminder' },
				{ phone: '254712345678', text: 'Reminder' },
				{ phone: '254712345678', text: 'Reminder' },
			]);
			ctx.sim.setSmsStatus(Number(sent[1].id), 'FAILED');
			const reordered = [sent[2], sent[0], sent[1]];
			const result = await run({ parameters: getStatus(), items: reordered });
			expect(result.items.map((item) => item.json.id)).toEqual(reordered.map((s) => s.id));
			expect(result.items.map((item) => item.json.status)).toEqual(['SENT', 'SENT', 'FAILED']);
		});

		test('without message IDs, duplicates get different records, the most recent first', async () => {
			const older = ctx.sim.addSms({
				recipient: '254712345678',
				content: 'Reminder',
				sentAt: hoursAgo(5),
			});
			const newest = ctx.sim.addSms({
				recipient: '254712345678',
				content: 'Reminder',
				sentAt: hoursAgo(1),
			});
			const middle = ctx.sim.addSms({
				recipient: '254712345678',
				content: 'Reminder',
				sentAt: hoursAgo(3),
			});
			const item = { recipient: '254712345678', message: 'Reminder' };
			const result = await run({ parameters: getStatus(), items: [item, item, item] });
			expect(result.items.map((i) => i.json.id)).toEqual([newest.id, middle.id, older.id]);

			// A fourth such item finds no record left: never one record for two items.
			const four = await run({
				parameters: getStatus(),
				items: [item, item, item, item],
				continueOnFail: true,
			});
			expect(four.items.map((i) => i.json.id ?? i.json.error)).toEqual([
				newest.id,
				middle.id,
				older.id,
				'The message to 254712345678 is not in the SMS list of the last 2 days',
			]);
		});

		test("never gives an item another message's record", async () => {
			const other = ctx.sim.addSms({ recipient: '254712345678', content: 'Other text' });
			ctx.sim.addSms({ recipient: '254799999999', content: 'Hello' });
			const own = ctx.sim.addSms({
				recipient: '254712345678',
				content: 'Hello',
				sentAt: hoursAgo(2),
			});
			// Its message ID names a record of another text: that record is never given.
			const result = await run({
				parameters: getStatus(),
				items: [
					{ recipient: '254712345678', message: 'Hello', id: other.id },
					{ recipient: '254712345678', message: 'hello' },
					{ recipient: '254712345678', message: 'Hello ' },
				],
				continueOnFail: true,
			});
			expect(result.items[0].json).toEqual(own);
			// Text is compared exactly: case and spaces count.
			expect(result.items[1].json.error).toMatch(/^The message to 254712345678 is not in/);
			expect(result.items[2].json.error).toMatch(/^The message to 254712345678 is not in/);
		});

		test('once message IDs prove to be the list IDs, an item whose ID is not listed is not given an older message with the same text', async () => {
			ctx.sim.addSms({ recipient: '254712345678', content: 'Daily code', sentAt: hoursAgo(30) });
			const sent = await send([
				{ phone: '254712345678', text: 'Daily code' },
				{ phone: '254712345678', text: 'Daily code' },
			]);
			// The second one is not (yet) in the list.
			ctx.sim.sms = ctx.sim.sms.filter((record) => record.id !== sent[1].id);
			const result = await run({ parameters: getStatus(), items: sent, continueOnFail: true });
			expect(result.items[0].json.id).toBe(sent[0].id);
			// Send's output says when it went out: the list does not show it yet.
			expect(result.items[1].json.error).toBe(
				'The message to 254712345678 is not in the SMS list yet',
			);
			expect(result.items[1].pairedItem).toEqual({ item: 1 });
		});

		test('a message ID that matches nothing (IDs of another kind) falls back to the most recent record', async () => {
			const older = ctx.sim.addSms({
				recipient: '254712345678',
				content: 'Hi',
				sentAt: hoursAgo(9),
			});
			const newer = ctx.sim.addSms({
				recipient: '254712345678',
				content: 'Hi',
				sentAt: hoursAgo(4),
			});
			const result = await run({
				parameters: getStatus(),
				items: [
					{ recipient: '254712345678', message: 'Hi', id: 'out-2' },
					{ recipient: '254712345678', message: 'Hi', id: 'out-1' },
				],
			});
			expect(result.items.map((item) => item.json.id)).toEqual([newer.id, older.id]);
		});
	});

	describe('not found', () => {
		test('fails the run with an error naming the recipient and the window', async () => {
			const result = await run({
				parameters: getStatus({ options: { lookbackDays: 5 } }),
				items: [{ recipient: '+254 712 345 678', message: 'Never sent' }],
			});
			expect(result.error?.message).toBe(
				'The message to 254712345678 is not in the SMS list of the last 5 days',
			);
			expect(result.error?.description).toContain(`on or after ${today(5)} (UTC)`);
			// One day earlier than the window (from 12 hours before it, for any zone), whichever way
			// the API reads start-date.
			expect(listRequests()[0].query['start-date']).toBe(today(7));
		});

		test('with Continue On Fail it is an error item paired to its item; the others come out', async () => {
			const sent = await send([
				{ phone: '254712345678', text: 'One' },
				{ phone: '254712345679', text: 'Two' },
			]);
			const items = [sent[0], { recipient: '254700000001', message: 'Missing' }, sent[1]];
			const result = await run({ parameters: getStatus(), items, continueOnFail: true });
			expect(
				result.items.map((item) => [item.pairedItem, item.json.id ?? item.json.error]),
			).toEqual([
				[{ item: 0 }, sent[0].id],
				[{ item: 1 }, 'The message to 254700000001 is not in the SMS list of the last 2 days'],
				[{ item: 2 }, sent[1].id],
			]);
		});

		test('with the error output, the missing item goes there, paired', async () => {
			const [sent] = await send([{ phone: '254712345678', text: 'One' }]);
			const result = await run({
				parameters: getStatus(),
				items: [sent, { recipient: '254700000001', message: 'Missing' }],
				onError: 'continueErrorOutput',
			});
			expect(result.items.map((item) => [item.pairedItem, item.json.id])).toEqual([
				[{ item: 0 }, sent.id],
			]);
			expect(result.errorItems.map((item) => [item.pairedItem, item.json.error])).toEqual([
				[{ item: 1 }, 'The message to 254700000001 is not in the SMS list of the last 2 days'],
			]);
		});
	});

	test('items with different Lookback Days: one reading of the widest window, each item in its own', async () => {
		const recent = ctx.sim.addSms({ recipient: '254712345678', content: 'Recent' });
		const old = ctx.sim.addSms({
			recipient: '254712345679',
			content: 'Old',
			sentAt: new Date(Date.now() - 9 * DAY_MS).toISOString(),
		});
		const result = await run({
			parameters: getStatus({ options: { lookbackDays: '={{ $json.days }}' } }),
			items: [
				{ recipient: '254712345678', message: 'Recent', days: 1 },
				{ recipient: '254712345679', message: 'Old', days: 10 },
			],
		});
		expect(result.items.map((item) => item.json)).toEqual([recent, old]);
		expect(listRequests().map((r) => r.query['start-date'])).toEqual([today(12)]);

		// The 9-day-old message is outside a 1-day window.
		const narrow = await run({
			parameters: getStatus({ options: { lookbackDays: '={{ $json.days }}' } }),
			items: [
				{ recipient: '254712345679', message: 'Old', days: 1 },
				{ recipient: '254712345679', message: 'Old', days: 10 },
			],
			continueOnFail: true,
		});
		expect(narrow.items.map((item) => item.json)).toEqual([
			{ error: 'The message to 254712345679 is not in the SMS list of the last 1 days' },
			old,
		]);
	});

	test('one message, two items with different Lookback Days: the record goes to one item only, the first', async () => {
		const record = ctx.sim.addSms({ recipient: '254712345678', content: 'Once' });
		const result = await run({
			parameters: getStatus({ options: { lookbackDays: '={{ $json.days }}' } }),
			items: [
				{ recipient: '254712345678', message: 'Once', days: 10 },
				{ recipient: '254712345678', message: 'Once', days: 1 },
			],
			continueOnFail: true,
		});
		expect(result.items.map((item) => item.json)).toEqual([
			record,
			{ error: 'The message to 254712345678 is not in the SMS list of the last 1 days' },
		]);
	});

	describe('requests', () => {
		const wanted = (indexes: number[]) =>
			indexes.map((k) => ({
				recipient: `25479${String(k).padStart(7, '0')}`,
				message: `Older message ${k}`,
			}));

		test('many items: the window is read once, page by page, never more than min(items, pages) + 1 requests', async () => {
			fillWindow(1000); // 10 pages
			const indexes = Array.from({ length: 40 }, (_, k) => k * 25);
			const result = await run({ parameters: getStatus(), items: wanted(indexes) });
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.content)).toEqual(
				indexes.map((k) => `Older message ${k}`),
			);
			// 10 pages of 100, by Sent At: each page after the first overlaps the one before by a
			// message, which shows where the next begin; 11 requests, min(items, pages) + 1.
			const spans = listRequests()
				.map((r) => {
					const [page, size] = [Number(r.query.page), Number(r.query.records)];
					return { start: (page - 1) * size, end: page * size };
				})
				.sort((a, b) => a.start - b.start);
			expect(spans.length).toBeLessThanOrEqual(11);
			for (let k = 1; k < spans.length; k++) {
				expect(spans[k].start).toBeLessThan(spans[k - 1].end);
			}
			expect(listRequests().every((r) => r.query.query === undefined)).toBe(true);
		});

		test('few items in a large window: one search per number after the first page', async () => {
			fillWindow(1000);
			const result = await run({ parameters: getStatus(), items: wanted([3, 500, 3]) });
			// Item 2 asks for the same message as item 0: there is only one such record.
			expect(result.error?.message).toBe(
				'The message to 254790000003 is not in the SMS list of the last 2 days',
			);
			ctx.sim.requests.length = 0;
			const found = await run({ parameters: getStatus(), items: wanted([3, 500, 7]) });
			expect(found.items.map((item) => item.json.content)).toEqual([
				'Older message 3',
				'Older message 500',
				'Older message 7',
			]);
			expect(listRequests().map((r) => r.query)).toEqual([
				{ 'start-date': today(4), sort: 'sentAt,desc', page: '1', records: '100' },
				...['254790000003', '254790000500', '254790000007'].map((query) => ({
					'start-date': today(4),
					sort: 'sentAt,desc',
					query,
					page: '1',
					records: '100',
				})),
			]);
		});

		test('items Send just sent are found on the first page of a large window', async () => {
			fillWindow(1000);
			const sent = await send(
				Array.from({ length: 20 }, (_, k) => ({
					phone: `2547123${String(k).padStart(5, '0')}`,
					text: 'New',
				})),
			);
			ctx.sim.requests.length = 0;
			const result = await run({ parameters: getStatus(), items: sent });
			expect(result.items.map((item) => item.json.id)).toEqual(sent.map((s) => s.id));
			expect(listRequests()).toHaveLength(1);
		});

		test('a 429 and a 503 are waited out and retried, as for Get Many', async () => {
			const [sent] = await send([{ phone: '254712345678', text: 'Retry me' }]);
			ctx.sim.requests.length = 0;
			ctx.sim.inject({ path: '/sms', status: 429, retryAfter: 0 });
			ctx.sim.inject({ path: '/sms', status: 503, retryAfter: 0 });
			const result = await run({ parameters: getStatus(), items: [sent] });
			expect(result.error).toBeUndefined();
			expect(result.items[0].json.id).toBe(sent.id);
			expect(listRequests().map((r) => r.status)).toEqual([429, 503, 200]);
		});

		test('an API error is an error on every item, with the API message and no token', async () => {
			ctx.sim.inject({ path: '/sms', status: 500, count: Infinity });
			const result = await run({
				parameters: getStatus(),
				items: [
					{ recipient: '254712345678', message: 'A' },
					{ recipient: '254712345679', message: 'B' },
				],
				continueOnFail: true,
			});
			expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
			expect(result.items.every((item) => typeof item.json.error === 'string')).toBe(true);
			expect(listRequests()).toHaveLength(1);
			expect(result.serialized).not.toContain(TOKEN);
		});
	});

	describe('bad input is refused naming the field, with no request', () => {
		test.each([
			[
				{ options: { lookbackDays: 0 } },
				'Lookback Days must be a whole number from 1 to 31, got 0',
			],
			[
				{ options: { lookbackDays: 32 } },
				'Lookback Days must be a whole number from 1 to 31, got 32',
			],
			[
				{ options: { lookbackDays: '={{ "two" }}' } },
				'Lookback Days must be a whole number from 1 to 31, got "two"',
			],
			[{ recipient: '={{ "" }}' }, 'Recipient Number is empty'],
			[{ recipient: 'call me' }, 'Recipient Number is not a phone number: "call me"'],
			[{ message: '={{ "" }}' }, 'Message is empty'],
		])('%j', async (parameters, message) => {
			const result = await run({
				parameters: getStatus(parameters as INodeParameters),
				items: [{ recipient: '254712345678', message: 'Hi' }],
			});
			expect(result.error?.message).toBe(message);
			expect(ctx.sim.requests).toEqual([]);
		});

		test('one bad item among good ones stops the run before any request', async () => {
			const result = await run({
				parameters: getStatus(),
				items: [
					{ recipient: '254712345678', message: 'Hi' },
					{ recipient: '254712345678', message: '' },
				],
			});
			expect(result.error?.message).toBe('Message is empty');
			expect(result.error?.context).toMatchObject({ itemIndex: 1 });
			expect(ctx.sim.requests).toEqual([]);
		});

		test('with Continue On Fail the bad item is an error item and only the good ones are looked up', async () => {
			const [sent] = await send([{ phone: '254712345678', text: 'Hi' }]);
			ctx.sim.requests.length = 0;
			const result = await run({
				parameters: getStatus(),
				items: [{ recipient: '', message: 'Hi' }, sent],
				continueOnFail: true,
			});
			expect(
				result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.id]),
			).toEqual([
				[{ item: 0 }, 'Recipient Number is empty'],
				[{ item: 1 }, sent.id],
			]);
			expect(listRequests()).toHaveLength(1);
		});

		test('only bad items with Continue On Fail: no request at all', async () => {
			const result = await run({
				parameters: getStatus({ options: { lookbackDays: 40 } }),
				items: [{ recipient: '254712345678', message: 'Hi' }],
				continueOnFail: true,
			});
			expect(result.items[0].json.error).toBe(
				'Lookback Days must be a whole number from 1 to 31, got 40',
			);
			expect(ctx.sim.requests).toEqual([]);
		});
	});

	describe("n8n's Request Options", () => {
		test('Proxy: every list request goes through it, with the X-Service header', async () => {
			const proxy = await startProxy();
			try {
				const [sent] = await send([{ phone: '254712345678', text: 'Via proxy' }]);
				const result = await run({
					parameters: getStatus({ requestOptions: { proxy: proxy.url } }),
					items: [sent],
				});
				expect(result.items[0].json.id).toBe(sent.id);
				expect(proxy.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
					'GET /api/v3/sms',
				]);
				expect(proxy.requests[0].headers['x-service']).toBe(`Bearer ${TOKEN}`);
				expect(proxy.requests[0].headers.authorization).toBeUndefined();
			} finally {
				await proxy.stop();
			}
		});

		test('Proxy where nothing listens: the run fails and the API receives nothing', async () => {
			const result = await run({
				parameters: getStatus({ requestOptions: { proxy: 'http://127.0.0.1:9' } }),
				items: [{ recipient: '254712345678', message: 'Hi' }],
			});
			expect(result.error?.message).toMatch(/^The SMS list could not be read: .*refused/);
			expect(ctx.sim.requests).toEqual([]);
		});

		test('Timeout: an API answering late is read again (a read changes nothing), 4 attempts, then fails with a clear error', async () => {
			ctx.sim.inject({ path: '/sms', delayMs: 3000, count: Infinity });
			const started = Date.now();
			const result = await run({
				parameters: getStatus({ requestOptions: { timeout: 200 } }),
				items: [{ recipient: '254712345678', message: 'Hi' }],
			});
			// Four timeouts of 200 ms and three backoffs of at most 0.5, 1 and 2 s.
			expect(Date.now() - started).toBeLessThan(6000);
			expect(result.error?.message).toBe(
				'The SMS list could not be read: the request failed after it may have reached the API: the API did not answer within the timeout',
			);
			for (let wait = 0; wait < 100 && ctx.sim.requests.length < 4; wait++) await sleep(20);
			expect(ctx.sim.requests).toHaveLength(4);
		});
	});
});

describe('SMS → Get Delivery Status over HTTPS with a self-signed certificate', () => {
	const ctx = useSimulator({ tls: true, smsRecords: 0 });

	test('Ignore SSL Issues on: the list is read', async () => {
		const record = ctx.sim.addSms({ recipient: '254712345678', content: 'Secure' });
		const result = await runWorkflow({
			parameters: getStatus({ requestOptions: { allowUnauthorizedCerts: true } }),
			items: [{ recipient: '254712345678', message: 'Secure' }],
			credentials: ctx.credentials,
		});
		expect(result.items[0].json).toEqual(record);
	});

	test('Ignore SSL Issues off: the certificate is refused and nothing is read', async () => {
		const result = await runWorkflow({
			parameters: getStatus(),
			items: [{ recipient: '254712345678', message: 'Secure' }],
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toMatch(/^The SMS list could not be read: .*certificate/);
		expect(ctx.sim.requests).toEqual([]);
	});
});

describe('the lookup of sent messages, given none', () => {
	test('findSentMessages([]) answers an empty list and reads nothing', async () => {
		// The built module, as n8n loads the package (dist/).
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { findSentMessages } = require(
			`${packageRoot()}/dist/nodes/shared/lists/sentMessages`,
		) as typeof import('../nodes/shared/lists/sentMessages');
		const asked: unknown[] = [];
		const found = await findSentMessages([], {
			readPage: async (query) => {
				asked.push(query);
				return { content: [] };
			},
			repeated: () => new Error('repeated'),
			zone: 'UTC',
		});
		expect(found).toEqual([]);
		expect(asked).toEqual([]);
	});
});
