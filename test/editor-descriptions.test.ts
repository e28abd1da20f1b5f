// What n8n's editor makes of the node's description, read through n8n-workflow's own helpers:
// the actions the nodes panel lists and the names new nodes get, the trigger's action, when the
// output pane's hint shows, the fields' defaults; and the nightly example's date filters.
import fs from 'node:fs';
import path from 'node:path';
import {
	NodeHelpers,
	Workflow,
	type INode,
	type INodeProperties,
	type INodePropertyOptions,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { loadedNodeDescription, nodeTypes, runWorkflow } from './helpers/n8n';
import { packageRoot } from './helpers/package-root';
import { useSimulator } from './helpers/simulator';

const TRIGGER_TYPE = 'n8n-nodes-sms-messaging.smsMessagingTrigger';
const description = loadedNodeDescription();
const trigger = loadedNodeDescription(TRIGGER_TYPE);

const ACTIONS: Array<[resource: string, operation: string, action: string]> = [
	['sms', 'send', 'Send an SMS'],
	['sms', 'getAll', 'Get many messages'],
	['sms', 'getStatus', 'Get the delivery status of sent messages'],
	['contact', 'getAll', 'Get many contacts'],
	['senderId', 'create', 'Create a sender ID'],
	['senderId', 'update', 'Update a sender ID'],
];

function property(of: INodeTypeDescription, name: string, resource?: string): INodeProperties {
	const found = of.properties.find(
		(p) => p.name === name && (!resource || p.displayOptions?.show?.resource?.includes(resource)),
	);
	if (!found) throw new Error(`no property ${name}`);
	return found;
}

function option(collection: INodeProperties, name: string): INodeProperties | undefined {
	return (collection.options as INodeProperties[]).find((o) => o.name === name);
}

describe('the nodes panel and new nodes', () => {
	test.each(ACTIONS)(
		'%s → %s: the action is "%s", and n8n names a new node after it',
		(resource, operation, action) => {
			const options = property(description, 'operation', resource)
				.options as INodePropertyOptions[];
			expect(options.find((o) => o.value === operation)?.action).toBe(action);
			// n8n's own naming of a node added from the panel (makeNodeName, as the editor uses it).
			expect(NodeHelpers.makeNodeName({ resource, operation }, description)).toBe(action);
		},
	);

	test("every action is a short verb phrase, as on n8n's own nodes", () => {
		// Get Delivery Status says what it looks at: an AI model reads "<action> in SMS Messaging".
		for (const [, operation, action] of ACTIONS) {
			expect(action.split(' ').length).toBeLessThanOrEqual(operation === 'getStatus' ? 7 : 4);
		}
	});

	test('the trigger offers one action, "On message delivered or failed", as n8n finds it', () => {
		// n8n's nodes panel takes a trigger's actions from the options of the property whose
		// display name is "Event" (or "Events", "Trigger On"), each named by its `action`.
		const events = trigger.properties.filter((p) =>
			['event', 'events', 'trigger on'].includes(p.displayName.toLowerCase()),
		);
		expect(events).toHaveLength(1);
		expect(events[0].type).toBe('hidden');
		expect((events[0].options as INodePropertyOptions[]).map((o) => o.action)).toEqual([
			'On message delivered or failed',
		]);
		// What it names is what a new trigger watches.
		expect(property(trigger, 'statuses').default).toEqual(['DELIVERED', 'FAILED']);
		// A trigger has no operation: n8n names a new one by its default name.
		expect(NodeHelpers.makeNodeName({}, trigger)).toBe('SMS Messaging Trigger');
	});
});

describe("the output pane's PENDING hint", () => {
	const [hint] = description.hints ?? [];

	/** The hint's displayCondition as n8n's editor evaluates it for a node with `parameters`. */
	function shows(parameters: INode['parameters']): unknown {
		const node: INode = {
			id: 'sms',
			name: 'SMS Messaging',
			type: description.name,
			typeVersion: 1,
			position: [0, 0],
			parameters,
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return workflow.expression.getSimpleParameterValue(
			node,
			hint.displayCondition!,
			'internal',
			{},
		);
	}

	test('shows after Sender ID → Create, whose every Sender ID is PENDING', () => {
		expect(hint.message).toMatch(/^A new Sender ID is PENDING: it cannot send SMS until/);
		expect(hint.whenToDisplay).toBe('afterExecution');
		expect(shows({ resource: 'senderId', operation: 'create' })).toBe(true);
	});

	test.each([
		['senderId', 'update'],
		['sms', 'send'],
		['sms', 'getAll'],
		['contact', 'getAll'],
	])('does not show after %s → %s', (resource, operation) => {
		expect(shows({ resource, operation })).toBe(false);
	});
});

describe('defaults', () => {
	test('number fields start at a number: Sender ID Number and every User ID filter', () => {
		expect(property(description, 'id').default).toBe(0);
		for (const resource of ['sms', 'contact']) {
			const filters = description.properties.find(
				(p) => p.name === 'filters' && p.displayOptions?.show?.resource?.includes(resource),
			)!;
			expect(option(filters, 'userId')?.default).toBe(0);
		}
		expect(option(property(trigger, 'filters'), 'userId')?.default).toBe(0);
	});

	test("Send offers no Timeout of its own: the node's Settings → Request Options → Timeout is the one", () => {
		const sendOptions = description.properties.find(
			(p) => p.name === 'options' && p.displayOptions?.show?.operation?.includes('send'),
		)!;
		expect(option(sendOptions, 'timeout')).toBeUndefined();
		const requestOptions = property(description, 'requestOptions');
		expect(option(requestOptions, 'timeout')).toBeDefined();
	});
});

describe('the nightly example', () => {
	const ctx = useSimulator({ smsRecords: 0 });
	const example = JSON.parse(
		fs.readFileSync(path.join(packageRoot(), 'examples/nightly-failed-report.json'), 'utf8'),
	) as { nodes: INode[] };
	const getMany = example.nodes.find((node) => node.type.endsWith('.smsMessaging'))!;

	test("reads exactly yesterday's FAILED messages (UTC): none of the day before, none of today", async () => {
		const day = 86_400_000;
		const midnight = Math.floor(Date.now() / day) * day; // today 00:00 UTC
		const at = (ms: number) => new Date(ms).toISOString();
		const sent = {
			dayBefore: at(midnight - day - 1000),
			yesterdayFirst: at(midnight - day + 1000),
			yesterdayLast: at(midnight - 1000),
			today: at(midnight + 1000),
		};
		for (const [name, sentAt] of Object.entries(sent)) {
			ctx.sim.addSms({
				recipient: '254711000001',
				content: name,
				status: 'FAILED',
				sentAt,
				campaignId: undefined,
			});
		}
		const result = await runWorkflow({
			parameters: getMany.parameters,
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.content)).toEqual([
			'yesterdayFirst',
			'yesterdayLast',
		]);
		expect(ctx.sim.requests[0].query).toMatchObject({
			status: 'FAILED',
			'start-date': at(midnight - day).slice(0, 10),
			'end-date': at(midnight).slice(0, 10),
		});
	});
});
