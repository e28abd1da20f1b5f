import { CREDENTIAL_TEST_TYPE, runWorkflow } from './helpers/n8n';
import { TOKEN, useSimulator } from './helpers/simulator';
import { Simulator } from './simulator/simulator';

const ctx = useSimulator();

/** One SMS, enough to see which header the send request carries. */
const sendHi = {
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '254712345678',
	message: 'Hi',
};

describe('credential: which header carries the token', () => {
	test('list and Sender ID requests carry X-Service and no Authorization', async () => {
		await runWorkflow({
			parameters: { resource: 'contact', operation: 'getAll', limit: 1 },
			credentials: ctx.credentials,
		});
		await runWorkflow({
			parameters: {
				resource: 'senderId',
				operation: 'create',
				name: 'SHOP',
				purpose: 'PROMOTIONAL',
				access: 'PUBLIC',
				sample: 'Sale today',
			},
			credentials: ctx.credentials,
		});
		const requests = ctx.sim.requests;
		expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /contacts',
			'POST /sender-ids',
		]);
		for (const request of requests) {
			expect(request.headers['x-service']).toBe(`Bearer ${TOKEN}`);
			expect(request.headers.authorization).toBeUndefined();
		}
	});

	test('the send request carries Authorization and no X-Service', async () => {
		await runWorkflow({
			parameters: sendHi,
			credentials: ctx.credentials,
		});
		const [request] = ctx.sim.requests;
		expect(request.host).toBe('send');
		expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
		expect(request.headers['x-service']).toBeUndefined();
	});

	test('a trailing slash on either base URL is tolerated', async () => {
		const credentials = {
			...ctx.credentials,
			baseUrl: `${ctx.credentials.baseUrl}/`,
			sendBaseUrl: `${ctx.credentials.sendBaseUrl}/`,
		};
		const list = await runWorkflow({
			parameters: { resource: 'contact', operation: 'getAll', limit: 2 },
			credentials,
		});
		const sent = await runWorkflow({
			parameters: sendHi,
			credentials,
		});
		expect(list.items).toHaveLength(2);
		expect(sent.items[0].json.status).toBe('SENT');
		expect(ctx.sim.requests.map((r) => r.path)).toEqual(['/contacts', '/outgoings/send']);
	});

	test('the credential test is GET {baseUrl}/contacts?records=1 with X-Service, as n8n runs it', async () => {
		const ok = await runWorkflow({
			nodeType: CREDENTIAL_TEST_TYPE,
			parameters: {},
			credentials: { ...ctx.credentials, baseUrl: `${ctx.credentials.baseUrl}/` },
		});
		expect(ok.error).toBeUndefined();
		const [request] = ctx.sim.requests;
		expect(`${request.method} ${request.path}`).toBe('GET /contacts');
		expect(request.query).toEqual({ records: '1' });
		expect(request.headers['x-service']).toBe(`Bearer ${TOKEN}`);
		expect(request.headers.authorization).toBeUndefined();

		const wrongToken = await runWorkflow({
			nodeType: CREDENTIAL_TEST_TYPE,
			parameters: {},
			credentials: { ...ctx.credentials, apiToken: 'not-the-token' },
		});
		expect(wrongToken.error?.message).toMatch(/401|Authorization failed|Authentication failed/);
	});
});

describe('credential: send and lists on the same host', () => {
	const same = new Simulator({ token: TOKEN, sendOnApiHost: true });
	let credentials = { apiToken: TOKEN, baseUrl: '', sendBaseUrl: '' };
	beforeAll(async () => {
		const { baseUrl } = await same.start();
		credentials = { apiToken: TOKEN, baseUrl, sendBaseUrl: baseUrl };
	});
	afterAll(async () => await same.stop());

	test('each request still carries exactly its own header', async () => {
		await runWorkflow({
			parameters: sendHi,
			credentials,
		});
		await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', limit: 1 },
			credentials,
		});
		const [send, list] = same.requests;
		expect(send.host).toBe('api');
		expect(send.path).toBe('/outgoings/send');
		expect(send.status).toBe(202);
		expect(send.headers.authorization).toBe(`Bearer ${TOKEN}`);
		expect(send.headers['x-service']).toBeUndefined();
		expect(list.path).toBe('/sms');
		expect(list.headers['x-service']).toBe(`Bearer ${TOKEN}`);
		expect(list.headers.authorization).toBeUndefined();
	});
});
