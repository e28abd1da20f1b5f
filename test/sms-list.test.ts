import { loadedNodeDescription, runWorkflow } from './helpers/n8n';
import { TOKEN, useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 250 });

const getMany = (options: Record<string, unknown> = {}) => ({
	resource: 'sms',
	operation: 'getAll',
	...options,
});
const queries = () => ctx.sim.requests.map((r) => r.query);
// Pages after the first may be read in parallel, so they may arrive in any order.
const queriesByPage = () => queries().sort((a, b) => Number(a.page) - Number(b.page));

describe('SMS → Get Many: pagination', () => {
	test('Return All follows every page at the largest page size', async () => {
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(250);
		expect(queriesByPage()).toEqual([
			{ page: '1', records: '100' },
			{ page: '2', records: '100' },
			{ page: '3', records: '100' },
		]);
		const ids = result.items.map((item) => item.json.id);
		expect(new Set(ids).size).toBe(250);
		expect(ids[0]).toBe(250); // newest first, the API's default order
		expect(result.items[0].json).toEqual(
			expect.objectContaining({
				recipient: expect.any(String),
				status: expect.any(String),
				campaignId: expect.any(String),
			}),
		);
	});

	test('a Limit under 100 asks for a page of that size only', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 7 }),
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(7);
		expect(queries()).toEqual([{ page: '1', records: '7' }]);
	});

	test('the default Limit is 50', async () => {
		const result = await runWorkflow({ parameters: getMany(), credentials: ctx.credentials });
		expect(result.items).toHaveLength(50);
		expect(queries()).toEqual([{ page: '1', records: '50' }]);
	});

	test('a Limit over 100 asks every page at the same size and trims the last one', async () => {
		// The API numbers pages by the size asked for: page 2 at 50 records would repeat 51–100.
		const result = await runWorkflow({
			parameters: getMany({ limit: 150 }),
			credentials: ctx.credentials,
		});
		expect(queries()).toEqual([
			{ page: '1', records: '100' },
			{ page: '2', records: '100' },
		]);
		const ids = result.items.map((item) => item.json.id);
		expect(ids).toEqual(Array.from({ length: 150 }, (_, i) => 250 - i));
	});

	test('a server that never says last stops at its totalElements', async () => {
		ctx.sim.sms.splice(200); // two full pages
		ctx.sim.inject({ path: '/sms', neverLast: true, count: Infinity });
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(200);
		expect(queries().map((q) => q.page)).toEqual(['1', '2']);
	});

	test('a server that ignores the page asked for (the same full page, huge totals): stops at page 4 with an error naming it', async () => {
		ctx.sim.inject({ path: '/sms', samePage: true, count: Infinity });
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'Page 4 of the list and the two before it hold only records of earlier pages: the API, or a cache in front of it, does not serve the pages asked for',
		);
		expect(result.items).toHaveLength(0);
		// Pages read ahead within Auto's window (at most 32), none left running.
		expect(Math.max(...queries().map((q) => Number(q.page)))).toBeLessThanOrEqual(4 + 31);
	});

	test('a server that reports neither last nor a total stops at the first empty page', async () => {
		ctx.sim.inject({ path: '/sms', neverLast: true, noTotal: true, count: Infinity });
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		const ids = result.items.map((item) => item.json.id);
		expect(ids).toHaveLength(250);
		expect(new Set(ids).size).toBe(250);
		// Page 3 is short but says it is not the last; page 4 is empty. Its totalPages (1e9) lets as
		// many pages be read at once as Auto's window (at most 32), so pages past page 4 may be asked,
		// fewer than the window, and their records are not used.
		const pages = queries().map((q) => Number(q.page));
		expect(pages).toEqual(expect.arrayContaining([1, 2, 3, 4]));
		expect(Math.max(...pages)).toBeLessThanOrEqual(4 + 31);
		expect(new Set(pages).size).toBe(pages.length);
	});

	test('a server that serves smaller pages than asked still gives every record once', async () => {
		ctx.sim.inject({ path: '/sms', pageSize: 30, count: Infinity });
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		const ids = result.items.map((item) => item.json.id);
		expect(ids).toHaveLength(250);
		expect(new Set(ids).size).toBe(250);
		expect(queries()).toHaveLength(9);
	});

	test('a 429 on page 2 is waited out and retried inside the paging; every record comes once', async () => {
		ctx.sim.inject({ path: '/sms', status: 429, retryAfter: 0, skip: 1 });
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(250);
		expect(result.items).toHaveLength(250);
		// Pages 2 and 3 are read at once after the first; page 2 is asked again after its 429.
		const asked = ctx.sim.requests.map((r) => `${r.query.page}:${r.status}`);
		expect(asked[0]).toBe('1:200');
		expect([...asked].sort()).toEqual(['1:200', '2:200', '2:429', '3:200']);
		expect(asked.indexOf('2:429')).toBeLessThan(asked.indexOf('2:200'));
	});

	test('a 503 on the first page is retried', async () => {
		ctx.sim.inject({ path: '/sms', status: 503, retryAfter: 0 });
		const result = await runWorkflow({
			parameters: getMany({ limit: 5 }),
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(5);
		expect(ctx.sim.requests.map((r) => r.status)).toEqual([503, 200]);
	});

	test('an API that refuses the connection is tried again, then the page is reported unread', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 5 }),
			credentials: { ...ctx.credentials, baseUrl: 'http://127.0.0.1:1/api/v3' },
		});
		expect(result.error?.message).toBe(
			'Page 1 of the list could not be read: the connection was refused',
		);
		expect(result.error?.description).toBe(
			'Reading a list changes nothing; running it again is safe.',
		);
	});

	test('a Base URL with a trailing slash reaches the same endpoint', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 3 }),
			credentials: { ...ctx.credentials, baseUrl: `${ctx.credentials.baseUrl}/` },
		});
		expect(result.items).toHaveLength(3);
		expect(ctx.sim.requests.map((r) => r.path)).toEqual(['/sms']);
	});

	test('stops on totalPages', async () => {
		ctx.sim.sms.splice(200);
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(200);
		expect(queries().map((q) => q.page)).toEqual(['1', '2']);
	});

	test('a page without content is an error, not an empty result', async () => {
		ctx.sim.inject({ path: '/sms', malformed: 'no-content' });
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'The API answered HTTP 200 with an unexpected body: page 1 has no "content" list',
		);
	});

	test('a body that is not JSON is an error', async () => {
		ctx.sim.inject({ path: '/sms', malformed: 'not-json' });
		const result = await runWorkflow({ parameters: getMany(), credentials: ctx.credentials });
		expect(result.error?.message).toBe(
			'The API answered HTTP 200 with an unexpected body: it is not a JSON object',
		);
	});
});

