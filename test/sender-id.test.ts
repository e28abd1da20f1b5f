import { loadedNodeDescription, runWorkflow } from './helpers/n8n';
import { TOKEN, useSimulator } from './helpers/simulator';

const ctx = useSimulator();

const create = (options: Record<string, unknown> = {}) => ({
	resource: 'senderId',
	operation: 'create',
	name: 'ACMESHOP',
	purpose: 'TRANSACTIONAL',
	access: 'PRIVATE',
	sample: 'Your order 1234 has shipped.',
	...options,
});

const update = (options: Record<string, unknown> = {}) => ({
	...create(),
	operation: 'update',
	id: 1,
	...options,
});

describe('Sender ID → Create', () => {
	test('registers the Sender ID, which comes back PENDING', async () => {
		const result = await runWorkflow({ parameters: create(), credentials: ctx.credentials });
		expect(result.error).toBeUndefined();
		const [request] = ctx.sim.requests;
		expect(`${request.method} ${request.path}`).toBe('POST /sender-ids');
		expect(request.body).toEqual({
			name: 'ACMESHOP',
			purpose: 'TRANSACTIONAL',
			access: 'PRIVATE',
			sample: 'Your order 1234 has shipped.',
		});
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({
			id: 3,
			name: 'ACMESHOP',
			status: 'PENDING',
			access: 'PRIVATE',
		});
		expect(result.items[0].json.addedBy).toMatchObject({ firstName: 'Sim' });
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('one Sender ID per input item, fields read per item', async () => {
		const result = await runWorkflow({
			parameters: create({ name: '={{ $json.brand }}', access: 'PUBLIC' }),
			items: [{ brand: 'ALPHA' }, { brand: 'BETA' }],
			credentials: ctx.credentials,
		});
		expect(result.items.map((item) => [item.json.name, item.pairedItem])).toEqual([
			['ALPHA', { item: 0 }],
			['BETA', { item: 1 }],
		]);
		expect(ctx.sim.requests.map((r) => r.body.name).sort()).toEqual(['ALPHA', 'BETA']);
	});

	test('a bad item makes no request of its own and stops the run; the other items go out', async () => {
		// n8n's routing starts every item's request without waiting for the others.
		const result = await runWorkflow({
			parameters: create({ name: '={{ $json.brand }}' }),
			items: [{ brand: 'GOOD' }, { brand: 'MUCH-TOO-LONG-NAME' }, { brand: 'FINE' }],
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Name is 18 characters long; the API allows 1 to 11');
		expect(ctx.sim.requests.map((r) => r.body.name).sort()).toEqual(['FINE', 'GOOD']);
	});

	test.each([
		['purpose', 'SPAM', 'Purpose must be one of NOTIFICATION, PROMOTIONAL, TRANSACTIONAL'],
		['access', 'secret', 'Access must be one of PRIVATE, PUBLIC'],
	])(
		'a %s of %j set by an expression is refused before any request',
		async (field, value, problem) => {
			const result = await runWorkflow({
				parameters: create({ [field]: '={{ $json.value }}' }),
				items: [{ value }],
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toBe(`${problem}, got ${JSON.stringify(value)}`);
			expect(ctx.sim.requests).toEqual([]);
		},
	);

	test('a 503 is retried once the API is back, and the Sender ID is registered once', async () => {
		ctx.sim.inject({ path: '/sender-ids', status: 503, retryAfter: 0 });
		const result = await runWorkflow({ parameters: create(), credentials: ctx.credentials });
		expect(result.error).toBeUndefined();
		expect(ctx.sim.requests.map((r) => r.status)).toEqual([503, 201]);
		expect(ctx.sim.senderIds.filter((s) => s.name === 'ACMESHOP')).toHaveLength(1);
	});

	test('a connection closed after the API got the request is not retried, and says what to check', async () => {
		ctx.sim.inject({ path: '/sender-ids', network: 'reset', process: true });
		const result = await runWorkflow({ parameters: create(), credentials: ctx.credentials });
		expect(result.error?.message).toBe(
			'The request failed after it may have reached the API: the connection was closed before the API answered',
		);
		expect(result.error?.description).toContain('may have been registered');
		expect(ctx.sim.requests).toHaveLength(1);
		expect(ctx.sim.senderIds.filter((s) => s.name === 'ACMESHOP')).toHaveLength(1);
	});

	test.each([500, 502, 504, 520, 524])(
		'a %i (the API or a gateway) is not retried and says the Sender ID may have been registered',
		async (status) => {
			ctx.sim.inject({ path: '/sender-ids', status });
			const result = await runWorkflow({ parameters: create(), credentials: ctx.credentials });
			expect(result.error?.httpCode).toBe(String(status));
			expect(result.error?.description).toContain('may have been registered');
			expect(result.error?.description).not.toContain('Try again later');
			expect(ctx.sim.requests).toHaveLength(1);
		},
	);

	test('an API that cannot be reached is retried, then reported as not sent', async () => {
		const result = await runWorkflow({
			parameters: create(),
			credentials: { ...ctx.credentials, baseUrl: 'http://127.0.0.1:1/api/v3' },
		});
		expect(result.error?.message).toBe(
			'Not sent: the API could not be reached after 4 attempts: the connection was refused',
		);
		expect(result.error?.description).toBe('Nothing reached the API; running it again is safe.');
	});

	test.each([
		['TWELVECHARSX', 'is 12 characters long; the API allows 1 to 11'],
		['', 'is empty'],
	])(
		'a name of %j is refused before any request, naming the item and field',
		async (name, problem) => {
			// An expression, because n8n itself refuses a required field left empty in the editor.
			const result = await runWorkflow({
				parameters: create({ name: '={{ $json.brand }}' }),
				items: [{ brand: name }],
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toBe(`Name ${problem}`);
			expect(ctx.sim.requests).toEqual([]);
		},
	);

	test('an empty sample is refused before any request', async () => {
		const result = await runWorkflow({
			parameters: create({ sample: '={{ $json.sample }}' }),
			items: [{ sample: ' ' }],
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Sample Message is empty');
		expect(ctx.sim.requests).toEqual([]);
	});

	test('with Continue On Fail a bad item is an error item paired to it and the others are created', async () => {
		const result = await runWorkflow({
			parameters: create({ name: '={{ $json.brand }}' }),
			items: [{ brand: 'GOOD' }, { brand: 'MUCH-TOO-LONG-NAME' }, { brand: 'FINE' }],
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items).toHaveLength(3);
		expect(result.items[1].json.error).toBe('Name is 18 characters long; the API allows 1 to 11');
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(ctx.sim.requests.map((r) => r.body.name)).toEqual(['GOOD', 'FINE']);
	});

	test('with Continue (using error output) the bad item reaches the error output only', async () => {
		const result = await runWorkflow({
			parameters: create({ name: '={{ $json.brand }}' }),
			items: [{ brand: 'GOOD' }, { brand: 'MUCH-TOO-LONG-NAME' }, { brand: 'FINE' }],
			credentials: ctx.credentials,
			onError: 'continueErrorOutput',
		});
		expect(result.items.map((item) => [item.pairedItem, item.json.name])).toEqual([
			[{ item: 0 }, 'GOOD'],
			[{ item: 2 }, 'FINE'],
		]);
		expect(result.errorItems.map((item) => [item.pairedItem, item.json.error])).toEqual([
			[{ item: 1 }, 'Name is 18 characters long; the API allows 1 to 11'],
		]);
	});

	test('a server that echoes the token in its error gets it redacted, with and without Continue On Fail', async () => {
		for (const continueOnFail of [false, true]) {
			ctx.sim.inject({ path: '/sender-ids', status: 400, echoAuth: true });
			const result = await runWorkflow({
				parameters: create(),
				credentials: ctx.credentials,
				continueOnFail,
			});
			const error = continueOnFail ? result.items[0].json.error : result.error?.message;
			expect(error).toBe('Request with Bearer *** failed');
			expect(result.serialized).toContain('Rejected credentials: Bearer ***');
			expect(result.serialized).not.toContain(TOKEN);
		}
	});

	test('403 says the account lacks permission', async () => {
		ctx.sim.inject({ path: '/sender-ids', status: 403 });
		const result = await runWorkflow({ parameters: create(), credentials: ctx.credentials });
		expect(result.error?.httpCode).toBe('403');
		expect(result.error?.description).toContain(
			'The account behind this API token lacks permission for this operation.',
		);
	});

	test.each([402, 422, 500])(
		'HTTP %i gives the API message and the status hint',
		async (status) => {
			ctx.sim.inject({
				path: '/sender-ids',
				status,
				errors: [{ field: 'name', message: 'rejected by policy', rejectedValue: 'ACMESHOP' }],
			});
			const result = await runWorkflow({ parameters: create(), credentials: ctx.credentials });
			expect(result.error?.httpCode).toBe(String(status));
			expect(result.error?.description).toContain(
				'name: rejected by policy (rejected value: "ACMESHOP")',
			);
			expect(result.serialized).not.toContain(TOKEN);
			// What the provider's support asks for: the request ID, the API's code and the time.
			expect(result.error?.description).toMatch(
				/\nFor the API's support: request ID [0-9a-f-]{36}, code \d+, at \d{4}-\d\d-\d\dT[\d:.]+Z\.$/,
			);
		},
	);
});

describe('Sender ID → Update', () => {
	test('sends the id as body field senderId with the four fields', async () => {
		const result = await runWorkflow({
			parameters: update({
				id: 2,
				name: 'NOTIFY2',
				purpose: 'NOTIFICATION',
				sample: 'Reminder: visit tomorrow',
			}),
			credentials: ctx.credentials,
		});
		const [request] = ctx.sim.requests;
		expect(`${request.method} ${request.path}`).toBe('PUT /sender-ids');
		expect(request.body).toEqual({
			senderId: 2,
			name: 'NOTIFY2',
			purpose: 'NOTIFICATION',
			access: 'PRIVATE',
			sample: 'Reminder: visit tomorrow',
		});
		expect(result.items[0].json).toMatchObject({ id: 2, name: 'NOTIFY2', status: 'PENDING' });
	});

	test('a change that needs no approval keeps the Sender ID usable', async () => {
		const result = await runWorkflow({
			parameters: update({
				id: 1,
				name: 'ACME',
				purpose: 'TRANSACTIONAL',
				access: 'PUBLIC',
				sample: 'ACME sample',
			}),
			credentials: ctx.credentials,
		});
		expect(result.items[0].json).toMatchObject({ id: 1, access: 'PUBLIC', status: 'APPROVED' });
	});

	test('404 says the Sender ID does not exist', async () => {
		const result = await runWorkflow({
			parameters: update({ id: 999 }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Sender ID not found');
		expect(result.error?.description).toContain('The Sender ID 999 does not exist.');
		expect(result.error?.httpCode).toBe('404');
	});

	test('an id that is not a positive whole number (the editor starts at 0) is refused before any request', async () => {
		const result = await runWorkflow({
			parameters: update({ id: 0 }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'Sender ID Number must be a whole number of 1 or more, got 0',
		);
		expect(ctx.sim.requests).toEqual([]);
	});

	test('left empty (by an expression that gives nothing), the number is refused before any request', async () => {
		const result = await runWorkflow({
			parameters: update({ id: '' }),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Sender ID Number is empty');
		expect(ctx.sim.requests).toEqual([]);
	});

	test('the API 400 lists each invalid parameter', async () => {
		ctx.sim.inject({
			path: '/sender-ids',
			status: 400,
			errors: [
				{ field: 'purpose', message: 'not allowed for this account', rejectedValue: 'PROMOTIONAL' },
			],
		});
		const result = await runWorkflow({
			parameters: update({ purpose: 'PROMOTIONAL' }),
			credentials: ctx.credentials,
		});
		expect(result.error?.description).toContain(
			'purpose: not allowed for this account (rejected value: "PROMOTIONAL")',
		);
	});
});

describe('Sender ID: the PENDING explanation', () => {
	// The editor shows it (test/e2e/editor.e2e.ts); this pins what the description asks of it.
	test('the node asks for a PENDING hint in the output pane after Sender ID → Create runs', () => {
		const hints = loadedNodeDescription().hints ?? [];
		expect(hints).toEqual([
			expect.objectContaining({
				message: expect.stringContaining('A new Sender ID is PENDING: it cannot send SMS until'),
				location: 'outputPane',
				whenToDisplay: 'afterExecution',
				displayCondition:
					'={{ $parameter["resource"] === "senderId" && $parameter["operation"] === "create" }}',
			}),
		]);
	});
});
