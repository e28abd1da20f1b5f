// End to end: the packed package installed in a real n8n, workflows run through n8n's REST API,
// the API simulator checked for what it received. The same workflows for every n8n line.
import { startProxy } from '../helpers/proxy';
import { lineSession } from './line-session';
import {
	codeNode,
	CREATE_SENDER_ID_PER_BRAND,
	linearWorkflow,
	lines,
	outputOf,
	smsNode,
} from './n8n-rest';

const SMS = 'n8n-nodes-sms-messaging.smsMessaging';

/** A workflow: manual trigger → Code node returning `rows` (if any) → SMS Messaging. */
function workflow(
	name: string,
	credential: { id: string; name: string },
	parameters: Record<string, unknown>,
	{ rows, settings }: { rows?: string; settings?: Record<string, unknown> } = {},
) {
	return linearWorkflow(name, [
		...(rows ? [codeNode(rows)] : []),
		smsNode(credential, parameters, settings),
	]);
}

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s',
	(_line, endpoints) => {
		const { n8n, credential } = lineSession(endpoints, 'Simulator');

		test(`runs n8n ${endpoints.version} with the package installed as a community node`, async () => {
			const types = await n8n.nodeTypes();
			expect(types).toContain(SMS);
			// usableAsTool: n8n also offers it to AI agents as a tool, from n8n 1.85 on (see the node).
			if (endpoints.line === '1.82') {
				expect(types).not.toContain(`${SMS}Tool`);
				return;
			}
			expect(types).toContain(`${SMS}Tool`);
			// Its tool description, when set by hand, starts from the node's description.
			const descriptions = await n8n.nodeTypeDescriptions();
			const node = descriptions.find((type) => type.name === SMS)!;
			const tool = descriptions.find((type) => type.name === `${SMS}Tool`)!;
			expect(tool.properties.find((p) => p.name === 'toolDescription')?.default).toBe(
				node.description,
			);
		});

		test('the credential test passes through n8n, and says what to fix for a wrong token or Base URL', async () => {
			const data = {
				apiToken: endpoints.simulatorToken,
				baseUrl: `${endpoints.simulatorBaseUrl}/`,
				sendBaseUrl: endpoints.simulatorSendBaseUrl,
			};
			const ok = await n8n.rest<{ status: string; message: string }>('POST', '/credentials/test', {
				credentials: { id: credential.id, name: credential.name, type: 'smsMessagingApi', data },
			});
			expect(ok.status).toBe('OK');
			const [request] = await n8n.simRequests();
			expect(`${request.method} ${request.path}`).toBe('GET /contacts');
			expect(request.query).toEqual({ records: '1' });
			expect(request.headers['x-service']).toBe(`Bearer ${endpoints.simulatorToken}`);
			expect(request.headers.authorization).toBeUndefined();

			const bad = await n8n.rest<{ status: string; message: string }>('POST', '/credentials/test', {
				credentials: {
					id: credential.id,
					name: credential.name,
					type: 'smsMessagingApi',
					data: { ...data, apiToken: 'wrong' },
				},
			});
			// n8n 2.x and 1.82 give the credential's own advice; n8n 1.123 does not reach the
			// credential's rules for an HTTP error and says its own words.
			const advises = endpoints.line !== '1.x';
			expect(bad).toEqual({
				status: 'Error',
				message: advises
					? 'The API refused the API Token (401): check the API Token of this credential, or create a new token in your Messaging Service account'
					: 'Authorization failed - please check your credentials',
			});

			const wrongPath = await n8n.rest<{ status: string; message: string }>(
				'POST',
				'/credentials/test',
				{
					credentials: {
						id: credential.id,
						name: credential.name,
						type: 'smsMessagingApi',
						data: { ...data, baseUrl: endpoints.simulatorBaseUrl.replace('/api/v3', '/api/v2') },
					},
				},
			);
			expect(wrongPath).toEqual({
				status: 'Error',
				message: advises
					? 'Nothing answers at this Base URL (404): check the Base URL, including its /api/v3 prefix, e.g. https://api.example.com/api/v3'
					: 'The resource you are requesting could not be found',
			});
		});

		test('example: a personalised SMS to every row goes out as envelopes of one request', async () => {
			const run = await n8n.run('exSendPersonalised');
			expect(run.status).toBe('success');
			const sent = outputOf(run, 'Send SMS');
			expect(sent.map((item) => item.json.thirdPartyRef)).toEqual(['A-1001', 'A-1002', 'A-1003']);
			expect(sent.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
			const requests = await n8n.simRequests();
			expect(requests).toHaveLength(1);
			expect(requests[0].host).toBe('send');
			expect(requests[0].headers.authorization).toMatch(/^Bearer /);
			expect(requests[0].headers['x-service']).toBeUndefined();
			expect(requests[0].body.envelopes?.map((e) => e.number)).toEqual([
				'254712345678',
				'447700900123',
				'254733222111',
			]);
		});

		test("example: the nightly report asks for yesterday's FAILED messages (UTC), all pages", async () => {
			const run = await n8n.run('exNightlyFailed');
			expect(run.status).toBe('success');
			const [newest, request] = await n8n.simRequests();
			const today = new Date().toISOString().slice(0, 10);
			const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
			// Oldest first: a page in the reverse order names the newest messages at the start (all
			// that share the last Sent At).
			expect(newest.query).toMatchObject({
				status: 'FAILED',
				records: '100',
				sort: 'sentAt,desc',
				'start-date': yesterday,
				'end-date': today,
			});
			expect(request.query).toMatchObject({
				status: 'FAILED',
				records: '100',
				sort: 'sentAt,asc',
				'start-date': yesterday,
				'end-date': today,
			});
			for (const item of outputOf(run, 'Failed SMS of yesterday'))
				expect(item.json.status).toBe('FAILED');
		});

		test('example: a new Sender ID comes back PENDING', async () => {
			const run = await n8n.run('exRegisterSenderId');
			expect(outputOf(run, 'Register Sender ID').map((item) => item.json)).toEqual([
				expect.objectContaining({ name: 'ACMESHOP', status: 'PENDING' }),
			]);
			const [request] = await n8n.simRequests();
			expect(`${request.method} ${request.path}`).toBe('POST /sender-ids');
			expect(request.headers['x-service']).toMatch(/^Bearer /);
			expect(request.headers.authorization).toBeUndefined();
		});

		test('example: updating a Sender ID sends its id as senderId with the four fields', async () => {
			const run = await n8n.run('exUpdateSenderId');
			expect(outputOf(run, 'Update Sender ID').map((item) => item.json)).toEqual([
				expect.objectContaining({ id: 1, name: 'ACME', access: 'PUBLIC' }),
			]);
			const [request] = await n8n.simRequests();
			expect(`${request.method} ${request.path}`).toBe('PUT /sender-ids');
			expect(request.body).toEqual({
				senderId: 1,
				name: 'ACME',
				purpose: 'TRANSACTIONAL',
				access: 'PUBLIC',
				sample: 'Your ACME order A-1001 is ready for pickup.',
			});
		});

		test('example: contacts matching a search', async () => {
			const run = await n8n.run('exFindContacts');
			const found = outputOf(run, 'Find contacts');
			expect(found.length).toBeGreaterThan(0);
			for (const item of found) expect(String(item.json.names).toLowerCase()).toContain('grace');
			const [request] = await n8n.simRequests();
			expect(request.query).toEqual({ page: '1', records: '100', query: 'grace' });
		});

		test('250 items are sent in 3 requests', async () => {
			const { id } = await n8n.createWorkflow(
				workflow(
					'e2e batch',
					credential,
					{
						resource: 'sms',
						operation: 'send',
						senderId: 'ACME',
						number: '={{ $json.phone }}',
						message: '=Code {{ $json.i }}',
						thirdPartyRef: '={{ "ref-" + $json.i }}',
						options: {},
					},
					{
						rows: 'return Array.from({ length: 250 }, (_, i) => ({ json: { i, phone: String(254710000000 + i) } }));',
					},
				),
			);
			const run = await n8n.run(id);
			expect(run.status).toBe('success');
			const out = outputOf(run, 'SMS Messaging');
			expect(out).toHaveLength(250);
			expect(out[249].json).toMatchObject({ thirdPartyRef: 'ref-249', status: 'SENT' });
			const requests = await n8n.simRequests();
			// Requests after the first go out in parallel: their order of arrival may vary.
			expect(requests.map((r) => Number(r.body.envelopes?.length)).sort((a, b) => b - a)).toEqual([
				100, 100, 50,
			]);
		});

		test('Get Many with Return All follows every page', async () => {
			const { id } = await n8n.createWorkflow(
				workflow('e2e pages', credential, {
					resource: 'sms',
					operation: 'getAll',
					returnAll: true,
				}),
			);
			const run = await n8n.run(id);
			expect(outputOf(run, 'SMS Messaging')).toHaveLength(250);
			// Pages after the first are read in parallel: their order of arrival may vary.
			expect((await n8n.simRequests()).map((r) => r.query.page).sort()).toEqual(['1', '2', '3']);
		});

		test('Get Many with a Limit asks one page of that size', async () => {
			const { id } = await n8n.createWorkflow(
				workflow('e2e limit', credential, { resource: 'sms', operation: 'getAll', limit: 20 }),
			);
			const run = await n8n.run(id);
			expect(outputOf(run, 'SMS Messaging')).toHaveLength(20);
			expect((await n8n.simRequests()).map((r) => r.query)).toEqual([{ page: '1', records: '20' }]);
		});

		test('Sender ID → Create: a bad item makes no request and stops the run; a good one comes back PENDING', async () => {
			const parameters = CREATE_SENDER_ID_PER_BRAND;
			const bad = await n8n.createWorkflow(
				workflow('e2e sender bad', credential, parameters, {
					rows: "return [{ json: { brand: 'GOOD' } }, { json: { brand: 'MUCH-TOO-LONG-NAME' } }];",
				}),
			);
			const failed = await n8n.run(bad.id);
			expect(failed.status).toBe('error');
			expect(failed.resultData.runData['SMS Messaging'][0].error?.message).toBe(
				'Name is 18 characters long; the API allows 1 to 11',
			);
			// n8n's routing sends each item's request in turn; the bad item's is never made.
			const names = (await n8n.simRequests()).map((r) => r.body.name);
			expect(names).not.toContain('MUCH-TOO-LONG-NAME');

			const good = await n8n.createWorkflow(
				workflow('e2e sender good', credential, parameters, {
					rows: "return [{ json: { brand: 'GOOD' } }];",
				}),
			);
			const run = await n8n.run(good.id);
			expect(outputOf(run, 'SMS Messaging')[0].json).toMatchObject({
				name: 'GOOD',
				status: 'PENDING',
			});
		});

		test("Proxy in the node's Settings: every request of every kind passes through it", async () => {
			const proxy = await startProxy();
			try {
				const requestOptions = { proxy: proxy.url };
				const runs = [
					{ resource: 'contact', operation: 'getAll', limit: 3, requestOptions },
					{ resource: 'sms', operation: 'getAll', limit: 120, requestOptions },
					{ ...CREATE_SENDER_ID_PER_BRAND, name: 'PROXIED', requestOptions },
					{
						resource: 'sms',
						operation: 'send',
						senderId: 'ACME',
						number: '254712345678',
						message: 'Through the proxy',
						options: {},
						requestOptions,
					},
				];
				for (const [k, parameters] of runs.entries()) {
					const { id } = await n8n.createWorkflow(
						workflow(`e2e proxy ${k}`, credential, parameters),
					);
					const run = await n8n.run(id);
					expect(run.status).toBe('success');
				}
				const received = (await n8n.simRequests()).map((r) => `${r.method} ${r.path}`);
				expect(received).toEqual([
					'GET /contacts',
					'GET /sms',
					'GET /sms',
					'POST /sender-ids',
					'POST /outgoings/send',
				]);
				const proxied = proxy.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`);
				expect(proxied).toEqual(received.map((r) => r.replace(' /', ' /api/v3/')));
				// The credential's headers pass through the proxy as n8n set them.
				expect(proxy.requests[0].headers['x-service']).toBe(`Bearer ${endpoints.simulatorToken}`);
				expect(proxy.requests[4].headers.authorization).toBe(`Bearer ${endpoints.simulatorToken}`);
			} finally {
				await proxy.stop();
			}
		});

		test('Continue On Fail: the bad item is an error item, the others are sent', async () => {
			const { id } = await n8n.createWorkflow(
				workflow(
					'e2e continue',
					credential,
					{
						resource: 'sms',
						operation: 'send',
						senderId: 'ACME',
						number: '={{ $json.phone }}',
						message: 'Hello',
						options: {},
					},
					{
						rows: "return [{ json: { phone: '254712345678' } }, { json: { phone: 'not a number' } }, { json: { phone: '254712345679' } }];",
						settings: { onError: 'continueRegularOutput' },
					},
				),
			);
			const run = await n8n.run(id);
			expect(run.status).toBe('success');
			const out = outputOf(run, 'SMS Messaging');
			expect(out.map((item) => item.json.status ?? item.json.error)).toEqual([
				'SENT',
				'Recipient Number is not a phone number: "not a number"',
				'SENT',
			]);
			const requests = await n8n.simRequests();
			expect(requests).toHaveLength(1);
			expect(requests[0].body.envelopes).toHaveLength(2);
		});

		test('On Error → Continue (using error output): failed and refused items arrive on the error branch only', async () => {
			// Rows → SMS Messaging, whose success output goes to "Sent" and error output to "Failed".
			const base = workflow(
				'e2e error output',
				credential,
				{
					resource: 'sms',
					operation: 'send',
					senderId: 'ACME',
					number: '={{ $json.phone }}',
					message: 'Hello',
					options: { batchSize: 1, onRequestFailure: 'continue' },
				},
				{
					rows: "return [{ json: { phone: '254712345678' } }, { json: { phone: 'not a number' } }, { json: { phone: '254712345679' } }];",
					settings: { onError: 'continueErrorOutput' },
				},
			);
			const noOp = (name: string, y: number) => ({
				id: name,
				name,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [880, y],
				parameters: {},
			});
			const wf = {
				...base,
				nodes: [...base.nodes, noOp('Sent', -100), noOp('Failed', 100)],
				connections: {
					...base.connections,
					'SMS Messaging': {
						main: [
							[{ node: 'Sent', type: 'main', index: 0 }],
							[{ node: 'Failed', type: 'main', index: 0 }],
						],
					},
				},
			};
			// The first send request is refused; the third item's request goes out.
			await n8n.simFault({ host: 'send', status: 402 });
			const { id } = await n8n.createWorkflow(wf);
			const run = await n8n.run(id);
			expect(run.status).toBe('success');
			expect(outputOf(run, 'Failed').map((item) => item.json.error)).toEqual([
				'payment required',
				'Recipient Number is not a phone number: "not a number"',
			]);
			expect(outputOf(run, 'Sent').map((item) => item.json.recipient)).toEqual(['254712345679']);
			const requests = await n8n.simRequests();
			expect(requests.map((r) => r.status)).toEqual([402, 202]);
		});

		test("an API error surfaces in n8n's execution with the API's message and without the token", async () => {
			const secret = `secret-${endpoints.line}-0f9e8d`;
			const wrong = await n8n.createCredential(`Wrong token ${Date.now()}`, { apiToken: secret });
			const { id } = await n8n.createWorkflow(
				workflow('e2e 401', wrong, {
					resource: 'sms',
					operation: 'send',
					senderId: 'ACME',
					number: '254712345678',
					message: 'Hello',
					options: {},
				}),
			);
			const run = await n8n.run(id);
			expect(run.status).toBe('error');
			const error = run.resultData.runData['SMS Messaging'][0].error;
			expect(error?.message).toBe('Authentication failed [every item of this run]');
			expect(error?.description).toContain(
				': correct its API Token field, or create a new token in your Messaging Service account and enter that.',
			);
			expect(run.raw).not.toContain(secret);
			const requests = await n8n.simRequests();
			expect(requests[0].headers.authorization).toBe(`Bearer ${secret}`);
		});
	},
);
