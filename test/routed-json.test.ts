// The send-and-wait lives in its own node type (SMS Messaging Approval) because n8n-core gives a
// node type with webhook() and no execute() no input for its routed operations: on SMS Messaging,
// every {{ $json… }} of Sender ID and Get Many would fail. This keeps that from coming back.
import { loadedNodeDescription, loadedNodeType, runWorkflow } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator();

test('SMS Messaging has no webhook: it stays a declarative node with routed operations', () => {
	const nodeType = loadedNodeType();
	expect('webhook' in nodeType && nodeType.webhook).toBeFalsy();
	expect(loadedNodeDescription().webhooks).toBeUndefined();
	// n8n's loader adds its Request Options only to declarative nodes.
	expect(loadedNodeDescription().properties.map((p) => p.name)).toContain('requestOptions');
});

test('Sender ID → Update and Contact → Get Many read $json from each input item', async () => {
	const update = await runWorkflow({
		parameters: {
			resource: 'senderId',
			operation: 'update',
			id: '={{ $json.n }}',
			name: '={{ $json.brand }}',
			purpose: 'TRANSACTIONAL',
			access: 'PRIVATE',
			sample: 'Your order has shipped.',
		},
		items: [{ n: 2, brand: 'NOTIFY2' }],
		credentials: ctx.credentials,
	});
	expect(update.error).toBeUndefined();
	expect(ctx.sim.requests[0].body).toMatchObject({ senderId: 2, name: 'NOTIFY2' });

	ctx.sim.reset();
	const contacts = await runWorkflow({
		parameters: {
			resource: 'contact',
			operation: 'getAll',
			limit: '={{ $json.limit }}',
			filters: { query: '={{ $json.q }}' },
		},
		items: [{ limit: 3, q: 'Amina' }],
		credentials: ctx.credentials,
	});
	expect(contacts.error).toBeUndefined();
	expect(ctx.sim.requests[0].query).toMatchObject({ query: 'Amina' });
});
