// Records listed late in the middle of the SMS list, pages without totals and records arriving at
// the top while it is read (issue 57), through n8n's engine against the simulator: every reader of
// the list (Get Many, Get Delivery Status, Send's lookup after a timeout) gives each record that
// was there once, and ends. A record the API lists only after the first page was read (a lagging
// replica: a lower id, an older sentAt) is among them; it raises the count as an arrival would,
// so nothing is inferred from the count.
import { runWorkflow } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator({ smsRecords: 250, contacts: 250 });

const ids = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => item.json.id);
/** The ids 250 down to 1: the seeded messages, newest first. */
const seeded = Array.from({ length: 250 }, (_, k) => 250 - k);
const getMany = { resource: 'sms', operation: 'getAll', returnAll: true };

const oldestFirstBySentAt = { ...getMany, options: { sortField: 'sentAt', sortDirection: 'asc' } };

/** Sends `count` messages in one request, with no message arriving meanwhile. */
async function sendBeforeTheReading(count: number) {
	ctx.sim.arriveDuringReads('sms', 0);
	const sent = await runWorkflow({
		parameters: send(),
		items: customers(count),
		credentials: ctx.credentials,
	});
	expect(sent.error).toBeUndefined();
	return sent;
}

/** The simulator's messages now, oldest first by Sent At, equal times in the order added. */
const byTime = () =>
	[...ctx.sim.sms].sort((a, b) =>
		a.sentAt < b.sentAt ? -1 : a.sentAt > b.sentAt ? 1 : a.id - b.id,
	);

