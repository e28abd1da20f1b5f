// The provider's SMS list stores each SMS as sent, approval links included: Get Many, Get Delivery
// Status and the trigger output those records with the link's code masked, so that a workflow that
// forwards `content` publishes no link that answers. Through n8n-core's engine and the simulator.
import { answer, APPROVAL_TYPE } from './helpers/approval';
import { runWorkflow } from './helpers/n8n';
import { activateTrigger, TRIGGER_TYPE } from './helpers/poll';
import { useSimulator } from './helpers/simulator';

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-masking-test-secret';

const ctx = useSimulator({ smsRecords: 0 });

/** Sends an approval; gives the waiting run and the SMS text as the provider stores it. */
async function sendApproval() {
	const waiting = await runWorkflow({
		nodeType: APPROVAL_TYPE,
		parameters: {
			operation: 'sendAndWait',
			senderId: 'ACME',
			number: '254712345678',
			message: 'Refund 120 EUR to Alice?',
		},
		items: [{}],
		credentials: ctx.credentials,
	});
	expect(waiting.error).toBeUndefined();
	const [request] = ctx.sim.requests.filter((r) => r.host === 'send');
	const [{ message }] = (request.body as { envelopes: Array<{ message: string }> }).envelopes;
	return { waiting, message };
}

/** The content with the code masked, the rest of the link as sent. */
function expectMasked(content: unknown, message: string) {
	const link = new URL(message.split('\n')[1]);
	const code = link.searchParams.get('k')!.split('.')[1];
	expect(content).toBe(message.replace(code, '[code hidden]'));
	expect(content).not.toContain(code);
}

test('Get Many, Get Delivery Status and the trigger mask the code; the link itself still answers', async () => {
	const { waiting, message } = await sendApproval();

	const many = await runWorkflow({
		parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
		credentials: ctx.credentials,
	});
	expect(many.items).toHaveLength(1);
	expectMasked(many.items[0].json.content, message);

	// Get Delivery Status finds the record by the text as sent, link included.
	const status = await runWorkflow({
		parameters: { resource: 'sms', operation: 'getStatus' },
		items: [{ recipient: '254712345678', message }],
		credentials: ctx.credentials,
	});
	expect(status.error).toBeUndefined();
	expectMasked(status.items[0].json.content, message);

	const manual = await runWorkflow({
		nodeType: TRIGGER_TYPE,
		parameters: { statuses: ['SENT'] },
		credentials: ctx.credentials,
		inputDirect: true,
	});
	expectMasked(manual.items[0].json.content, message);

	const trigger = await activateTrigger({
		parameters: { statuses: ['DELIVERED'] },
		credentials: ctx.credentials,
	});
	const [record] = ctx.sim.sms;
	ctx.sim.setSmsStatus(record.id, 'DELIVERED');
	const polled = await trigger.poll();
	expect(polled.items).toHaveLength(1);
	expectMasked(polled.items![0].json.content, message);

	// Masking is on output only: the recipient's own link answers.
	const { items } = await answer(waiting, {
		method: 'POST',
		link: message.split('\n')[1],
		body: { approved: 'true' },
	});
	expect(items!.map((item) => item.json.data)).toEqual([{ approved: true }]);
});
