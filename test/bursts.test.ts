// Records that arrive in bursts while the SMS list is read: the rate of one request does not
// tell the next's. Every record listed at the start comes out once, in order, and the reading ends.
import { runWorkflow } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 250 });

const ids = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => item.json.id);
const seeded = Array.from({ length: 250 }, (_, k) => 250 - k);
const getMany = { resource: 'sms', operation: 'getAll', returnAll: true };

describe.each([
	['with totals', false],
	['without totals', true],
])('pages %s', (_, omitTotals) => {
	describe.each([
		['150, 150, then none', [150, 150]],
		['none, 150, then none', [0, 150]],
		['100, 100, 100, then 50', [100, 100, 100, 50, 50, 50, 50, 50, 50]],
		['150, 0, 150, 0…', [150, 0, 150, 0, 150, 0, 150, 0, 150, 0]],
		['30, 200, 0, 75', [30, 200, 0, 75, 30, 200, 0, 75]],
	])('arrivals per request: %s', (_burst, burst) => {
		test.each([
			['a server that serves 100 records per page', {}],
			['a server that serves at most 50 records per page', { maxPageSize: 50 }],
			['a server that serves 50 records per page whatever is asked', { pageSize: 50 }],
		])('Get Many (Return All) from %s: each message once', async (_server, fault) => {
			ctx.sim.omitTotals = omitTotals;
			ctx.sim.inject({ path: '/sms', ...fault, count: Infinity });
			ctx.sim.arriveDuringReads('sms', [...burst]);
			const result = await runWorkflow({ parameters: getMany, credentials: ctx.credentials });
			expect(result.error).toBeUndefined();
			expect(ids(result.items)).toEqual(seeded);
		});
	});
});