describe.each([
	['with totals', false],
	['without totalElements and totalPages', true],
])('pages %s', (_, omitTotals) => {
	describe.each([0, 30, 100, 150])('%i messages arriving per request', (perRequest) => {
		beforeEach(() => {
			ctx.sim.omitTotals = omitTotals;
			ctx.sim.arriveDuringReads('sms', perRequest);
		});

		test('Get Many (Return All): message 150, listed only after the first page, comes out once in its place', async () => {
			ctx.sim.listLate(150, 1);
			const result = await runWorkflow({ parameters: getMany, credentials: ctx.credentials });
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual(seeded);
		});

		test('Get Many (Return All): message 20, listed only after the second page, comes out once in its place', async () => {
			ctx.sim.listLate(20, 2);
			const result = await runWorkflow({ parameters: getMany, credentials: ctx.credentials });
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual(seeded);
		});

		test('Get Many oldest first (Return All): message 150, listed only after the first page, comes out once in its place, and no message that arrived', async () => {
			ctx.sim.listLate(150, 2);
			const result = await runWorkflow({
				parameters: { ...getMany, options: { sortField: 'id', sortDirection: 'asc' } },
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual([...seeded].reverse());
			// One request in the reverse order names the newest message at the start, then the
			// pages, each asked once, however many messages arrive: 3 pages of 100, and with
			// totals one more read ahead by a count that the arrivals raised.
			const sorts = ctx.sim.requests.filter((r) => r.path === '/sms').map((r) => r.query.sort);
			expect(sorts[0]).toBe('id,desc');
			expect(sorts.slice(1).every((sort) => sort === 'id,asc')).toBe(true);
			expect(sorts.length).toBeLessThanOrEqual(omitTotals ? 4 : 5);
		});

		test('Get Many oldest first by Sent At (Return All), the newest 20 sent in one request and so sharing their Sent At, listed in the same order both ways: each message once, all 20 among them', async () => {
			const sent = await sendBeforeTheReading(20);
			expect(new Set(sent.items.map((item) => item.json.sentAt)).size).toBe(1);
			// Ties in the order they were added, whichever way the list is read: the reverse order
			// names the first of the 20 as the last message at the start.
			ctx.sim.tiesInAddedOrder = true;
			const atStart = byTime();
			ctx.sim.arriveDuringReads('sms', perRequest);
			const result = await runWorkflow({
				parameters: oldestFirstBySentAt,
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual(atStart.map((sms) => sms.id));
			expect(ids(result.items).slice(-20)).toEqual(ids(sent.items));
		});

		test.each([
			['without a Sent At yet (queued)', () => null],
			['with the Sent At of the last 20, to the millisecond', (last: string) => last],
		])(
			'Get Many oldest first by Sent At (Return All) while messages arrive %s: each message of the start once, none that arrived, and an end',
			async (_, arrivalSentAt) => {
				await sendBeforeTheReading(20);
				ctx.sim.tiesInAddedOrder = true;
				const atStart = byTime();
				ctx.sim.arrivalSentAt = arrivalSentAt(atStart[atStart.length - 1].sentAt);
				ctx.sim.arriveDuringReads('sms', perRequest);
				const result = await runWorkflow({
					parameters: oldestFirstBySentAt,
					credentials: ctx.credentials,
				});
				expect(result.error).toBeUndefined();
				expect(ids(result.items)).toEqual(atStart.map((sms) => sms.id));
			},
		);

		test('Get Many (Return All) from a server that serves at most 50 records per page: message 150, listed late, and each other message once', async () => {
			ctx.sim.inject({ path: '/sms', maxPageSize: 50, count: Infinity });
			ctx.sim.listLate(150, 1);
			const result = await runWorkflow({ parameters: getMany, credentials: ctx.credentials });
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual(seeded);
		});

		test('Get Many (Return All) from a server that serves 50 records per page whatever is asked: message 150 and each other message once', async () => {
			ctx.sim.inject({ path: '/sms', pageSize: 50, count: Infinity });
			ctx.sim.listLate(150, 1);
			const result = await runWorkflow({ parameters: getMany, credentials: ctx.credentials });
			// Pages of the list by id are shown to follow by their first id, the one after the last
			// read, even where the list moves by whole pages of 50 between requests.
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual(seeded);
		});

		test('Get Many with a Limit of 200: the newest 200 when the reading began, message 150 among them', async () => {
			ctx.sim.listLate(150, 1);
			const result = await runWorkflow({
				parameters: { ...getMany, returnAll: false, limit: 200 },
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual(seeded.slice(0, 200));
		});

		test('Get Delivery Status of 300 messages just sent, the 150th listed only after the first page: each item its own record', async () => {
			const sent = await sendBeforeTheReading(300);
			ctx.sim.arriveDuringReads('sms', perRequest);
			ctx.sim.listLate(sent.items[149].json.id as number, 1);
			const result = await runWorkflow({
				parameters: { resource: 'sms', operation: 'getStatus' },
				items: sent.items.map((item) => item.json),
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual(ids(sent.items));
		});

		test("Send's lookup after a timeout, the 10th of 100 messages (one request) listed only after the first page: each message proven, none sent twice", async () => {
			ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
			// The seeded messages are 1 to 250: the 10th message this Send sends is 260.
			ctx.sim.listLate(260, 1);
			const result = await runWorkflow({
				parameters: send({ timeout: 500 }),
				items: customers(100),
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json.foundInSmsList)).toEqual(
				Array.from({ length: 100 }, () => true),
			);
			expect(ids(result.items)).toEqual(Array.from({ length: 100 }, (_, k) => 251 + k));
			expect(ctx.sim.sentEnvelopes).toHaveLength(100);
		});
	});
});

describe('a cache in front of the API that keeps page 1’s answer, its real totals (250 records, 3 pages) and its number among them, whatever page is asked', () => {
	beforeEach(() => {
		for (const path of ['/sms', '/contacts'])
			ctx.sim.inject({ path, firstPage: true, count: Infinity });
	});

	test.each([
		['SMS → Get Many (Return All)', getMany],
		['SMS → Get Many oldest first (Return All)', { ...getMany, options: { sortDirection: 'asc' } }],
		['SMS → Get Many with a Limit of 250', { ...getMany, returnAll: false, limit: 250 }],
		['Contact → Get Many (Return All)', { ...getMany, resource: 'contact' }],
	])('%s ends with its error, not with page 1 alone', async (_, parameters) => {
		const result = await runWorkflow({ parameters, credentials: ctx.credentials });
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/does not serve the pages asked for$/);
	});
});
