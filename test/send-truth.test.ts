// SMS → Send and Get Delivery Status where the field breaks claims the lab keeps: a proxy that
// answers for the API, an API that reads start-date as the spec's words say, a secret in a proxy
// URL, and a message the list does not show yet.
import { runWorkflow } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator({ startDateAfterDay: true });

const DAY_MS = 86_400_000;
const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');
const listedOrders = () =>
	ctx.sim.sms
		.map((record: { content: string }) => record.content)
		.filter((content: string) => content.startsWith('Order '))
		.sort();
const sentRefs = () => ctx.sim.sentEnvelopes.map((e: { thirdPartyRef: string }) => e.thirdPartyRef);

describe("a proxy's answer is not the API's", () => {
	test('a 503 in plain text after the API took the batch: never retried, found in the SMS list, sent once', async () => {
		ctx.sim.inject({ host: 'send', proxyStatus: 503, process: true });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(sendRequests()).toHaveLength(1);
		// The API processed the batch once; the proxy lost its answer.
		expect(listedOrders()).toEqual(['Order ORD-0 is on its way', 'Order ORD-1 is on its way']);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([true, true]);
	});

	test('a 503 in plain text, the batch not taken: "may have been sent", never "not sent", never retried', async () => {
		ctx.sim.inject({ host: 'send', proxyStatus: 503 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(sendRequests()).toHaveLength(1);
		expect(sentRefs()).toEqual([]);
		for (const item of result.items) {
			expect(String(item.json.error)).toMatch(/^May have been sent/);
			expect(item.error?.description).toMatch(/^Outcome: may have been sent, request 1 of 1\./);
		}
	});

	test('an older record of the same number and text whose Sent At cannot be read is not the message: "may have been sent"', async () => {
		ctx.sim.addSms({
			recipient: '254710000000',
			content: 'Order ORD-0 is on its way',
			status: 'DELIVERED',
			sentAt: new Date(Date.now() - 3_600_000).toISOString(),
		});
		ctx.sim.inject({ path: '/sms', localSentAt: true, count: Infinity });
		ctx.sim.inject({ host: 'send', proxyStatus: 503 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(sendRequests()).toHaveLength(1);
		expect(sentRefs()).toEqual([]);
		expect(String(result.items[0].json.error)).toMatch(/^May have been sent/);
		expect(result.items[0].json.foundInSmsList).toBeUndefined();
	});

	test("the API's own 503 is still retried: it says the request was refused", async () => {
		ctx.sim.inject({ host: 'send', status: 503 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(sendRequests().map((r) => r.status)).toEqual([503, 202]);
		expect(sentRefs()).toEqual(['ORD-0', 'ORD-1']);
	});
});

describe('an API that reads start-date as "after that day"', () => {
	test('Get Delivery Status with Lookback Days 1 finds a message sent yesterday', async () => {
		const yesterday = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS / 2).toISOString();
		const record = ctx.sim.addSms({
			recipient: '254712345678',
			content: 'Sent yesterday',
			sentAt: yesterday,
		});
		const result = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'getStatus',
				sentAt: '',
				options: { lookbackDays: 1 },
			},
			items: [{ recipient: '254712345678', message: 'Sent yesterday' }],
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([record]);
	});

	test("Send's lookup after a timeout finds today's messages", async () => {
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
		const result = await runWorkflow({
			parameters: send({ timeout: 500 }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(sendRequests()).toHaveLength(1);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([true, true]);
	});
});

describe('Get Delivery Status never gives an older message', () => {
	test("straight after Send, before the list shows the message: yesterday's FAILED record with the same text is not its status", async () => {
		ctx.sim.addSms({
			recipient: '254712345678',
			content: 'Your code is 1234',
			status: 'FAILED',
			sentAt: new Date(Date.now() - DAY_MS).toISOString(),
		});
		const sent = await runWorkflow({
			parameters: { ...send(), message: 'Your code is 1234' },
			items: [{ phone: '254712345678', order: 'ORD-0' }],
			credentials: ctx.credentials,
		});
		expect(sent.items[0].json.sentAt).toEqual(expect.any(String));
		// The API lists a message some time after it accepts it.
		ctx.sim.sms = ctx.sim.sms.filter((record) => record.id !== sent.items[0].json.id);
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus' },
			items: sent.items.map((item) => item.json),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items.map((item) => item.json.error)).toEqual([
			'The message to 254712345678 is not in the SMS list yet',
		]);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('a Sent At that is no date names the item and the field, and reads nothing', async () => {
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus' },
			items: [{ recipient: '254712345678', message: 'Hi', sentAt: 'yesterday' }],
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Sent At is not a date and time: "yesterday"');
		expect(ctx.sim.requests).toHaveLength(0);
	});
});

describe('no secret in an error', () => {
	test('a Proxy with a user and password that is no URL: the error shows neither', async () => {
		const result = await runWorkflow({
			parameters: {
				...send(),
				requestOptions: { proxy: 'alice:s3cret@proxy.corp:3128' },
			},
			items: customers(1),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Proxy is not a URL: "***@proxy.corp:3128"');
		expect(`${result.error?.message} ${result.error?.description}`).not.toMatch(/s3cret|alice/);
		expect(ctx.sim.requests).toHaveLength(0);
	});

	test("a credential's base URL with a user and password that is not valid: the error shows neither", async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: { ...ctx.credentials, sendBaseUrl: 'ftp://alice:s3cret@sms.example.com' },
		});
		expect(result.error?.message).toBe(
			'Send Base URL is not an http or https URL with a host: "ftp://***@sms.example.com"',
		);
		expect(`${result.error?.message} ${result.error?.description}`).not.toMatch(/s3cret|alice/);
	});
});