describe('SMS → Get Many: filters and sort', () => {
	test('every filter is sent with the API names and formats', async () => {
		const campaign = ctx.sim.campaigns[0];
		const result = await runWorkflow({
			parameters: getMany({
				returnAll: true,
				filters: {
					status: 'DELIVERED',
					startDate: '2026-10-01T00:00:00',
					endDate: '2026-11-30T15:30:00',
					campaignId: campaign,
					query: 'order',
					userId: 1,
				},
				options: { sortField: 'sentAt', sortDirection: 'asc' },
			}),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		const filters = {
			status: 'DELIVERED',
			'start-date': '2026-10-01',
			'end-date': '2026-11-30',
			'campaign-id': campaign,
			query: 'order',
			userId: '1',
		};
		// Oldest first, with Return All: first the newest messages at the start (the reverse order,
		// the same filters: a page, to name every message that shares the last Sent At), where the
		// reading ends while new messages arrive.
		expect(queries()).toEqual([
			{ page: '1', records: '100', ...filters, sort: 'sentAt,desc' },
			{ page: '1', records: '100', ...filters, sort: 'sentAt,asc' },
		]);
		expect(result.items.length).toBeGreaterThan(0);
		for (const item of result.items) {
			expect(item.json).toMatchObject({ status: 'DELIVERED', campaignId: campaign, userId: 1 });
		}
		const sentAt = result.items.map((item) => item.json.sentAt as string);
		expect([...sentAt].sort()).toEqual(sentAt);
	});

	test('sort direction alone sorts by id', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 3, options: { sortDirection: 'asc' } }),
			credentials: ctx.credentials,
		});
		expect(queries()[0].sort).toBe('id,asc');
		expect(result.items.map((item) => item.json.id)).toEqual([1, 2, 3]);
	});

	test.each([
		['2026-11-05', '2026-11-05'],
		['2026-11-05T23:59:59+03:00', '2026-11-05'],
		['2026/11/05', '2026-11-05'],
		['November 5, 2026', '2026-11-05'],
		['={{ DateTime.fromISO("2026-11-05T10:00:00") }}', '2026-11-05'],
	])('a date given as %s is sent as %s', async (input, sent) => {
		await runWorkflow({
			parameters: getMany({ limit: 1, filters: { startDate: input } }),
			credentials: ctx.credentials,
		});
		expect(queries()[0]['start-date']).toBe(sent);
	});

	test('sent messages then appear in the list', async () => {
		await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'send',
				senderId: 'ACME',
				number: '254700111222',
				message: 'Unique text 42',
			},
			credentials: ctx.credentials,
		});
		const result = await runWorkflow({
			parameters: getMany({ filters: { query: 'Unique text 42' } }),
			credentials: ctx.credentials,
		});
		expect(result.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				recipient: '254700111222',
				content: 'Unique text 42',
				status: 'SENT',
			}),
		]);
	});
});

