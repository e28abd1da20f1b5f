// End to end: the example "send, wait, check delivery and alert on failures"
// (examples/send-and-check-delivery.json) as `npm start` imports it, run in a real n8n. The e2e
// simulator delivers nothing by itself, so while the workflow waits the test does what the
// network would: one message is delivered, one fails, one is delivered, one stays SENT.
// On the first line of a jest run only (`npm test` runs each line's in a jest run of its own, side by
// side, so on every line without adding to the longest): the example waits 35 s in n8n's own Wait
// node, and what it checks of this package (Send, then Get Delivery Status's one read of the SMS
// list) n8n runs alike on every line.
import { lines, N8n, outputOf } from './n8n-rest';

const WORKFLOW = 'exSendCheckDelivery';

describe.each(
	lines()
		.slice(0, 1)
		.map((endpoints) => [endpoints.line, endpoints] as const),
)('n8n %s (one line only)', (_line, endpoints) => {
	const n8n = new N8n(endpoints);
	const control = (route: string) =>
		`${endpoints.simulatorBaseUrl.replace(/\/api\/v3$/, '')}/__sim${route}`;
	const post = async (route: string, body: unknown) =>
		await fetch(control(route), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});

	beforeAll(async () => await n8n.login());
	beforeEach(async () => await n8n.simReset());

	test('example: send, wait, check delivery, and only the FAILED message reaches the alert', async () => {
		const run = n8n.run(WORKFLOW);
		// The four messages are sent first; the workflow then waits 35 seconds.
		const deadline = Date.now() + 30_000;
		let sent = false;
		while (!sent && Date.now() < deadline) {
			const requests = await n8n.simRequests();
			sent = requests.some((r) => r.host === 'send' && r.status === 202);
			if (!sent) await new Promise((resolve) => setTimeout(resolve, 250));
		}
		expect(sent).toBe(true);
		const { smsCount } = (await (await fetch(control('/state'))).json()) as { smsCount: number };
		// The simulator numbers messages in order: the last four are the ones just sent.
		const ids = [smsCount - 3, smsCount - 2, smsCount - 1];
		await post(`/sms/${ids[0]}/status`, { status: 'DELIVERED' });
		await post(`/sms/${ids[1]}/status`, { status: 'FAILED' });
		await post(`/sms/${ids[2]}/status`, { status: 'DELIVERED' });

		const result = await run;
		expect(result.status).toBe('success');
		const sentItems = outputOf(result, 'Send SMS');
		const checked = outputOf(result, 'Get delivery status');
		expect(checked.map((item) => [item.json.id, item.json.status, item.pairedItem])).toEqual([
			[ids[0], 'DELIVERED', { item: 0 }],
			[ids[1], 'FAILED', { item: 1 }],
			[ids[2], 'DELIVERED', { item: 2 }],
			[smsCount, 'SENT', { item: 3 }],
		]);
		expect(checked.map((item) => item.json.content)).toEqual(
			sentItems.map((item) => item.json.message),
		);
		expect(outputOf(result, 'Build the alert').map((item) => item.json)).toEqual([
			{
				alert: `SMS to 254799000111 failed: "${String(sentItems[1].json.message)}"`,
				recipient: '254799000111',
			},
		]);
		// One read of the SMS list for the four messages.
		const listed = (await n8n.simRequests()).filter((r) => r.path === '/sms');
		expect(listed).toHaveLength(1);
		expect(listed[0].query).toMatchObject({ sort: 'sentAt,desc', page: '1', records: '100' });
	});
});
