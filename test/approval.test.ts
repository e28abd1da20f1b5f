// SMS Messaging Approval through n8n-core's engine: what the simulator received (one request, the
// link in each message), the execution left waiting, and the answers to the link handled by the
// node's webhook in n8n-core's WebhookContext, resuming the run as n8n's waiting webhooks do.
import { createHash } from 'crypto';
import { validateUrlSignature, WAITING_TOKEN_QUERY_PARAM } from 'n8n-core';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { answer, APPROVAL_TYPE, timeOut, type Answer } from './helpers/approval';
import { runWorkflow, type RunResult } from './helpers/n8n';
import { TOKEN, useSimulator } from './helpers/simulator';

// n8n-core signs resume URLs with this secret (read when n8n-core's InstanceSettings is built).
const HMAC_SECRET = 'approval-test-signature-secret';
process.env.N8N_HMAC_SIGNATURE_SECRET = HMAC_SECRET;

const ctx = useSimulator();

/** What the node outputs when its time limit passes first. */
const TIMED_OUT = { data: { approved: false }, timedOut: true };

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');

const approval = (extra: Record<string, unknown> = {}) => ({
	operation: 'sendAndWait',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '=Refund {{ $json.amount }} EUR to order {{ $json.order }}?',
	...extra,
});

const ORDERS = [
	{ phone: '+254 712 345 678', amount: 120, order: 'A-1' },
	{ phone: '254799000111', amount: 80, order: 'B-2' },
];

async function waitingRun(parameters = approval(), items: object[] = ORDERS) {
	return await runWorkflow({
		nodeType: APPROVAL_TYPE,
		parameters,
		items,
		credentials: ctx.credentials,
	});
}

/** The approval with n8n's Retry On Fail, up to `maxTries` tries. */
async function retriedRun(maxTries: number) {
	return await runWorkflow({
		nodeType: APPROVAL_TYPE,
		parameters: approval(),
		items: ORDERS,
		credentials: ctx.credentials,
		retryOnFail: { maxTries, waitBetweenTries: 0 },
	});
}

/** The link n8n made for the waiting node, as the SMS carries it after the message. */
function linkOf(message: string): URL {
	const [, link] = message.split('\n');
	return new URL(link);
}

