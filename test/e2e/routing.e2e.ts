// End to end: what the routed operations (Sender ID, both Get Many) rely on in n8n's declarative
// routing, on every n8n line under test. Each test below would fail if a release of n8n stopped
// doing one of the things the request hooks (nodes/SmsMessaging/routing.ts) rely on:
// - calling `operations.pagination` once per item, with that item's context (getNodeParameter,
//   getItemIndex, continueOnFail, getCredentials) and the request the field routing and preSend
//   built;
// - `makeRoutingRequest` resolving to what postReceive returned;
// - `ignoreHttpStatusErrors` handing every status and its headers (Retry-After) to postReceive.
import { lineSession } from './line-session';
import {
	codeNode,
	CREATE_SENDER_ID_PER_BRAND,
	linearWorkflow,
	lines,
	outputOf,
	smsNode,
	type SimRequest,
	type WorkflowNode,
} from './n8n-rest';

/** Rows → SMS Messaging with On Error "Continue (using error output)" → "Listed" and "Failed". */
function withErrorOutput(name: string, rows: WorkflowNode, sms: WorkflowNode) {
	const base = linearWorkflow(name, [rows, { ...sms, onError: 'continueErrorOutput' }]);
	const noOp = (node: string, y: number) => ({
		id: node,
		name: node,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [880, y],
		parameters: {},
	});
	return {
		...base,
		nodes: [...base.nodes, noOp('Listed', -100), noOp('Failed', 100)],
		connections: {
			...base.connections,
			'SMS Messaging': {
				main: [
					[{ node: 'Listed', type: 'main', index: 0 }],
					[{ node: 'Failed', type: 'main', index: 0 }],
				],
			},
		},
	};
}

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s: routing',
	(_line, endpoints) => {
		const { n8n, credential } = lineSession(endpoints, 'Simulator routing');

		test('Get Many: Return All per item by expression, the sort preSend, and a 429 waited out for its Retry-After', async () => {
			// The second request to /sms is refused once, for one second.
			await n8n.simFault({ path: '/sms', status: 429, retryAfter: 1, skip: 1 });
			const { id } = await n8n.createWorkflow(
				linearWorkflow('e2e routing pages', [
					codeNode('return [{ json: { all: true } }, { json: { all: false } }];'),
					smsNode(credential, {
						resource: 'sms',
						operation: 'getAll',
						returnAll: '={{ $json.all }}',
						limit: 3,
						options: { sortDirection: 'asc' },
					}),
				]),
			);
			const run = await n8n.run(id);
			expect(run.status).toBe('success');
			const out = outputOf(run, 'SMS Messaging');
			const of = (item: number) =>
				out.filter((o) => (o.pairedItem as { item: number }).item === item);
			expect(new Set(of(0).map((o) => o.json.id)).size).toBe(250);
			expect(of(1).map((o) => o.json.id)).toEqual([1, 2, 3]);
			// When each request was answered (the simulator records it).
			const requests = (await n8n.simRequests()) as Array<SimRequest & { at: number }>;
			// Return All oldest first: one record in the reverse order first names the newest message
			// at the start (the first answer, or its retry after the 429); every page is oldest first.
			const newest = requests.filter((r) => r.query.sort === 'id,desc');
			expect(newest.map((r) => r.query.records)).toEqual(newest.map(() => '1'));
			expect(newest.filter((r) => r.status === 200)).toHaveLength(1);
			expect(requests.every((r) => ['id,asc', 'id,desc'].includes(String(r.query.sort)))).toBe(
				true,
			);
			// The two items read at once: the refused request is either item's; its retry is the
			// next request for the same page at the same size.
			const refused = requests.find((r) => r.status === 429)!;
			const retried = requests.find(
				(r) =>
					r.at > refused.at &&
					r.query.page === refused.query.page &&
					r.query.records === refused.query.records,
			)!;
			expect(retried.status).toBe(200);
			expect(retried.at - refused.at).toBeGreaterThanOrEqual(1000);
		});

		test('Get Many: a bad Limit is one error item paired to its item, under either Continue mode', async () => {
			const parameters = { resource: 'sms', operation: 'getAll', limit: '={{ $json.limit }}' };
			const rows = codeNode('return [{ json: { limit: -5 } }, { json: { limit: 2 } }];');
			const regular = await n8n.createWorkflow(
				linearWorkflow('e2e routing limit', [
					rows,
					smsNode(credential, parameters, { onError: 'continueRegularOutput' }),
				]),
			);
			const run = await n8n.run(regular.id);
			expect(run.status).toBe('success');
			expect(
				outputOf(run, 'SMS Messaging').map((o) => [o.pairedItem, o.json.error ?? 'record']),
			).toEqual([
				[{ item: 0 }, 'Limit must be a whole number of 1 or more, got -5'],
				[{ item: 1 }, 'record'],
				[{ item: 1 }, 'record'],
			]);

			const branched = await n8n.createWorkflow(
				withErrorOutput('e2e routing limit branches', rows, smsNode(credential, parameters)),
			);
			const branchedRun = await n8n.run(branched.id);
			expect(branchedRun.status).toBe('success');
			expect(outputOf(branchedRun, 'Failed').map((o) => o.json.error)).toEqual([
				'Limit must be a whole number of 1 or more, got -5',
			]);
			expect(outputOf(branchedRun, 'Listed')).toHaveLength(2);
			expect((await n8n.simRequests()).map((r) => r.query.records)).toEqual(['2', '2']);
		});

		test('Sender ID → Create: a 503 is retried, and a refused item under Continue On Fail is paired to it', async () => {
			await n8n.simFault({ path: '/sender-ids', status: 503, retryAfter: 0 });
			const { id } = await n8n.createWorkflow(
				linearWorkflow('e2e routing sender', [
					codeNode(
						"return [{ json: { brand: 'GOOD' } }, { json: { brand: 'MUCH-TOO-LONG-NAME' } }];",
					),
					smsNode(credential, CREATE_SENDER_ID_PER_BRAND, { onError: 'continueRegularOutput' }),
				]),
			);
			const run = await n8n.run(id);
			expect(run.status).toBe('success');
			expect(
				outputOf(run, 'SMS Messaging').map((o) => [o.pairedItem, o.json.status ?? o.json.error]),
			).toEqual([
				[{ item: 0 }, 'PENDING'],
				[{ item: 1 }, 'Name is 18 characters long; the API allows 1 to 11'],
			]);
			const requests = await n8n.simRequests();
			expect(requests.map((r) => `${r.body.name} ${r.status}`)).toEqual(['GOOD 503', 'GOOD 201']);
		});
	},
);
