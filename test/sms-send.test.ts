import { runWorkflow } from './helpers/n8n';
import { TOKEN, useSimulator } from './helpers/simulator';

const ctx = useSimulator();

const send = (options: Record<string, unknown> = {}) => ({
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '=Hi {{ $json.name }}, your order {{ $json.order }} has shipped.',
	thirdPartyRef: '={{ $json.order }}',
	...options,
});

const customers = (count: number) =>
	Array.from({ length: count }, (_, i) => ({
		name: `Customer ${i}`,
		phone: `2547${String(10000000 + i)}`,
		order: `ORD-${i}`,
	}));

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');

describe('SMS → Send', () => {
	test('maps each item to an envelope, read per item, and pairs each result to its item', async () => {
		const items = [
			{ name: 'Amina', phone: '+254 (712) 345-678', order: 'A-1' },
			{ name: 'Brian', phone: '00254 799 000 111', order: 'B-2' },
			{ name: 'Chen', phone: '254733222111', order: '' },
		];
		const result = await runWorkflow({
			parameters: send(),
			items,
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		const [request] = sendRequests();
		expect(sendRequests()).toHaveLength(1);
		expect(request.body).toEqual({
			senderId: 'ACME',
			envelopes: [
				{
					number: '254712345678',
					message: 'Hi Amina, your order A-1 has shipped.',
					thirdPartyRef: 'A-1',
				},
				{
					number: '254799000111',
					message: 'Hi Brian, your order B-2 has shipped.',
					thirdPartyRef: 'B-2',
				},
				// An empty reference is left out of the envelope.
				{ number: '254733222111', message: 'Hi Chen, your order  has shipped.' },
			],
		});
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(result.items.map((item) => item.json.recipient)).toEqual([
			'254712345678',
			'254799000111',
			'254733222111',
		]);
		expect(result.items[0].json).toMatchObject({
			senderId: 'ACME',
			status: 'SENT',
			credits: 1,
			thirdPartyRef: 'A-1',
		});
		expect(result.items.every((item) => item.json.balance === ctx.sim.balance)).toBe(true);
		expect(ctx.sim.balance).toBe(100000 - 3);
	});

	test('250 items go out in 3 requests of 100, 100 and 50 envelopes by default', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: customers(250),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		// The first request goes alone, the other two together, so they may reach the API in either order.
		expect(sendRequests()[0].body.envelopes.length).toBe(100);
		expect(sendRequests().map((r) => r.body.envelopes.length)).toEqual(
			expect.arrayContaining([100, 100, 50]),
		);
		expect(sendRequests()).toHaveLength(3);
		expect(result.items).toHaveLength(250);
		expect(result.items.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
			Array.from({ length: 250 }, (_, i) => i),
		);
		expect(result.items.map((item) => item.json.thirdPartyRef)).toEqual(
			customers(250).map((c) => c.order),
		);
		// Each item carries the balance left after the request that carried it; requests 2 and 3 run in
		// parallel, so which of them the API processed last is not fixed.
		expect(result.items[0].json.balance).toBe(100000 - 100);
		// The later of the two leaves 99750; the earlier 99800 (items 100-199 first) or 99850 (200-249).
		const balances = [result.items[100].json.balance, result.items[249].json.balance];
		expect([
			[99800, 99750],
			[99750, 99850],
		]).toContainEqual(balances);
		expect(new Set(result.items.slice(100, 200).map((item) => item.json.balance)).size).toBe(1);
		expect(new Set(result.items.slice(200).map((item) => item.json.balance)).size).toBe(1);
	});

	test('the batch size option sets the envelopes per request', async () => {
		await runWorkflow({
			parameters: send({ options: { batchSize: 40 } }),
			items: customers(90),
			credentials: ctx.credentials,
		});
		// Requests 2 and 3 go out together and may reach the API in either order.
		expect(sendRequests().map((r) => r.body.envelopes.length)).toEqual(
			expect.arrayContaining([40, 40, 10]),
		);
		expect(sendRequests()).toHaveLength(3);
	});

	test('items with different Sender IDs go in separate requests', async () => {
		const items = customers(4).map((c, i) => ({ ...c, sender: i % 2 ? 'NOTIFY' : 'ACME' }));
		const result = await runWorkflow({
			parameters: send({ senderId: '={{ $json.sender }}' }),
			items,
			credentials: ctx.credentials,
		});
		expect(sendRequests().map((r) => [r.body.senderId, r.body.envelopes.length])).toEqual([
			['ACME', 2],
			['NOTIFY', 2],
		]);
		expect(result.items.map((item) => item.json.senderId)).toEqual([
			'ACME',
			'NOTIFY',
			'ACME',
			'NOTIFY',
		]);
	});

	test('a long message is charged per part, as the API reports it', async () => {
		const result = await runWorkflow({
			parameters: send({ message: 'x'.repeat(200) }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.items.map((item) => item.json.credits)).toEqual([2, 2]);
		expect(ctx.sim.balance).toBe(100000 - 4);
	});
});

describe('SMS → Send: bad input is refused before anything is sent', () => {
	const cases: Array<[string, object, RegExp]> = [
		[
			'a number that is not digits',
			{ phone: '0712-abc' },
			/^Recipient Number is not a phone number: "0712-abc"$/,
		],
		['an empty number', { phone: '' }, /^Recipient Number is empty$/],
		['an empty message', { text: '   ' }, /^Message is empty$/],
		[
			'a Sender ID over 11 characters',
			{ sender: 'TWELVECHARSX' },
			/^Sender ID is 12 characters long; the API allows 1 to 11$/,
		],
	];

	test.each(cases)(
		'%s stops the whole run, naming the item and the field',
		async (_, bad, message) => {
			const items = [
				{ phone: '254712345678', text: 'Hello', sender: 'ACME' },
				{ phone: '254712345678', text: 'Hello', sender: 'ACME', ...bad },
				{ phone: '254712345679', text: 'Hello', sender: 'ACME' },
			];
			const result = await runWorkflow({
				parameters: send({ senderId: '={{ $json.sender }}', message: '={{ $json.text }}' }),
				items,
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toMatch(message);
			expect(result.items).toEqual([]);
			expect(ctx.sim.requests).toEqual([]);
		},
	);

	test('with Continue On Fail the bad item becomes an error item and the others are sent', async () => {
		const items = [
			{ phone: '254712345678', text: 'Hello' },
			{ phone: 'call me', text: 'Hello' },
			{ phone: '254712345679', text: '' },
			{ phone: '254712345670', text: 'Hello' },
		];
		const result = await runWorkflow({
			parameters: send({ message: '={{ $json.text }}' }),
			items,
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(4);
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(result.items[1].json.error).toBe('Recipient Number is not a phone number: "call me"');
		expect(result.items[2].json.error).toBe('Message is empty');
		expect(result.items[0].json.status).toBe('SENT');
		expect(result.items[3].json.status).toBe('SENT');
		expect(sendRequests()).toHaveLength(1);
		expect(sendRequests()[0].body.envelopes.map((e: { number: string }) => e.number)).toEqual([
			'254712345678',
			'254712345670',
		]);
	});

	test.each([
		['batchSize', '={{ 0 }}', 'Batch Size must be a whole number from 1 to 1000, got 0'],
		['batchSize', '={{ "abc" }}', 'Batch Size must be a whole number from 1 to 1000, got "abc"'],
		['maxAttempts', '={{ 11 }}', 'Max Attempts must be a whole number from 1 to 10, got 11'],
		[
			'maxMessages',
			'={{ -1 }}',
			'Max Messages per Run must be a whole number of 0 or more, got -1',
		],
		['dryRun', '={{ "yes" }}', 'Dry Run must be true or false, got "yes"'],
		[
			'onRequestFailure',
			'={{ "retry" }}',
			'After a Failed Request must be one of stop, continue, got "retry"',
		],
	])(
		'an option %s set by an expression to %s is refused before anything is sent',
		async (name, value, problem) => {
			const result = await runWorkflow({
				parameters: send({ options: { [name]: value } }),
				items: customers(3),
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toBe(problem);
			expect(ctx.sim.requests).toEqual([]);
		},
	);
});

describe('SMS → Send: a refused run under Continue On Fail passes no item through as sent', () => {
	const REFUSALS: Array<[string, Record<string, unknown>, string]> = [
		[
			'Max Messages per Run exceeded',
			{ options: { maxMessages: 1 } },
			'This run would send 2 messages, more than Max Messages per Run (1)',
		],
		[
			'a Batch Size of 0 by expression',
			{ options: { batchSize: '={{ 0 }}' } },
			'Batch Size must be a whole number from 1 to 1000, got 0',
		],
		[
			'a Proxy that is not a URL',
			{ requestOptions: { proxy: 'nope' } },
			'Proxy is not a URL: "nope"',
		],
	];

	test.each(REFUSALS)(
		'%s, Continue (regular output): one error item per input item, paired, nothing sent',
		async (_what, parameters, message) => {
			const result = await runWorkflow({
				parameters: send(parameters),
				items: customers(2),
				credentials: ctx.credentials,
				onError: 'continueRegularOutput',
			});
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => [item.json, item.pairedItem])).toEqual([
				[{ error: message }, { item: 0 }],
				[{ error: message }, { item: 1 }],
			]);
			expect(ctx.sim.requests).toEqual([]);
		},
	);

	test.each(REFUSALS)(
		'%s, Continue (using error output): every input item on the error output and none on the other',
		async (_what, parameters, message) => {
			const result = await runWorkflow({
				parameters: send(parameters),
				items: customers(2),
				credentials: ctx.credentials,
				onError: 'continueErrorOutput',
			});
			expect(result.items).toEqual([]);
			expect(result.errorItems.map((item) => [item.json.error, item.pairedItem])).toEqual([
				[message, { item: 0 }],
				[message, { item: 1 }],
			]);
			expect(ctx.sim.requests).toEqual([]);
		},
	);

	test('after a failed request (Stop), the failed and the not attempted reach the error output', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow({
			// One request at a time: the second to reach the API is item 1's, and item 2's never starts.
			parameters: send({ options: { batchSize: 1, parallelRequests: 1 } }),
			items: customers(3),
			credentials: ctx.credentials,
			onError: 'continueErrorOutput',
		});
		expect(result.items.map((item) => [item.pairedItem, item.json.status])).toEqual([
			[{ item: 0 }, 'SENT'],
		]);
		expect(result.errorItems.map((item) => [item.pairedItem, item.json.error])).toEqual([
			[{ item: 1 }, 'payment required'],
			[{ item: 2 }, 'Not attempted: an earlier request of this run failed'],
		]);
		expect(sendRequests()).toHaveLength(2);
	});

	test('failed and refused items reach the error output; sent ones the regular output', async () => {
		ctx.sim.inject({ host: 'send', status: 402 });
		const result = await runWorkflow({
			parameters: send({ options: { batchSize: 1, onRequestFailure: 'continue' } }),
			items: [{ phone: '254712345678' }, { phone: 'call me' }, { phone: '254712345679' }],
			credentials: ctx.credentials,
			onError: 'continueErrorOutput',
		});
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 2 }]);
		expect(result.errorItems.map((item) => [item.pairedItem, item.json.error])).toEqual([
			[{ item: 0 }, 'payment required'],
			[{ item: 1 }, 'Recipient Number is not a phone number: "call me"'],
		]);
	});
});

describe('SMS → Send: API errors', () => {
	test('402 states the balance and the credits required', async () => {
		ctx.sim.balance = 2;
		const result = await runWorkflow({
			parameters: send(),
			items: customers(3),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Insufficient credits [every item of this run]');
		expect(result.error?.description).toContain(
			'Insufficient balance: balance 2 credits, required 3 credits',
		);
		expect(result.error?.description).toContain('does not have enough credits');
		expect(result.error?.httpCode).toBe('402');
		expect(result.error?.description).toMatch(/For the API's support: request ID [0-9a-f-]{36}/);
	});

	test('401: sentences naming the credential and its API Token field, the header in the details; the token never shows', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: { ...ctx.credentials, apiToken: 'wrong-token-123' },
		});
		// Each thing once: the request and why, the token's fix, then the run's account.
		expect(result.error?.message).toBe('Authentication failed [every item of this run]');
		expect(result.error?.context).not.toHaveProperty('itemIndex');
		expect(result.error?.description?.split('\n')).toEqual([
			'Request 1 of 1, items 0: Authentication failed.',
			'The API did not accept the API Token of the credential "SMS Messaging account": correct its API Token field, or create a new token in your Messaging Service account and enter that.',
			'Details from the API: Authorization: missing or invalid API token.',
			expect.stringMatching(/^For the API's support: request ID .*\.$/),
			'Not sent (1 message): items 0. These can be sent again.',
		]);
		expect(result.serialized).not.toContain('wrong-token-123');
	});

	test('a server that echoes the token in its error gets it redacted', async () => {
		ctx.sim.inject({ host: 'send', status: 400, echoAuth: true });
		const result = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Request with Bearer *** failed [every item of this run]');
		expect(result.error?.description).toContain('Rejected credentials: Bearer ***');
		expect(result.serialized).not.toContain(TOKEN);
	});

	test('a request failing after others went out says exactly which items were sent', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow({
			// One request at a time, so that the second request to reach the API is batch 2.
			parameters: send({ options: { batchSize: 10, parallelRequests: 1 } }),
			items: customers(30),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('payment required');
		const description = result.error?.description ?? '';
		expect(description).toContain('Request 2 of 3, items 10-19: payment required.');
		expect(description).toContain('Sent and charged (10 messages): items 0-9.');
		// Not sent and not attempted, each item in one sentence only.
		expect(description).toContain('Not sent (10 messages): items 10-19. These can be sent again.');
		expect(description).toContain(
			'Not attempted, as the run stopped first (10 messages): items 20-29. These can be sent again.',
		);
		expect(sendRequests().map((r) => r.status)).toEqual([202, 402]);
		expect(ctx.sim.sentEnvelopes).toHaveLength(10);
	});

	test('with Continue On Fail a failed request gives error items for its items and the rest go on', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow({
			// One request at a time, so that the second request to reach the API is batch 2.
			parameters: send({
				options: { batchSize: 10, onRequestFailure: 'continue', parallelRequests: 1 },
			}),
			items: customers(30),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(30);
		expect(result.items.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
			Array.from({ length: 30 }, (_, i) => i),
		);
		const failed = result.items.filter((item) => item.json.error);
		expect(failed.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
			Array.from({ length: 10 }, (_, i) => 10 + i),
		);
		expect(failed[0].json.error).toBe('payment required');
		expect(sendRequests().map((r) => r.status)).toEqual([202, 402, 202]);
		expect(ctx.sim.sentEnvelopes).toHaveLength(20);
	});

	test('an unapproved Sender ID is refused by the API with its reason', async () => {
		const result = await runWorkflow({
			parameters: send({ senderId: 'NEWBRAND' }),
			items: customers(1),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Invalid parameters [every item of this run]');
		expect(result.error?.description).toContain(
			'senderId: NEWBRAND is not an approved Sender ID of this account',
		);
	});
});