/** The sha256 of each inline `<tag>` block of a page, as a CSP source names it. */
const inlineHashes = (html: string, tag: string) =>
	[...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map(
		([, body]) => `'sha256-${createHash('sha256').update(body).digest('base64')}'`,
	);

/**
 * The headers every page of a link carries: a Content-Security-Policy that allows nothing by
 * default, the page's own style (and, for a form with a file field, its one script) by hash, posts
 * to itself only and no framing; no sniffing, no referrer, no cache. Its directives as a map, for
 * more checks.
 */
function expectPageHeaders(response: Answer['response']): Map<string, string> {
	const { headers } = response;
	expect(headers['x-content-type-options']).toBe('nosniff');
	expect(headers['referrer-policy']).toBe('no-referrer');
	expect(headers['cache-control']).toBe('no-store');
	expect(headers['x-frame-options']).toBe('DENY');
	const policy = new Map(
		headers['content-security-policy'].split(';').map((directive) => {
			const [name, ...sources] = directive.trim().split(/\s+/);
			return [name, sources.join(' ')] as [string, string];
		}),
	);
	expect(policy.get('default-src')).toBe("'none'");
	expect(policy.get('form-action')).toBe("'self'");
	expect(policy.get('frame-ancestors')).toBe("'none'");
	expect(policy.get('base-uri')).toBe("'none'");
	const html = response.body!;
	expect(policy.get('style-src')).toBe(inlineHashes(html, 'style').join(' '));
	// A page with a script allows exactly it; any other page of a form with a file field allows
	// the same one script (the policy is the form's, whatever the page holds), or none.
	const scripts = inlineHashes(html, 'script');
	const script = policy.get('script-src');
	if (scripts.length) expect(script).toBe(scripts.join(' '));
	else if (script !== undefined) expect(script).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
	// Nothing else may load: no other directive opens anything.
	expect([...policy.keys()].sort()).toEqual(
		['base-uri', 'default-src', 'form-action', 'frame-ancestors', 'style-src']
			.concat(script === undefined ? [] : ['script-src'])
			.sort(),
	);
	return policy;
}

/** The links of the last approval's SMS, one per recipient, in the request's order. */
function linksSent(): string[] {
	const requests = sendRequests();
	const { envelopes } = requests[requests.length - 1].body as {
		envelopes: Array<{ message: string }>;
	};
	return envelopes.map((envelope) => linkOf(envelope.message).href);
}

describe('SMS Messaging Approval: the SMS', () => {
	test('one request carries every item’s message, a line break and the signed link; the run waits', async () => {
		const result = await waitingRun();
		expect(result.error).toBeUndefined();
		expect(sendRequests()).toHaveLength(1);
		const [request] = sendRequests();
		const { senderId, envelopes } = request.body as {
			senderId: string;
			envelopes: Array<{ number: string; message: string }>;
		};
		expect(senderId).toBe('ACME');
		expect(envelopes.map((e) => e.number)).toEqual(['254712345678', '254799000111']);
		expect(envelopes.map((e) => e.message.split('\n')[0])).toEqual([
			'Refund 120 EUR to order A-1?',
			'Refund 80 EUR to order B-2?',
		]);
		// One waiting execution and node, a link of its own for each recipient.
		const links = envelopes.map((e) => linkOf(e.message));
		const link = links[0];
		expect(links[1].href).not.toBe(link.href);
		for (const [recipient, each] of links.entries()) {
			// n8n's waiting-webhook URL of this execution (id 1) and node (id "sms"), signed by n8n.
			expect(`${each.origin}${each.pathname}`).toBe(
				'http://127.0.0.1:5678/webhookWaitingBaseUrl/1/sms',
			);
			expect([...each.searchParams.keys()]).toEqual(['k', WAITING_TOKEN_QUERY_PARAM]);
			expect(each.searchParams.get('k')).toMatch(new RegExp(`^${recipient}\\.[A-Za-z0-9_-]{22}$`));
			const signature = each.searchParams.get(WAITING_TOKEN_QUERY_PARAM)!;
			expect(validateUrlSignature(signature, each, HMAC_SECRET)).toBe(true);
		}
		const signature = link.searchParams.get(WAITING_TOKEN_QUERY_PARAM)!;
		const otherNode = new URL(link.href.replace('/1/sms?', '/1/other?'));
		expect(validateUrlSignature(signature, otherNode, HMAC_SECRET)).toBe(false);
		// Its length: the base URL, the execution id and the node id (a UUID in n8n: 36), plus 77,
		// plus the recipient's code: "k=", its position, "." and 22 characters, and "&".
		expect(link.href.length).toBe(
			'http://127.0.0.1:5678/webhookWaitingBaseUrl'.length +
				'1'.length +
				'sms'.length +
				77 +
				26 +
				1,
		);

		expect(result.run.status).toBe('waiting');
		expect(result.run.waitTill).toEqual(WAIT_INDEFINITELY);
		// While waiting, the node shows its input.
		expect(result.items.map((item) => item.json)).toEqual(ORDERS);
		expect(JSON.stringify(request.body)).not.toContain(TOKEN);
		expect(result.serialized).not.toContain(TOKEN);
	});

	test('more items than Send’s default batch size still go out in one request', async () => {
		const items = Array.from({ length: 150 }, (_, i) => ({
			phone: `2547${String(10000000 + i)}`,
			amount: i,
			order: `O-${i}`,
		}));
		const result = await waitingRun(approval(), items);
		expect(result.error).toBeUndefined();
		expect(sendRequests()).toHaveLength(1);
		expect((sendRequests()[0].body as { envelopes: unknown[] }).envelopes).toHaveLength(150);
	});

	test('Limit Wait Time: the run waits until then at most', async () => {
		const before = Date.now();
		const result = await waitingRun(
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' },
					},
				},
			}),
		);
		const until = result.run.waitTill!.getTime();
		expect(until).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
		expect(until).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);

		const at = new Date(Date.now() + 86_400_000).toISOString();
		const atTime = await waitingRun(
			approval({
				options: {
					limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: at } },
				},
			}),
		);
		expect(atTime.run.waitTill!.toISOString()).toBe(at);
	});
});

