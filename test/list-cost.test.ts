// What Return All costs on a list that does not change (issue 64): at most
// 1.1 × ceil(N / 100) + 1 requests for N records, newest first and oldest first, and oldest first
// read several pages at once again. Through n8n's engine against the simulator, 40 ms away.
import { runWorkflow } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 10_000, contacts: 345 });

interface SimRequest {
	arrivedAt: number;
	at: number;
	path: string;
}

const requestsTo = (path: string): SimRequest[] => ctx.sim.requests.filter((r) => r.path === path);
const atMost = (records: number) => Math.floor(1.1 * Math.ceil(records / 100) + 1);

/** The most requests in flight at one moment. */
function mostAtOnce(requests: SimRequest[]) {
	return Math.max(
		...requests.map(
			(r) => requests.filter((o) => o.arrivedAt <= r.arrivedAt && o.at > r.arrivedAt).length,
		),
	);
}

const ids = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => item.json.id);
const newestFirst = Array.from({ length: 10_000 }, (_, k) => 10_000 - k);

test.each([0, 40])(
	'Contact → Get Many, Return All over 345 contacts, %i ms from the API: 5 requests at most',
	async (latencyMs) => {
		ctx.sim.latencyMs = latencyMs;
		const result = await runWorkflow({
			parameters: { resource: 'contact', operation: 'getAll', returnAll: true },
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(ids(result.items)).toEqual(Array.from({ length: 345 }, (_, k) => 345 - k));
		expect(requestsTo('/contacts').length).toBeLessThanOrEqual(atMost(345));
		process.stdout.write(`contacts: ${requestsTo('/contacts').length} requests\n`);
	},
);

describe.each([
	['newest first', {}, newestFirst],
	[
		'oldest first',
		{ options: { sortField: 'id', sortDirection: 'asc' } },
		[...newestFirst].reverse(),
	],
])('SMS → Get Many %s, Return All over 10,000 messages', (_, extra, expected) => {
	test('111 requests at most, several pages at once (40 ms from the API), each message once in order', async () => {
		ctx.sim.latencyMs = 40;
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: true, ...extra },
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(ids(result.items)).toEqual(expected);
		const requests = requestsTo('/sms');
		expect(requests.length).toBeLessThanOrEqual(atMost(10_000));
		process.stdout.write(`10,000 messages: ${requests.length} requests\n`);
		expect(mostAtOnce(requests)).toBeGreaterThanOrEqual(2);
	});
});
