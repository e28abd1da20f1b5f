// SMS → Send at ten times the size a user would try: 200,000 items in 200 requests (one at a
// time, so that the 502s are requests 51 to 200), 150 of them answered 502. Every item is
// accounted for, and a retry of the execution sends nothing again.
import { retryExecution, runWorkflow, type RunOptions } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator({ smsRecords: 0 });

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');

test('200,000 items, 150 of 200 requests answered 502: the run says which went out, and a retry sends none again', async () => {
	const options = (): RunOptions => ({
		parameters: send({ batchSize: 1000, onRequestFailure: 'continue', parallelRequests: 1 }),
		items: customers(200_000),
		inputDirect: true,
		credentials: ctx.credentials,
		mode: 'webhook',
	});
	ctx.sim.inject({ host: 'send', status: 502, skip: 50, count: 150 });
	const failed = await runWorkflow(options());
	expect(sendRequests()).toHaveLength(200);
	expect(ctx.sim.sentEnvelopes).toHaveLength(50_000);
	const description = String(failed.error?.description);
	expect(description).toContain('Sent and charged (50000 messages): items 0-49999.');
	expect(description).toContain('May have been sent (150000 messages): items 50000-199999.');

	const retried = await retryExecution(failed, options());
	// Nothing is sent again: the accepted items are known sent, the others may have been.
	expect(sendRequests()).toHaveLength(200);
	expect(String(retried.error?.description)).toContain(
		'Items 0-49999 went out in an earlier try of this node in this execution',
	);
}, 600_000);