describe('SMS Messaging Approval: refused before anything is sent', () => {
	test.each([
		[
			'a bad number',
			approval(),
			[ORDERS[0], { ...ORDERS[1], phone: 'call me' }],
			/Recipient Number/,
		],
		[
			'an empty message',
			approval({ message: '={{ $json.text }}' }),
			[{ ...ORDERS[0], text: '' }],
			/Message/,
		],
		[
			'two Sender IDs (one approval is one request)',
			approval({ senderId: '={{ $json.sender }}' }),
			[
				{ ...ORDERS[0], sender: 'ACME' },
				{ ...ORDERS[1], sender: 'OTHER' },
			],
			/one Sender ID/,
		],
		[
			'a time limit that has passed',
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' },
					},
				},
			}),
			ORDERS,
			/Max Date and Time .* has passed/,
		],
		[
			'a wait of 0',
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 0, resumeUnit: 'hours' },
					},
				},
			}),
			ORDERS,
			/Amount must be a number above 0/,
		],
		[
			'a wait of a billion days (a date past any n8n stores)',
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 1e9, resumeUnit: 'days' },
					},
				},
			}),
			ORDERS,
			/^Limit Wait Time: Amount 1000000000 days ends after the year 2999/,
		],
		[
			'a Max Date and Time in the year 3000 (n8n takes it for no limit)',
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'atSpecifiedTime', maxDateAndTime: '3000-06-01T00:00:00Z' },
					},
				},
			}),
			ORDERS,
			/^Limit Wait Time: Max Date and Time 3000-06-01T00:00:00.000Z is after the year 2999/,
		],
	])(
		'%s: no request, no wait, an error naming the field',
		async (_, parameters, items, message) => {
			const result = await waitingRun(parameters, items);
			expect(result.error?.message).toMatch(message);
			expect(sendRequests()).toHaveLength(0);
			expect(result.run.waitTill).toBeUndefined();
			expect(result.run.status).toBe('error');
		},
	);

	test('a bad number names its item', async () => {
		const result = await waitingRun(approval(), [ORDERS[0], { ...ORDERS[1], phone: 'x' }]);
		expect(result.error?.context).toMatchObject({ itemIndex: 1 });
	});
});

