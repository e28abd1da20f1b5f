// A link a phone can reach: SMS Messaging Approval refuses, before anything is sent, to send links
// to an address local to n8n (n8n without WEBHOOK_URL) through an API that is not local, and says
// to set WEBHOOK_URL; with n8n's public address it sends. Through n8n-core's engine, the API
// "elsewhere" reached through a test proxy (HTTP_PROXY: the approval node, which has `execute`,
// gets no Request Options of its own) that hands its requests to the simulator.
import { APPROVAL_TYPE } from './helpers/approval';
import { SEND_AND_WAIT } from './helpers/approval-fixtures';
import { runWorkflow } from './helpers/n8n';
import { startProxy, type TestProxy } from './helpers/proxy';
import { useSimulator } from './helpers/simulator';

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-reach-test-secret';

const ctx = useSimulator();
let proxy: TestProxy;

beforeAll(async () => {
	const api = new URL(ctx.credentials.baseUrl).host;
	const send = new URL(ctx.credentials.sendBaseUrl).host;
	proxy = await startProxy({
		'api.example.com:80': api,
		'send.example.com:80': send,
		'10.20.0.5:80': send,
	});
	process.env.HTTP_PROXY = proxy.url;
	process.env.NO_PROXY = '127.0.0.1';
});
afterAll(async () => {
	delete process.env.HTTP_PROXY;
	delete process.env.NO_PROXY;
	await proxy.stop();
});

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');

/** An approval through an API at `sendHost`, with n8n's waiting webhooks at `webhookWaitingBaseUrl`. */
const approvalThrough = (sendHost: string, webhookWaitingBaseUrl?: string) =>
	runWorkflow({
		nodeType: APPROVAL_TYPE,
		parameters: SEND_AND_WAIT,
		items: [{ phone: '254712345678', text: 'Refund 120 EUR to Alice?' }],
		credentials: {
			...ctx.credentials,
			baseUrl: 'http://api.example.com/api/v3',
			sendBaseUrl: `http://${sendHost}/api/v3`,
		},
		webhookWaitingBaseUrl,
	});

test.each([
	['127.0.0.1 (n8n without WEBHOOK_URL)', 'http://127.0.0.1:5678/webhook-waiting', '127.0.0.1'],
	['localhost', 'http://localhost:5678/webhook-waiting', 'localhost'],
	['a private address', 'http://192.168.1.20:5678/webhook-waiting', '192.168.1.20'],
	['another private address', 'https://10.0.0.7/webhook-waiting', '10.0.0.7'],
	['a private IPv6 address', 'http://[fd00::7]:5678/webhook-waiting', '[fd00::7]'],
	['a container’s name', 'http://n8n:5678/webhook-waiting', 'n8n'],
	['a name under .local', 'http://n8n.local:5678/webhook-waiting', 'n8n.local'],
])(
	'a link to %s, an API elsewhere: nothing sent, nothing waits, the error says to set WEBHOOK_URL',
	async (_, base, host) => {
		const result = await approvalThrough('send.example.com', base);
		expect(result.error?.message).toBe(
			`The approval link would point to ${base}/…, an address a phone cannot reach (${host} is local to this n8n), while the SMS go out through send.example.com`,
		);
		expect(result.error?.description).toBe(
			"Set n8n's WEBHOOK_URL to the address phones can reach, for example https://n8n.example.com/, and restart n8n. Nothing was sent.",
		);
		expect(sendRequests()).toHaveLength(0);
		expect(proxy.requests.filter((r) => r.url.startsWith('http://send.example.com'))).toHaveLength(
			0,
		);
		expect(result.run.waitTill).toBeUndefined();
	},
);

test('a link to n8n’s public address (WEBHOOK_URL set), an API elsewhere: sent through it, and the run waits', async () => {
	const result = await approvalThrough(
		'send.example.com',
		'https://n8n.example.com/webhook-waiting',
	);
	expect(result.error).toBeUndefined();
	expect(result.run.waitTill).toBeDefined();
	const [request] = sendRequests();
	const [{ message }] = (request.body as { envelopes: Array<{ message: string }> }).envelopes;
	expect(message.split('\n')[1]).toMatch(
		/^https:\/\/n8n\.example\.com\/webhook-waiting\/1\/sms\?k=0\./,
	);
	expect(
		proxy.requests.some((r) => r.url === 'http://send.example.com/api/v3/outgoings/send'),
	).toBe(true);
});

test('a local link with an API on the same private network (a gateway inside it): sent', async () => {
	const result = await approvalThrough('10.20.0.5');
	expect(result.error).toBeUndefined();
	expect(sendRequests()).toHaveLength(1);
});

test('the local simulator with n8n on this machine (npm start): sent, as before', async () => {
	const result = await runWorkflow({
		nodeType: APPROVAL_TYPE,
		parameters: SEND_AND_WAIT,
		items: [{ phone: '254712345678', text: 'Refund 120 EUR to Alice?' }],
		credentials: ctx.credentials,
	});
	expect(result.error).toBeUndefined();
	expect(new URL(ctx.credentials.sendBaseUrl).hostname).toBe('127.0.0.1');
	expect(sendRequests()).toHaveLength(1);
});
