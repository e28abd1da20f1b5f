// The simulator behind a gateway (nginx, Cloudflare, an API gateway) that answers for the API in
// HTML or plain text. A read changes nothing, so it is tried again whoever refused it; Send keeps
// its rule (only the API's own refusal is "not sent"). Run through n8n's engine: what came out,
// and what the API received.
import { runWorkflow } from './helpers/n8n';
import { activateTrigger } from './helpers/poll';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

const ctx = useSimulator({ smsRecords: 1_050, contacts: 230 });

const listRequests = (path: string) => ctx.sim.requests.filter((r) => r.path === path);
const pagesAsked = (path: string) =>
	listRequests(path).map((r) => `${String(r.query.page)}:${String(r.status)}`);

describe('a read is tried again after a gateway refused it', () => {
	test('Contact → Get Many, Return All: an HTML 503 on one page and a plain-text 502 on another', async () => {
		ctx.sim.inject({ path: '/contacts', query: { page: '2' }, proxyStatus: 503, html: true });
		ctx.sim.inject({ path: '/contacts', query: { page: '3' }, proxyStatus: 502 });
		const result = await runWorkflow({
			parameters: { resource: 'contact', operation: 'getAll', returnAll: true },
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(230);
		expect(pagesAsked('/contacts').sort()).toEqual(['1:200', '2:200', '2:503', '3:200', '3:502']);
	});

	test('Get Delivery Status for 4 sent messages: a gateway 429 on the SMS list is waited out', async () => {
		const sent = await runWorkflow({
			parameters: send(),
			items: customers(4),
			credentials: ctx.credentials,
		});
		expect(sent.error).toBeUndefined();
		ctx.sim.inject({ path: '/sms', proxyStatus: 429, html: true, retryAfter: 1 });
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus' },
			items: sent.items.map((item) => item.json),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.content)).toEqual(
			customers(4).map(({ order }) => `Order ${order} is on its way`),
		);
		expect(listRequests('/sms')[0].status).toBe(429);
	});

	test("a gateway 429 on the trigger's poll is waited out: the poll goes on", async () => {
		const trigger = await activateTrigger({ parameters: {}, credentials: ctx.credentials });
		expect(trigger.atActivation.error).toBeUndefined();
		ctx.sim.addSms({ recipient: '254700000001', content: 'New', status: 'DELIVERED' });
		ctx.sim.inject({ path: '/sms', proxyStatus: 429, html: true, retryAfter: 1 });
		const polled = await trigger.poll();
		expect(polled.error).toBeUndefined();
		expect((polled.items ?? []).map((item) => item.json.content)).toEqual(['New']);
		expect(listRequests('/sms').some((r) => r.status === 429)).toBe(true);
	});

	test('a gateway 502 that never ends fails the read after Max Attempts, naming the page', async () => {
		ctx.sim.inject({ path: '/contacts', query: { page: '2' }, proxyStatus: 502, count: Infinity });
		const result = await runWorkflow({
			parameters: { resource: 'contact', operation: 'getAll', returnAll: true },
			credentials: ctx.credentials,
		});
		expect(result.error?.httpCode).toBe('502');
		expect(listRequests('/contacts').filter((r) => r.query.page === '2')).toHaveLength(4);
	});
});

// The waits a Retry-After asks for, on a clock the test controls (it moves only when no request is
// on its way): the simulator's clock shows the node's wait itself, however busy the machine. A
// simulator of its own: no test on the machine's clock uses its limiters.
describe('Retry-After, on a clock the test controls', () => {
	const clocked = useSimulator({ smsRecords: 1_050 });
	useVirtualClock();

	test('SMS → Get Many, Return All over 1,000 messages: an HTML 429 with Retry-After on page 3 is waited out', async () => {
		clocked.sim.inject({
			path: '/sms',
			query: { page: '3' },
			proxyStatus: 429,
			html: true,
			retryAfter: 1,
		});
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
			credentials: clocked.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1_050);
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(1_050);
		const third = clocked.sim.requests.filter((r) => r.path === '/sms' && r.query.page === '3');
		expect(third.map((r) => r.status)).toEqual([429, 200]);
		// Retry-After: 1 was honoured: the second try went out a whole second after the refusal.
		expect(third[1].arrivedAt - third[0].at).toBeGreaterThanOrEqual(1000);
	});

	test('sentAt is when the attempt the API accepted went out, not before a Retry-After wait', async () => {
		clocked.sim.inject({ host: 'send', status: 429, retryAfter: 2 });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: clocked.credentials,
		});
		expect(result.error).toBeUndefined();
		const sentAt = Date.parse(String(result.items[0].json.sentAt));
		const [refused] = clocked.sim.requests.filter((r) => r.host === 'send' && r.status === 429);
		const listed = clocked.sim.sms.find(
			(record: { content: string }) => record.content === 'Order ORD-0 is on its way',
		);
		// After the two seconds the refusal asked for, when the API took the message.
		expect(sentAt).toBeGreaterThanOrEqual(refused.at + 2000);
		expect(Math.abs(sentAt - Date.parse(listed.sentAt))).toBeLessThan(500);
	});
});

describe('Send behind a gateway', () => {
	test('a gateway 429 on Send is not retried (it may have taken the batch): looked up, sent once', async () => {
		ctx.sim.inject({ host: 'send', proxyStatus: 429, html: true, retryAfter: 1, process: true });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(2),
			credentials: ctx.credentials,
		});
		// Found in the SMS list by the lookup: sent once.
		expect(result.error).toBeUndefined();
		expect(ctx.sim.requests.filter((r) => r.host === 'send')).toHaveLength(1);
		expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([true, true]);
	});
});

describe('one rule for the last page of every list', () => {
	test("the trigger's reading stops at totalPages when the API leaves out last", async () => {
		const sentAt = new Date(Date.now() - 3_600_000).toISOString();
		for (let i = 0; i < 200; i++) {
			ctx.sim.addSms({
				recipient: `2547001${String(10000 + i)}`,
				content: `Failed ${i}`,
				status: 'FAILED',
				sentAt,
			});
		}
		ctx.sim.inject({ path: '/sms', noLast: true, noTotal: true, count: Infinity });
		const trigger = await activateTrigger({ parameters: {}, credentials: ctx.credentials });
		expect(trigger.atActivation.error).toBeUndefined();
		// The baseline reads the FAILED list whole (without totals, each page starting on the last
		// record of the one before): totalPages says where it ends; no page starts past it.
		const failed = listRequests('/sms').filter((r) => r.query.status === 'FAILED');
		const starts = failed.map((r) => (Number(r.query.page) - 1) * Number(r.query.records));
		expect(Math.max(...starts)).toBeLessThan(200);
		expect(starts.filter((start) => start + 100 > 200).length).toBeLessThanOrEqual(2);
		// A poll with nothing new: FAILED's first page, and its count from its last page.
		ctx.sim.requests = [];
		expect((await trigger.poll()).error).toBeUndefined();
		expect(listRequests('/sms').filter((r) => r.query.status === 'FAILED')).toHaveLength(2);
	});
});