describe('SMS Messaging Approval: a send that is not provably sent fails the node', () => {
	test('refused by the API: the node fails, nothing waits', async () => {
		ctx.sim.inject({ host: 'send', status: 401 });
		const result = await waitingRun();
		expect(result.error?.message).toBeDefined();
		expect(result.error?.message).toMatch(/ \[every item of this run\]$/);
		expect(result.error?.description).toContain(
			'Not sent (2 messages): items 0-1. These can be sent again.',
		);
		expect(result.run.waitTill).toBeUndefined();
		expect(result.run.status).toBe('error');
		expect(result.serialized).not.toContain(TOKEN);
	});

	test('outcome unknown (connection lost after the API processed it, the SMS list unreadable): fails, says so', async () => {
		ctx.sim.inject({ host: 'send', network: 'reset', process: true });
		ctx.sim.inject({ path: '/sms', status: 500, count: Infinity });
		const result = await waitingRun();
		expect(result.error?.message).toMatch(/^May have been sent/);
		expect(result.error?.description).toContain('May have been sent');
		expect(result.run.waitTill).toBeUndefined();
		expect(sendRequests()).toHaveLength(1);
	});

	test('one of two messages sent, the other unknown: fails, and says a retry sends nothing', async () => {
		ctx.sim.inject({ host: 'send', dropOutgoings: 1 });
		ctx.sim.inject({ path: '/sms', status: 500, count: Infinity });
		const result = await waitingRun();
		expect(result.run.waitTill).toBeUndefined();
		const description = result.error?.description ?? '';
		expect(description).toContain(
			'Sent and charged (1 message): items 0. A retry of this execution sends nothing; a new execution sends them again.',
		);
		expect(description).toContain('May have been sent (1 message): items 1.');
		expect(description).not.toContain('A retry of this execution skips them');
	});

	test('Retry On Fail after one of two messages went out: the next tries send nothing and say what went out', async () => {
		ctx.sim.inject({ host: 'send', dropOutgoings: 1 });
		ctx.sim.inject({ path: '/sms', status: 500, count: Infinity });
		const result = await retriedRun(3);
		// The one request that reached the API: the first try's.
		expect(sendRequests()).toHaveLength(1);
		expect(result.run.waitTill).toBeUndefined();
		expect(result.error?.message).toBe(
			'Not sent again: an earlier try of this run sent messages [every item of this run]',
		);
		expect(result.error?.description).toBe(
			'Sent by an earlier try: items 0.\nMay have been sent by an earlier try: items 1.\nNothing was sent by this try, so that no one gets the message twice. A new execution sends every item again.',
		);
	});

	test('Retry On Fail after a send the API refused (nothing went out): the next try sends, and the run waits', async () => {
		ctx.sim.inject({ host: 'send', status: 401 });
		const result = await retriedRun(2);
		expect(result.error).toBeUndefined();
		expect(sendRequests().map((request) => request.status)).toEqual([401, 202]);
		expect(ctx.sim.sentEnvelopes).toHaveLength(2);
		expect(result.run.waitTill).toBeDefined();
	});

	test('connection lost after the API processed it, then found in the SMS list: sent, so it waits', async () => {
		ctx.sim.inject({ host: 'send', network: 'reset', process: true });
		const result = await waitingRun();
		expect(result.error).toBeUndefined();
		expect(result.run.waitTill).toBeDefined();
		expect(sendRequests()).toHaveLength(1);
	});

	test('Continue On Fail: every item comes out as the error, paired, and nothing waits', async () => {
		ctx.sim.inject({ host: 'send', status: 401 });
		const result = await runWorkflow({
			nodeType: APPROVAL_TYPE,
			parameters: approval(),
			items: ORDERS,
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.run.waitTill).toBeUndefined();
		expect(result.run.status).toBe('success');
		expect(result.items).toHaveLength(2);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(result.items.every((item) => typeof item.json.error === 'string')).toBe(true);
	});
});

describe('SMS Messaging Approval: the page behind the link', () => {
	let waiting: RunResult;

	test('GET shows the recipient’s message and one Approve button, as plain HTML', async () => {
		waiting = await waitingRun(
			approval({ message: '=<b>Refund</b> {{ $json.amount }} & "close" {{ $json.order }}?' }),
		);
		const { response, returned, resumed } = await answer(waiting, {
			method: 'GET',
			link: linksSent()[0],
		});
		expect(resumed).toBeUndefined();
		expect(returned).toEqual({ noWebhookResponse: true });
		expect(response.statusCode).toBe(200);
		expect(response.headers['content-type']).toMatch(/^text\/html/);
		expectPageHeaders(response);
		const html = response.body!;
		expect(html).toContain('name="viewport"');
		expect(html).toContain('&lt;b&gt;Refund&lt;/b&gt; 120 &amp; &quot;close&quot; A-1?');
		expect(html).toContain('<form method="post" enctype="multipart/form-data">');
		expect(html.match(/<button /g)).toHaveLength(1);
		expect(html).toContain('name="approved" value="true">Approve</button>');
		expect(html).not.toMatch(/<script|Decline/);
		expect(html).not.toContain(TOKEN);
	});

	test('each recipient’s page shows the message that recipient was sent', async () => {
		waiting = await waitingRun();
		const [first, second] = linksSent();
		const pageOf = async (link: string) =>
			(await answer(waiting, { method: 'GET', link })).response.body!;
		expect(await pageOf(first)).toContain('Refund 120 EUR to order A-1?');
		const secondPage = await pageOf(second);
		expect(secondPage).toContain('Refund 80 EUR to order B-2?');
		expect(secondPage).not.toContain('A-1');
	});

	test('Approve and Decline with own labels: both buttons', async () => {
		waiting = await waitingRun(
			approval({
				approvalOptions: {
					values: { approvalType: 'double', approveLabel: 'Yes, send', disapproveLabel: 'No' },
				},
			}),
		);
		const { response } = await answer(waiting, { method: 'GET', link: linksSent()[0] });
		expect(response.body).toContain('name="approved" value="true">Yes, send</button>');
		expect(response.body).toContain('name="approved" value="false" class="decline">No</button>');
	});
});

describe('SMS Messaging Approval: the answer resumes the run', () => {
	test('Approve (a POST from the page): one item with data.approved true', async () => {
		const waiting = await waitingRun();
		const { response, resumed, items } = await answer(waiting, {
			method: 'POST',
			link: linksSent()[0],
			body: { approved: 'true' },
		});
		expect(response.statusCode).toBe(200);
		expect(response.body).toContain('“Approve” was recorded');
		expect(resumed!.status).toBe('success');
		expect(resumed!.finished).toBe(true);
		expect(items!.map((item) => item.json)).toEqual([
			{ data: { approved: true }, answeredBy: '254712345678' },
		]);
		expect(JSON.stringify(resumed)).not.toContain(TOKEN);
	});

	test('Decline: data.approved false', async () => {
		const waiting = await waitingRun(
			approval({ approvalOptions: { values: { approvalType: 'double' } } }),
		);
		const { response, items } = await answer(waiting, {
			method: 'POST',
			link: linksSent()[0],
			body: { approved: 'false' },
		});
		expect(response.body).toContain('“Decline” was recorded');
		expect(items!.map((item) => item.json)).toEqual([
			{ data: { approved: false }, answeredBy: '254712345678' },
		]);
	});

	test('a GET with the choice in its query (a link scanner, a preview) records nothing: it shows the page', async () => {
		const waiting = await waitingRun();
		for (const query of [{ approved: 'true' }, { approved: 'false' }]) {
			const { response, resumed } = await answer(waiting, {
				method: 'GET',
				link: linksSent()[0],
				query,
			});
			expect(resumed).toBeUndefined();
			expect(response.statusCode).toBe(200);
			expect(response.body).toContain('<form method="post" enctype="multipart/form-data">');
		}
		expect(waiting.run.data.waitTill).toEqual(WAIT_INDEFINITELY);
		// The wait goes on: a POST still answers.
		const { items } = await answer(waiting, {
			method: 'POST',
			link: linksSent()[0],
			body: { approved: 'true' },
		});
		expect(items!.map((item) => item.json)).toEqual([
			{ data: { approved: true }, answeredBy: '254712345678' },
		]);
	});

	test.each([
		['Decline when only Approve is offered', { approved: 'false' }],
		['an unknown choice', { approved: 'maybe' }],
		['no choice', {}],
	])('%s: nothing is recorded, the page comes back with 400', async (_, body) => {
		const waiting = await waitingRun();
		const { response, resumed } = await answer(waiting, {
			method: 'POST',
			link: linksSent()[0],
			body,
		});
		expect(resumed).toBeUndefined();
		expect(response.statusCode).toBe(400);
		expect(response.body).toContain('<form method="post" enctype="multipart/form-data">');
		expect(waiting.run.data.waitTill).toEqual(WAIT_INDEFINITELY);
	});

	test('the time limit passes first: the run goes on with one item that says so, not approved', async () => {
		const waiting = await waitingRun(
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'minutes' },
					},
				},
			}),
		);
		const { resumed, items } = await timeOut(waiting);
		expect(resumed.status).toBe('success');
		expect(items.map((item) => item.json)).toEqual([TIMED_OUT]);
		// Nothing more was sent.
		expect(sendRequests()).toHaveLength(1);
	});

	test('the time limit of a second approval whose input was approved (two-person sign-off): not approved', async () => {
		// The first approval's output is the second's input.
		const firstApproved = ORDERS.map((order) => ({
			...order,
			data: { approved: true },
			answeredBy: '254700000001',
		}));
		const waiting = await waitingRun(
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'minutes' },
					},
				},
			}),
			firstApproved,
		);
		const { items } = await timeOut(waiting);
		expect(items.map((item) => item.json)).toEqual([TIMED_OUT]);
	});
});

