// The node as an AI agent's tool: n8n fills parameters written as $fromAI(...) from the tool
// call's arguments, which reach the node as its input item. These runs do exactly that.
import { NodeHelpers, type INode, type INodeType } from 'n8n-workflow';

import { loadedNodeDescription, loadedNodeType, runWorkflow } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator();

describe('as an AI agent tool', () => {
	test('Send fills number and message from the tool call and normalises the number', async () => {
		const result = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'send',
				senderId: 'ACME',
				number:
					"={{ $fromAI('number', 'Recipient phone number with country code, e.g. +254712345678', 'string') }}",
				message: "={{ $fromAI('message', 'The SMS text', 'string') }}",
				options: { maxMessages: 5 },
			},
			items: [{ query: { number: '+254 712 345 678', message: 'Your table is ready.' } }],
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(ctx.sim.requests[0].body.envelopes).toEqual([
			{ number: '254712345678', message: 'Your table is ready.' },
		]);
		expect(result.items[0].json).toMatchObject({ status: 'SENT', recipient: '254712345678' });
	});

	test('a bad number from the model is refused with an error the model can act on', async () => {
		const result = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'send',
				senderId: 'ACME',
				number: "={{ $fromAI('number', '', 'string') }}",
				message: "={{ $fromAI('message', '', 'string') }}",
			},
			items: [{ query: { number: 'Jane Doe', message: 'Hi' } }],
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Recipient Number is not a phone number: "Jane Doe"');
		expect(result.error?.description).toContain('Use the number with its country code');
		expect(ctx.sim.requests).toEqual([]);
	});

	test('Get Many takes its limit and filters from the tool call', async () => {
		const result = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'getAll',
				limit: "={{ $fromAI('limit', 'How many messages at most', 'number', 10) }}",
				filters: {
					status: "={{ $fromAI('status', 'DELIVERED, SENT, FAILED or PENDING', 'string') }}",
				},
			},
			items: [{ query: { limit: 3, status: 'FAILED' } }],
			credentials: ctx.credentials,
		});
		expect(result.items).toHaveLength(3);
		expect(ctx.sim.requests[0].query).toEqual({ page: '1', records: '3', status: 'FAILED' });
	});

	test('Max Messages per Run stops an agent from sending to more recipients than allowed', async () => {
		const result = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'send',
				senderId: 'ACME',
				number: '={{ $json.phone }}',
				message: 'Hi',
				options: { maxMessages: 2 },
			},
			items: [{ phone: '254712345671' }, { phone: '254712345672' }, { phone: '254712345673' }],
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'This run would send 3 messages, more than Max Messages per Run (2)',
		);
		expect(ctx.sim.requests).toEqual([]);
	});
});

describe("what a model is told in n8n's automatic tool description", () => {
	// n8n builds it from the operation's `action` and the node's name (getToolDescriptionForNode).
	test.each([
		['sms', 'send', 'Send an SMS in SMS Messaging'],
		['sms', 'getAll', 'Get many messages in SMS Messaging'],
		['contact', 'getAll', 'Get many contacts in SMS Messaging'],
		['senderId', 'create', 'Create a sender ID in SMS Messaging'],
		['senderId', 'update', 'Update a sender ID in SMS Messaging'],
		['sms', 'getStatus', 'Get the delivery status of sent messages in SMS Messaging'],
	])('%s → %s', (resource, operation, told) => {
		const node = {
			parameters: { resource, operation, descriptionType: 'auto' },
		} as unknown as INode;
		expect(NodeHelpers.getToolDescriptionForNode(node, loadedNodeType() as INodeType)).toBe(told);
	});

	test('a description set by hand is what the model is told instead', () => {
		const text = 'Sends one SMS. Use the number with its country code; each message costs credits.';
		const node = {
			parameters: {
				resource: 'sms',
				operation: 'send',
				descriptionType: 'manual',
				toolDescription: text,
			},
		} as unknown as INode;
		expect(NodeHelpers.getToolDescriptionForNode(node, loadedNodeType() as INodeType)).toBe(text);
	});

	test("the node's description, where a hand-set tool description starts, says what costs and what waits", () => {
		const { description } = loadedNodeDescription();
		expect(description).toContain('phone numbers with country code');
		expect(description).toContain('costs credits');
		expect(description).toContain('PENDING and cannot send until approved');
	});
});
