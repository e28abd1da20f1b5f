import { runWorkflow } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ contacts: 230 });

const getMany = (options: Record<string, unknown> = {}) => ({
	resource: 'contact',
	operation: 'getAll',
	...options,
});
const queries = () => ctx.sim.requests.map((r) => r.query);
// Pages after the first may be read in parallel, so they may arrive in any order.
const queriesByPage = () => queries().sort((a, b) => Number(a.page) - Number(b.page));

describe('Contact → Get Many', () => {
	test('Return All pages through every contact, newest first, soft-deleted ones included', async () => {
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(230);
		// Sorted by creation date, each page after the first overlaps the one before by a contact:
		// the last one read shows where the next begin.
		expect(queriesByPage()).toEqual([
			{ page: '1', records: '100' },
			{ page: '2', records: '99' },
			{ page: '3', records: '98' },
		]);
		const created = result.items.map((item) => item.json.createdAt as string);
		expect([...created].sort().reverse()).toEqual(created);
		const deleted = result.items.filter((item) => item.json.deletedAt !== null);
		expect(deleted.length).toBeGreaterThan(0);
		expect(Object.keys(result.items[0].json).sort()).toEqual([
			'createdAt',
			'deletedAt',
			'email',
			'id',
			'names',
			'number',
			'updatedAt',
		]);
	});

	test('Limit stops at that many records, reading pages of 100 that overlap by a contact', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 120 }),
			credentials: ctx.credentials,
		});
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(120);
		expect(queries()).toEqual([
			{ page: '1', records: '100' },
			{ page: '2', records: '99' },
		]);
	});

	test('a search with fewer matches than the Limit reads one page', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 50, filters: { query: 'grace' } }),
			credentials: ctx.credentials,
		});
		expect(result.items.length).toBeGreaterThan(0);
		expect(result.items.length).toBeLessThan(50);
		expect(queries()).toEqual([{ page: '1', records: '50', query: 'grace' }]);
	});

	test('search and user filters are sent, and sort never is', async () => {
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true, filters: { query: 'grace', userId: 1 } }),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(queries()).toEqual([{ page: '1', records: '100', query: 'grace', userId: '1' }]);
		expect(result.items.length).toBeGreaterThan(0);
		for (const item of result.items)
			expect(String(item.json.names).toLowerCase()).toContain('grace');
		expect(ctx.sim.requests.every((r) => !r.rawQuery.includes('sort'))).toBe(true);
	});

	test('a User ID filter left empty (by an expression that gives nothing) filters nothing', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 5, filters: { userId: '' } }),
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(5);
		expect(queries()).toEqual([{ page: '1', records: '5' }]);
	});

	test('a User ID filter added and left at 0, as the editor adds it, is refused before any request', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: 5, filters: { userId: 0 } }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('User ID must be a whole number of 1 or more, got 0');
		expect(ctx.sim.requests).toEqual([]);
	});

	test('401 names the credential and its API Token field in sentences; the header only in the details', async () => {
		const result = await runWorkflow({
			parameters: getMany(),
			credentials: { ...ctx.credentials, apiToken: 'stale-token-abc' },
		});
		expect(result.error?.message).toBe('Authentication failed');
		const [hint, details] = result.error!.description!.split('\n');
		expect(hint).toBe(
			'The API did not accept the API Token of the credential "SMS Messaging account": correct its API Token field, or create a new token in your Messaging Service account and enter that.',
		);
		expect(details).toBe('Details from the API: X-Service: missing or invalid API token.');
		expect(result.serialized).not.toContain('stale-token-abc');
		// The API answered 401 once; nothing was repeated.
		expect(ctx.sim.requests).toHaveLength(1);
	});

	test('a bad userId is refused before any request', async () => {
		const result = await runWorkflow({
			parameters: getMany({ filters: { userId: 0 } }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('User ID must be a whole number of 1 or more, got 0');
		expect(ctx.sim.requests).toEqual([]);
	});

	test('Return All set by an expression to true reads every contact', async () => {
		const result = await runWorkflow({
			parameters: getMany({ returnAll: '={{ $json.all }}' }),
			items: [{ all: true }],
			credentials: ctx.credentials,
		});
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(230);
	});

	test('a Limit of -5 under Continue On Fail is one error item paired to its item', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: '={{ $json.limit }}' }),
			items: [{ limit: -5 }, { limit: 1 }],
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items.map((item) => [item.pairedItem, item.json.error ?? 'record'])).toEqual([
			[{ item: 0 }, 'Limit must be a whole number of 1 or more, got -5'],
			[{ item: 1 }, 'record'],
		]);
		expect(queries()).toEqual([{ page: '1', records: '1' }]);
	});

	test('a Limit of "abc" under Continue (using error output) is one error item on the error output', async () => {
		const result = await runWorkflow({
			parameters: getMany({ limit: '={{ "abc" }}' }),
			credentials: ctx.credentials,
			onError: 'continueErrorOutput',
		});
		expect(result.items).toEqual([]);
		expect(result.errorItems).toEqual([
			expect.objectContaining({
				json: { error: 'Limit must be a whole number of 1 or more, got "abc"' },
				pairedItem: { item: 0 },
			}),
		]);
		expect(ctx.sim.requests).toEqual([]);
	});

	test('a server that serves 50 contacts per page whatever size is asked: each contact once, in order', async () => {
		ctx.sim.inject({ path: '/contacts', pageSize: 50, count: Infinity });
		const result = await runWorkflow({
			parameters: getMany({ returnAll: true }),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		// By creation date, no page can overlap another: each window is taken once the window
		// before it, read again, shows the last contact read still at its end.
		expect(result.items.map((item) => item.json.id)).toEqual(
			Array.from({ length: 230 }, (_, k) => 230 - k),
		);
		// Two requests a window, and pages read ahead before the server showed its windows.
		expect(ctx.sim.requests.length).toBeLessThanOrEqual(3 * 5);
	});
});