describe('SMS Messaging Approval: every page a link opens defends itself', () => {
	const post = (link: string, body: Record<string, unknown>) => ({
		method: 'POST' as const,
		link,
		body,
	});
	const photoForm = approval({
		responseType: 'customForm',
		formFields: {
			values: [{ fieldLabel: 'Photo', fieldType: 'file', acceptFileTypes: 'image/*' }],
		},
		options: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' },
			},
		},
	});

	afterEach(() => jest.useRealTimers());

	/** The link with another code in it. */
	const forged = (link: string) => {
		const url = new URL(link);
		url.searchParams.set('k', `0.${'A'.repeat(22)}`);
		return url.href;
	};

	test('the approval page, a refused choice, the confirmation, "already answered", an invalid link', async () => {
		const waiting = await waitingRun();
		const [link, second] = linksSent();
		const pages: Array<[string, Answer, number]> = [
			['the page', await answer(waiting, { method: 'GET', link }), 200],
			['a refused choice', await answer(waiting, post(link, { approved: 'maybe' })), 400],
			['an invalid link', await answer(waiting, { method: 'GET', link: forged(link) }), 403],
		];
		const [first, again] = await Promise.all([
			answer(waiting, post(link, { approved: 'true' })),
			answer(waiting, post(second, { approved: 'true' })),
		]);
		pages.push(['the confirmation', first, 200], ['already answered', again, 409]);
		for (const [, { response }, status] of pages) {
			expect(response.statusCode).toBe(status);
			expectPageHeaders(response);
		}
	});

	test('a form with a file field (its script allowed by hash), a refused answer, and "too late" on a clock the test sets', async () => {
		const waiting = await waitingRun(photoForm);
		const [link] = linksSent();
		const page = await answer(waiting, { method: 'GET', link });
		expect(page.response.body).toContain('<script>');
		expect(expectPageHeaders(page.response).get('script-src')).toMatch(/^'sha256-[^']+'$/);
		const refused = await answer(waiting, post(link, {}));
		expect(refused.response.statusCode).toBe(400);
		expectPageHeaders(refused.response);
		// Only Date moves: n8n's engine keeps its real timers.
		jest.useFakeTimers({
			doNotFake: [
				'setTimeout',
				'clearTimeout',
				'setInterval',
				'clearInterval',
				'setImmediate',
				'clearImmediate',
				'nextTick',
				'queueMicrotask',
				'hrtime',
				'performance',
			],
		});
		jest.setSystemTime(Date.now() + 3_600_000 + 1_000);
		const late = await answer(waiting, post(link, { whole: '1' }));
		expect(late.response.statusCode).toBe(410);
		expect(late.response.body).toContain('This request has expired');
		expect(late.resumed).toBeUndefined();
		expectPageHeaders(late.response);
	});

	test('an html field with an image: https images only, and nothing more', async () => {
		const waiting = await waitingRun(
			approval({
				responseType: 'customForm',
				formFields: {
					values: [
						{
							fieldType: 'html',
							html: '<img src="https://example.com/meter.png" alt="Meter"><img src="http://example.com/x.png">',
						},
						{ fieldLabel: 'Reading', fieldType: 'number' },
					],
				},
			}),
		);
		const { response } = await answer(waiting, { method: 'GET', link: linksSent()[0] });
		expect(response.body).toContain('<img src="https://example.com/meter.png" alt="Meter"><img>');
		const headers = { ...response.headers };
		const policy = headers['content-security-policy'];
		expect(policy).toContain('; img-src https:;');
		// Apart from images, the same policy as every page.
		response.headers['content-security-policy'] = policy.replace('; img-src https:', '');
		expectPageHeaders(response);
	});

	test('the policy is the form’s, never made from the page: an image the sanitizer emptied allows no images, and what a post gives back adds nothing', async () => {
		const waiting = await waitingRun(
			approval({
				responseType: 'customForm',
				formFields: {
					values: [
						{
							fieldType: 'html',
							html: '<img src="x" onerror="alert(1)"><img src="http://example.com/x.png">',
						},
						{ fieldLabel: 'Reading', fieldType: 'text', requiredField: true },
						{ fieldLabel: 'Photo', fieldType: 'file' },
					],
				},
			}),
		);
		const [link] = linksSent();
		const page = await answer(waiting, { method: 'GET', link });
		expect(page.response.body).toContain('<div class="html"><img><img></div>');
		const refused = await answer(
			waiting,
			// No `whole`: refused as cut, the text given back in its field.
			post(link, { 'field-1': '<script>alert(1)</script><img src=x>' }),
		);
		expect(refused.response.statusCode).toBe(400);
		expect(refused.response.body).toContain(
			'value="&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x&gt;"',
		);
		for (const { response } of [page, refused]) {
			expect(response.headers['content-security-policy']).not.toContain('img-src');
			expectPageHeaders(response);
		}
		expect(refused.response.headers['content-security-policy']).toBe(
			page.response.headers['content-security-policy'],
		);
	});
});

