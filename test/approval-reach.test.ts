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
	['a Kubernetes service', 'http://n8n.default.svc:5678/webhook-waiting', 'n8n.default.svc'],
	['a name under .corp', 'https://n8n.acme.corp/webhook-waiting', 'n8n.acme.corp'],
	['a name under .home', 'http://n8n.home:5678/webhook-waiting', 'n8n.home'],
	['a name under .internal', 'https://n8n.internal/webhook-waiting', 'n8n.internal'],
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

// Every spelling of a host a phone cannot reach, as a WEBHOOK_URL may hold it: the link's address
// is read as a browser reads it (WHATWG URL) and the address itself checked, not its text.
test.each([
	[
		'an IPv4-mapped IPv6 loopback',
		'http://[::ffff:127.0.0.1]:5678',
		'[::ffff:7f00:1] (127.0.0.1) is local to this n8n',
	],
	[
		'the same, written in full',
		'http://[0:0:0:0:0:ffff:7f00:1]:5678',
		'[::ffff:7f00:1] (127.0.0.1) is local to this n8n',
	],
	[
		'an IPv4-mapped private address',
		'http://[::ffff:192.168.1.20]',
		'[::ffff:c0a8:114] (192.168.1.20) is local to this n8n',
	],
	[
		'an IPv4-translated loopback',
		'http://[::ffff:0:7f00:1]',
		'[::ffff:0:7f00:1] (127.0.0.1) is local to this n8n',
	],
	[
		'an IPv4-compatible loopback',
		'http://[::127.0.0.1]',
		'[::7f00:1] (127.0.0.1) is local to this n8n',
	],
	[
		'a NAT64 private address',
		'http://[64:ff9b::10.0.0.1]',
		'[64:ff9b::a00:1] (10.0.0.1) is local to this n8n',
	],
	[
		'a 6to4 private address',
		'http://[2002:c0a8:101::1]',
		'[2002:c0a8:101::1] (192.168.1.1) is local to this n8n',
	],
	['IPv6 loopback', 'http://[::1]:5678', '[::1] is local to this n8n'],
	['the unspecified IPv6 address', 'http://[::]:5678', '[::] is local to this n8n'],
	['an IPv6 link-local address', 'http://[fe80::1]', '[fe80::1] is local to this n8n'],
	['localhost with a trailing dot', 'http://localhost.:5678', 'localhost. is local to this n8n'],
	['LOCALHOST in capitals', 'http://LOCALHOST:5678', 'localhost is local to this n8n'],
	['a name under .localhost', 'http://n8n.localhost', 'n8n.localhost is local to this n8n'],
	[
		'a name under .local with a trailing dot',
		'http://n8n.local.:5678',
		'n8n.local. is local to this n8n',
	],
	['a name without a dot but a trailing one', 'http://n8n.:5678', 'n8n. is local to this n8n'],
	['decimal IPv4', 'http://2130706433:5678', '127.0.0.1 is local to this n8n'],
	['hex IPv4', 'http://0x7f000001:5678', '127.0.0.1 is local to this n8n'],
	['octal IPv4', 'http://0177.0.0.1:5678', '127.0.0.1 is local to this n8n'],
	['short IPv4', 'http://127.1:5678', '127.0.0.1 is local to this n8n'],
	['0.0.0.0', 'http://0.0.0.0:5678', '0.0.0.0 is local to this n8n'],
	['0 (0.0.0.0)', 'http://0:5678', '0.0.0.0 is local to this n8n'],
	[
		'a documentation address',
		'https://203.0.113.9',
		'203.0.113.9 is reserved, not an address on the internet',
	],
	[
		'a multicast address',
		'http://224.0.0.1',
		'224.0.0.1 is reserved, not an address on the internet',
	],
	[
		'an IPv6 documentation address',
		'http://[2001:db8::1]',
		'[2001:db8::1] is reserved, not an address on the internet',
	],
	[
		'a Teredo address',
		'http://[2001::1]:5678',
		'[2001::1] is reserved, not an address on the internet',
	],
])(
	'a link to %s, an API elsewhere: refused by its parsed address, nothing sent',
	async (_, origin, why) => {
		const base = `${origin}/webhook-waiting`;
		const result = await approvalThrough('send.example.com', base);
		// The link as n8n writes it: its address in the URL's own spelling.
		expect(result.error?.message).toMatch(/^The approval link would point to http/);
		expect(result.error?.message).toContain(
			`/webhook-waiting/…, an address a phone cannot reach (${why}), while the SMS go out through send.example.com`,
		);
		expect(sendRequests()).toHaveLength(0);
		expect(result.run.waitTill).toBeUndefined();
	},
);

// A link no browser opens is refused whatever the API: the local simulator here. (An address n8n
// cannot read as a URL, such as an IPv6 zone, fails n8n 2.x itself on every node's parameters
// before the node runs; on 1.x the node names it instead of n8n's bare "Invalid URL".)
test.each([
	[
		'a file: URL',
		'file:///etc/passwd',
		'file:///etc/passwd/…, an address a phone cannot reach (a file: link is not a web page a phone opens)',
	],
])('a link that is %s: refused, named, whatever the API, nothing sent', async (_, base, what) => {
	const result = await runWorkflow({
		nodeType: APPROVAL_TYPE,
		parameters: SEND_AND_WAIT,
		items: [{ phone: '254712345678', text: 'Refund 120 EUR to Alice?' }],
		credentials: ctx.credentials,
		webhookWaitingBaseUrl: base,
	});
	const api = new URL(ctx.credentials.sendBaseUrl).hostname;
	expect(result.error?.message).toBe(
		`The approval link would point to ${what}, while the SMS go out through ${api}`,
	);
	expect(result.error?.description).toContain('Nothing was sent.');
	expect(sendRequests()).toHaveLength(0);
	expect(result.run.waitTill).toBeUndefined();
});

test.each([
	['a public IPv4 address mapped into IPv6', 'http://[::ffff:8.8.8.8]/webhook-waiting'],
	['a public name with a trailing dot', 'https://n8n.example.com./webhook-waiting'],
	['a public IPv6 address', 'https://[2a00:1450:4001:82b::200e]/webhook-waiting'],
])('a link to %s, an API elsewhere: sent', async (_, base) => {
	const result = await approvalThrough('send.example.com', base);
	expect(result.error).toBeUndefined();
	expect(sendRequests()).toHaveLength(1);
});

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
