// Get Delivery Status after a bulk send (issue 64): 30,000 and 100,000 messages sent with Batch
// Size 1,000, so that each request's 1,000 messages share one Sent At, then looked up together.
// Through n8n's engine against the simulator: each item gets its own record, without an error,
// in list requests that grow in proportion to the items (the SMS list's pages, 100 records each),
// whichever order the API gives messages that share a Sent At.
import { runWorkflow } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 0 });

const listRequests = () => ctx.sim.requests.filter((r) => r.path === '/sms');

describe.each([30_000, 100_000])('%i messages sent in bulk', (count) => {
	test.each([
		['equal Sent At in the order added (a stable sort by Sent At alone)', true],
		['equal Sent At by id', false],
	])(
		'Get Delivery Status of every one, %s: each its own record, no error, about one request per page of the list',
		async (_, tiesInAddedOrder) => {
			ctx.sim.tiesInAddedOrder = tiesInAddedOrder;
			const sent = await runWorkflow({
				parameters: send({ batchSize: 1000 }),
				items: customers(count),
				inputDirect: true,
				credentials: ctx.credentials,
			});
			expect(sent.error).toBeUndefined();
			expect(new Set(ctx.sim.sms.map((sms) => sms.sentAt)).size).toBeLessThanOrEqual(count / 1000);
			ctx.sim.requests.length = 0;
			const started = Date.now();
			const result = await runWorkflow({
				parameters: { resource: 'sms', operation: 'getStatus' },
				items: sent.items.map((item) => item.json),
				inputDirect: true,
				credentials: ctx.credentials,
			});
			const seconds = (Date.now() - started) / 1000;
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(count);
			const wrong = result.items.filter((item, k) => item.json.id !== sent.items[k].json.id);
			expect(wrong).toEqual([]);
			// Pages of 100 that each overlap the one before by a record or two.
			expect(listRequests().length).toBeLessThanOrEqual(Math.ceil((1.15 * count) / 100) + 2);
			process.stdout.write(
				`Get Delivery Status of ${count}: ${listRequests().length} list requests, ${seconds} s\n`,
			);
		},
		900_000,
	);
});