describe('SMS Messaging Approval: a link answers only its own wait', () => {
	const post = (link: string | undefined, approved = 'true') => ({
		method: 'POST' as const,
		link,
		body: { approved },
	});

	/** Refused with the 403 page; nothing recorded, the run still waits. */
	function expectRefused({ response, returned, resumed }: Answer, waiting: RunResult) {
		expect(response.statusCode).toBe(403);
		expect(response.body).toContain('This link is not valid');
		expect(response.body).not.toContain('<form');
		expect(returned).toEqual({ noWebhookResponse: true });
		expect(resumed).toBeUndefined();
		expect(waiting.run.data.waitTill).toEqual(WAIT_INDEFINITELY);
	}

	test('a link of another wait (another execution, or an earlier run of the node in a loop): refused; its own link still answers', async () => {
		// Both waits have the same execution id and node id here, as two waits of one node in a
		// loop have: only the node's own check tells them apart.
		const first = await waitingRun();
		const [firstLink] = linksSent();
		const second = await waitingRun();
		const [secondLink] = linksSent();
		expect(new URL(firstLink).pathname).toBe(new URL(secondLink).pathname);

		expectRefused(await answer(second, post(firstLink)), second);
		expectRefused(await answer(second, { method: 'GET', link: firstLink }), second);
		const { items } = await answer(second, post(secondLink));
		expect(items!.map((item) => item.json)).toEqual([
			{ data: { approved: true }, answeredBy: '254712345678' },
		]);
		expect(first.run.data.waitTill).toEqual(WAIT_INDEFINITELY);
	});

	test.each([
		['no code', (link: URL) => link.searchParams.delete('k')],
		[
			'one character of the code changed',
			(link: URL) => {
				const value = link.searchParams.get('k')!;
				const last = value.endsWith('A') ? 'B' : 'A';
				link.searchParams.set('k', `${value.slice(0, -1)}${last}`);
			},
		],
		[
			'the code cut short',
			(link: URL) => link.searchParams.set('k', link.searchParams.get('k')!.slice(0, -1)),
		],
		[
			'the code of recipient 0 with the position of recipient 1',
			(link: URL) => link.searchParams.set('k', link.searchParams.get('k')!.replace(/^0\./, '1.')),
		],
		[
			'a position with a leading zero',
			(link: URL) => link.searchParams.set('k', `0${link.searchParams.get('k')}`),
		],
		[
			'a recipient the approval does not have',
			(link: URL) => link.searchParams.set('k', link.searchParams.get('k')!.replace(/^0\./, '2.')),
		],
	])('%s: refused, nothing recorded', async (_, change) => {
		const waiting = await waitingRun();
		const link = new URL(linksSent()[0]);
		change(link);
		expectRefused(await answer(waiting, post(link.href)), waiting);
		expectRefused(await answer(waiting, { method: 'GET', link: link.href }), waiting);
	});

	test('each recipient has their own link; the output says which number answered', async () => {
		const waiting = await waitingRun();
		const [, secondLink] = linksSent();
		const { response, items } = await answer(waiting, post(secondLink));
		expect(response.statusCode).toBe(200);
		expect(items!.map((item) => item.json)).toEqual([
			{ data: { approved: true }, answeredBy: '254799000111' },
		]);
	});

	test('two answers at the same moment (a double submit, or two recipients at once): one resumes the run', async () => {
		const waiting = await waitingRun(
			approval({ approvalOptions: { values: { approvalType: 'double' } } }),
		);
		const [firstLink, secondLink] = linksSent();
		const answers = await Promise.all([
			answer(waiting, post(firstLink, 'true')),
			answer(waiting, post(firstLink, 'true')),
			answer(waiting, post(secondLink, 'false')),
		]);
		const resumed = answers.filter((each) => each.resumed !== undefined);
		expect(resumed).toHaveLength(1);
		expect(resumed[0].items!.map((item) => item.json)).toEqual([
			{ data: { approved: true }, answeredBy: '254712345678' },
		]);
		const others = answers.filter((each) => each.resumed === undefined);
		expect(others.map((each) => each.response.statusCode)).toEqual([409, 409]);
		expect(others.every((each) => each.response.body!.includes('Already answered'))).toBe(true);
	});
});