describe('SMS → Get Many: bad input and errors', () => {
	test.each([
		['startDate', '31/12/2026', /^Sent After is not a date: "31\/12\/2026"$/],
		['endDate', '2026-02-30', /^Sent Before is not a date: "2026-02-30"$/],
		['campaignId', 'not-a-uuid', /^Campaign ID is not a UUID: "not-a-uuid"$/],
	])('a bad %s is refused before any request', async (name, value, message) => {
		const result = await runWorkflow({
			parameters: getMany({ filters: { [name]: value } }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toMatch(message);
		expect(ctx.sim.requests).toEqual([]);
	});

	test('an API 400 names the rejected field', async () => {
		ctx.sim.inject({ path: '/sms', status: 400 });
		const result = await runWorkflow({ parameters: getMany(), credentials: ctx.credentials });
		expect(result.error?.httpCode).toBe('400');
		expect(result.error?.description).toContain('Injected fault');
	});

	test('an API 400 lists each rejected field with its message and value', async () => {
		ctx.sim.inject({
			path: '/sms',
			status: 400,
			errors: [
				{
					field: 'start-date',
					message: 'must be a date in the format YYYY-MM-DD',
					rejectedValue: '2026-11-05',
				},
			],
		});
		const result = await runWorkflow({
			parameters: getMany({ filters: { startDate: '2026-11-05' } }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('bad request');
		expect(result.error?.description).toContain(
			'start-date: must be a date in the format YYYY-MM-DD (rejected value: "2026-11-05")',
		);
	});

	test('a server that echoes the token in its error gets it redacted', async () => {
		ctx.sim.inject({ path: '/sms', status: 400, echoAuth: true, skip: 1 });
		const result = await runWorkflow({
			parameters: getMany({ limit: 150 }),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toEqual([
			expect.objectContaining({
				json: { error: 'Request with Bearer *** failed' },
				pairedItem: { item: 0 },
			}),
		]);
		expect(result.items[0].error).toMatchObject({ httpCode: '400' });
		expect(result.serialized).toContain('Rejected credentials: Bearer ***');
		expect(result.serialized).not.toContain(TOKEN);
	});

	test('403 on the userId filter says the account lacks permission', async () => {
		ctx.sim.admin = false;
		const result = await runWorkflow({
			parameters: getMany({ filters: { userId: 3 } }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Forbidden');
		expect(result.error?.description).toContain('userId: only admin accounts may filter by user');
		expect(result.error?.description).toContain('lacks permission');
	});

	test('with Continue On Fail an error gives an item with the error and the run goes on', async () => {
		ctx.sim.inject({ path: '/sms', status: 500 });
		const result = await runWorkflow({
			parameters: getMany({ limit: 2 }),
			items: [{}, {}],
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(3);
		expect(result.items[0]).toEqual(
			expect.objectContaining({
				json: { error: 'internal server error' },
				pairedItem: { item: 0 },
			}),
		);
		expect(result.items[0].error).toMatchObject({ httpCode: '500' });
		expect(result.items[0].error?.description).toMatch(
			/^Injected fault\nThe API failed with an unexpected server error\. Try again later\.\nFor the API's support: request ID [0-9a-f-]{36}, code \d+, at \d{4}-\d\d-\d\dT/,
		);
		expect(result.items.slice(1).map((item) => item.pairedItem)).toEqual([
			{ item: 1 },
			{ item: 1 },
		]);
	});

	test('a bad item makes no request of its own and stops the run', async () => {
		// n8n's routing starts each item's request in turn: items before the bad one are read.
		const result = await runWorkflow({
			parameters: getMany({ limit: 1, filters: { campaignId: '={{ $json.campaign }}' } }),
			items: [
				{ campaign: ctx.sim.campaigns[0] },
				{ campaign: ctx.sim.campaigns[1] },
				{ campaign: 'nope' },
			],
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Campaign ID is not a UUID: "nope"');
		expect(queries().map((q) => q['campaign-id'])).not.toContain('nope');
		expect(queries().length).toBeLessThanOrEqual(2);
	});

	test('with Continue On Fail the bad item gives an error item and the others are listed', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 1, filters: { campaignId: '={{ $json.campaign }}' } }),
			items: [{ campaign: 'nope' }, { campaign: ctx.sim.campaigns[1] }],
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items.map((item) => [item.pairedItem, item.json.error ?? 'record'])).toEqual([
			[{ item: 0 }, 'Campaign ID is not a UUID: "nope"'],
			[{ item: 1 }, 'record'],
		]);
		expect(queries()).toEqual([{ page: '1', records: '1', 'campaign-id': ctx.sim.campaigns[1] }]);
	});

	test('with Continue On Fail and several items, the refused item is an error item paired to it', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 2, filters: { campaignId: '={{ $json.campaign }}' } }),
			items: [
				{ campaign: ctx.sim.campaigns[0] },
				{ campaign: 'nope' },
				{ campaign: ctx.sim.campaigns[1] },
			],
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items.map((item) => [item.pairedItem, item.json.error ?? 'record'])).toEqual([
			[{ item: 0 }, 'record'],
			[{ item: 0 }, 'record'],
			[{ item: 1 }, 'Campaign ID is not a UUID: "nope"'],
			[{ item: 2 }, 'record'],
			[{ item: 2 }, 'record'],
		]);
		expect(queries().map((q) => q['campaign-id'])).toEqual([
			ctx.sim.campaigns[0],
			ctx.sim.campaigns[1],
		]);
	});

	test.each([0, 2.5, 'ten'])('a Limit of %p is refused before any request', async (limit) => {
		const result = await runWorkflow({
			parameters: getMany({ limit: `={{ ${JSON.stringify(limit)} }}` }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			`Limit must be a whole number of 1 or more, got ${JSON.stringify(limit)}`,
		);
		expect(ctx.sim.requests).toEqual([]);
	});
});

describe('SMS → Get Many: Limit per item', () => {
	test('a server that serves smaller pages than asked is read until the Limit', async () => {
		ctx.sim.inject({ path: '/sms', pageSize: 30, count: Infinity });
		const result = await runWorkflow({
			parameters: getMany({ limit: 50 }),
			credentials: ctx.credentials,
		});
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(50);
		expect(queries().map((q) => q.page)).toEqual(['1', '2']);
	});

	test.each([250, 300])(
		'a Limit of %i that covers every record stops at the total',
		async (limit) => {
			const result = await runWorkflow({
				parameters: getMany({ limit }),
				credentials: ctx.credentials,
			});
			expect(new Set(result.items.map((item) => item.json.id)).size).toBe(250);
			expect(
				queries()
					.map((q) => q.page)
					.sort(),
			).toEqual(['1', '2', '3']);
		},
	);

	test('each input item gets its own records, paired to it', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: '={{ $json.limit }}' }),
			items: [{ limit: 10 }, { limit: 500 }, { limit: 20 }],
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(280);
		const pairs = result.items.map((item) => (item.pairedItem as { item: number }).item);
		expect(pairs.filter((p) => p === 0)).toHaveLength(10);
		expect(pairs.filter((p) => p === 1)).toHaveLength(250);
		expect(pairs.filter((p) => p === 2)).toHaveLength(20);
	});
});

describe('SMS → Get Many: Return All and Limit by expression', () => {
	test('Return All set by an expression to true reads every page', async () => {
		const result = await runWorkflow({
			parameters: getMany({ returnAll: '={{ true }}' }),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(250);
		expect(queriesByPage().map((q) => q.records)).toEqual(['100', '100', '100']);
	});

	test('Return All from each item: all records for one, the Limit for the other', async () => {
		const result = await runWorkflow({
			parameters: getMany({ returnAll: '={{ $json.all }}', limit: 5 }),
			items: [{ all: true }, { all: false }],
			credentials: ctx.credentials,
		});
		const pairs = result.items.map((item) => (item.pairedItem as { item: number }).item);
		expect(pairs.filter((p) => p === 0)).toHaveLength(250);
		expect(pairs.filter((p) => p === 1)).toHaveLength(5);
	});

	test('Return All that is not true or false is refused, naming Return All, before any request', async () => {
		const result = await runWorkflow({
			parameters: getMany({ returnAll: '={{ $json.all }}' }),
			items: [{ all: 'yes' }],
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Return All must be true or false, got "yes"');
		expect(ctx.sim.requests).toEqual([]);
	});

	test.each([-5, '={{ "abc" }}'])(
		'a Limit of %p under Continue On Fail is one error item paired to its item; the others are listed',
		async (limit) => {
			const result = await runWorkflow({
				parameters: getMany({ limit: '={{ $json.limit }}' }),
				items: [{ limit: 2 }, { limit: limit === -5 ? -5 : 'abc' }, { limit: 3 }],
				credentials: ctx.credentials,
				continueOnFail: true,
			});
			const shown = limit === -5 ? '-5' : '"abc"';
			expect(result.items.map((item) => [item.pairedItem, item.json.error ?? 'record'])).toEqual([
				[{ item: 0 }, 'record'],
				[{ item: 0 }, 'record'],
				[{ item: 1 }, `Limit must be a whole number of 1 or more, got ${shown}`],
				[{ item: 2 }, 'record'],
				[{ item: 2 }, 'record'],
				[{ item: 2 }, 'record'],
			]);
			expect(queries().map((q) => q.records)).toEqual(['2', '3']);
		},
	);

	test.each([-5, '={{ "abc" }}'])(
		'a Limit of %p under Continue (using error output) is one error item on the error output',
		async (limit) => {
			const result = await runWorkflow({
				parameters: getMany({ limit }),
				items: [{}],
				credentials: ctx.credentials,
				onError: 'continueErrorOutput',
			});
			const shown = limit === -5 ? '-5' : '"abc"';
			expect(result.error).toBeUndefined();
			expect(result.items).toEqual([]);
			expect(result.errorItems).toEqual([
				expect.objectContaining({
					json: { error: `Limit must be a whole number of 1 or more, got ${shown}` },
					pairedItem: { item: 0 },
				}),
			]);
			expect(ctx.sim.requests).toEqual([]);
		},
	);
});

describe('SMS → Get Many: the date filters as the API documents them', () => {
	const sentOn = (sentAt: string) =>
		ctx.sim.addSms({
			recipient: '254700000001',
			content: `sent ${sentAt}`,
			sentAt,
			campaignId: undefined,
		}).id as number;

	test('the fields say what start-date and end-date mean to the API', () => {
		const filters = loadedNodeDescription().properties.find(
			(p) => p.name === 'filters' && p.displayOptions?.show?.resource?.includes('sms'),
		);
		const description = (name: string) =>
			(filters?.options as Array<{ name: string; description?: string }>).find(
				(o) => o.name === name,
			)?.description;
		expect(description('startDate')).toMatch(
			/^Only messages sent after this date: the API's start-date\./,
		);
		expect(description('endDate')).toMatch(
			/^Only messages sent before this date: the API's end-date\./,
		);
		expect(description('endDate')).toContain('Messages sent on the date itself are not listed');
	});

	test('the dates are sent as given, no day added: the end date itself is not listed', async () => {
		ctx.sim.sms.splice(0);
		const [before, onStart, onEnd] = [
			sentOn('2026-11-01T23:59:59Z'),
			sentOn('2026-11-02T00:00:00Z'),
			sentOn('2026-11-05T08:00:00Z'),
		];
		const between = sentOn('2026-11-04T23:59:59Z');
		const result = await runWorkflow({
			parameters: getMany({
				returnAll: true,
				filters: { startDate: '2026-11-02', endDate: '2026-11-05' },
			}),
			credentials: ctx.credentials,
		});
		expect(queries()).toEqual([
			{ page: '1', records: '100', 'start-date': '2026-11-02', 'end-date': '2026-11-05' },
		]);
		const ids = result.items.map((item) => item.json.id);
		expect(ids.sort()).toEqual([onStart, between].sort());
		expect(ids).not.toContain(before);
		expect(ids).not.toContain(onEnd);
	});
});
