// Get Many with Return All against an API 40 ms away: after the first page, several pages at once,
// and exactly the records a one-page-at-a-time reader gets, in the same order. The file runs on a
// clock the test controls (test/helpers/virtual-clock.ts): the API's 40 ms and the node's waits
// take their time on it, and a busy machine moves none of them.
import { runWorkflow } from './helpers/n8n';
import { smsPagesWithoutTotals, TOKEN, useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

const ctx = useSimulator({ smsRecords: 1050, contacts: 430 });
useVirtualClock();

interface SimRequest {
	arrivedAt: number;
	at: number;
	status: number | 'reset' | undefined;
	query: Record<string, string | string[]>;
}

const listRequests = (): SimRequest[] => ctx.sim.requests.filter((r) => r.host === 'api');
const pagesAsked = () => listRequests().map((r) => Number(r.query.page));

function mostAtOnce(requests: SimRequest[]) {
	return Math.max(
		...requests.map(
			(r) => requests.filter((o) => o.arrivedAt <= r.arrivedAt && o.at > r.arrivedAt).length,
		),
	);
}

/**
 * The records of a list read one page after another with plain HTTP, until the API says last. Its
 * `fetch` is not seen by the virtual clock: call it with the simulator's latency at 0.
 */
async function sequentialRead(path: string) {
	const records: unknown[] = [];
	for (let page = 1; ; page++) {
		const response = await fetch(`${ctx.credentials.baseUrl}${path}?page=${page}&records=100`, {
			headers: { 'X-Service': `Bearer ${TOKEN}` },
		});
		const { data } = (await response.json()) as {
			data: { content: unknown[]; last?: boolean; pagination?: { last: boolean } };
		};
		records.push(...data.content);
		if ((data.pagination ?? data).last) return records;
	}
}

beforeEach(() => {
	ctx.sim.latencyMs = 40;
});

describe('Return All in parallel, 40 ms from the API', () => {
	test.each([
		['SMS', 'sms', '/sms', 11],
		['Contact', 'contact', '/contacts', 5],
	])(
		'%s: the first page alone, then several at once (Auto); exactly the records of a sequential read, in order',
		async (_name, resource, path, pages) => {
			const result = await runWorkflow({
				parameters: { resource, operation: 'getAll', returnAll: true },
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			const requests = listRequests();
			expect(pagesAsked().sort((a, b) => a - b)).toEqual(
				Array.from({ length: pages }, (_, i) => i + 1),
			);
			expect(requests[0].query.page).toBe('1');
			expect(Math.min(...requests.slice(1).map((r) => r.arrivedAt))).toBeGreaterThanOrEqual(
				requests[0].at,
			);
			const atOnce = mostAtOnce(requests);
			expect(atOnce).toBeGreaterThanOrEqual(2);
			expect(atOnce).toBeLessThanOrEqual(32);

			ctx.sim.latencyMs = 0;
			const sequential = await sequentialRead(path);
			expect(result.items.map((item) => item.json)).toEqual(sequential);
			expect(new Set(sequential.map((record) => (record as { id: number }).id)).size).toBe(
				sequential.length,
			);
		},
	);

	test('a Limit asks only the pages it needs', async () => {
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', limit: 350 },
			credentials: ctx.credentials,
		});
		expect(pagesAsked().sort((a, b) => a - b)).toEqual([1, 2, 3, 4]);
		ctx.sim.latencyMs = 0;
		const sequential = await sequentialRead('/sms');
		expect(result.items.map((item) => item.json)).toEqual(sequential.slice(0, 350));
	});

	test('without totals on the first page, pages go one after another, each from the record taken last', async () => {
		// No totalElements, and totalPages is gone too: only `last` is left.
		const restore = smsPagesWithoutTotals(ctx.sim);
		try {
			const result = await runWorkflow({
				parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
				credentials: ctx.credentials,
			});
			expect(new Set(result.items.map((item) => item.json.id)).size).toBe(1050);
			expect(result.items).toHaveLength(1050);
			// Nothing tells that the list stood still: each page starts at or before the last record
			// of the page before it, or (the list by id) just after it, where its first id, the one
			// after the last id read, shows that no record stands between.
			const spans = listRequests().map((r) => {
				const [page, size] = [Number(r.query.page), Number(r.query.records)];
				return { start: (page - 1) * size, end: page * size };
			});
			for (let k = 1; k < spans.length; k++) {
				expect(spans[k].start).toBeLessThanOrEqual(spans[k - 1].end);
			}
			expect(spans.length).toBeLessThanOrEqual(11);
			expect(mostAtOnce(listRequests())).toBe(1);
		} finally {
			restore();
		}
	});

	test('a 429 on one page makes only that page wait its Retry-After: the retry of a 503 beside it goes on', async () => {
		// Issue 74: before, every page waited the second out, though the API refused only one. Pages
		// are taken in order, so no page more than 3 past a waiting one is asked anyway.
		ctx.sim.inject({ path: '/sms', status: 429, retryAfter: 1, skip: 1 });
		ctx.sim.inject({ path: '/sms', status: 503, skip: 2 });
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(1050);
		const requests = listRequests();
		const [refused] = requests.filter((r) => r.status === 429);
		const [unavailable] = requests.filter((r) => r.status === 503);
		const again = (failed: SimRequest) =>
			requests.find((r) => r.arrivedAt > failed.arrivedAt && r.query.page === failed.query.page)!;
		expect(again(refused).arrivedAt).toBeGreaterThanOrEqual(refused.at + 950);
		expect(again(unavailable).arrivedAt).toBeLessThan(refused.at + 950);
		// 11 pages and the two retries.
		expect(requests).toHaveLength(13);
		expect(new Set(result.items.map((item) => item.json.id)).size).toBe(1050);
	});

	test('a malformed page among those read at once is an error, never a shorter list', async () => {
		ctx.sim.inject({ path: '/sms', malformed: 'no-content', skip: 2 });
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
			credentials: ctx.credentials,
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(
			/^The API answered HTTP 200 with an unexpected body: page \d+ has no "content" list$/,
		);
	});
});
