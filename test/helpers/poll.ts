// Runs the trigger through n8n-core's own poll machinery, as an active workflow in n8n runs it:
// one PollContext per activation (or, as n8n's durable poll scheduler does, a new one per poll),
// polled by n8n-core's PollTriggerExecutor, with the workflow's static data kept between polls
// (and across activations, as n8n keeps it in its database).
import { PollContext, PollTriggerExecutor } from 'n8n-core';
import {
	NodeHelpers,
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IPollFunctions,
	type WorkflowActivateMode,
} from 'n8n-workflow';

import { executionAdditionalData, nodeTypes, type Credentials } from './n8n';

export const TRIGGER_TYPE = 'n8n-nodes-sms-messaging.smsMessagingTrigger';

// n8n-core resolves its services from its own copy of @n8n/di, so the executor comes from there.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as typeof import('@n8n/di');

/** What one poll did: the items of the execution it started (null: none), or its error. */
export interface PollOutcome {
	items: INodeExecutionData[] | null;
	error?: Error;
}

export interface ActiveTrigger {
	/** The activation's own poll (n8n polls once when it activates a workflow). */
	atActivation: PollOutcome;
	/** A scheduled poll, as n8n runs it at each Poll Time. */
	poll(): Promise<PollOutcome>;
	/** The editor's Fetch Test Event: n8n runs `poll` in manual mode, as WorkflowExecute does. */
	fetchTestEvent(): Promise<INodeExecutionData[] | null>;
	/** The workflow's static data, which n8n stores with the workflow. */
	staticData: IDataObject;
}

interface ActivateOptions {
	parameters: INode['parameters'];
	credentials: Credentials;
	/** Static data saved by an earlier activation of the same workflow. */
	staticData?: IDataObject;
	/** How n8n activates it: `activate` when a user turns it on, `init` when n8n starts. */
	activation?: WorkflowActivateMode;
	/** A new PollContext (with the activation's mode) for every poll, not one per activation. */
	contextPerPoll?: boolean;
	/**
	 * Each scheduled poll starts from a JSON copy of the static data, as when n8n saved it and
	 * loaded it again (a restart, another process): nothing but JSON survives between polls.
	 */
	savedBetweenPolls?: boolean;
}

/**
 * Activates a workflow made of the trigger alone. As n8n's ActiveWorkflowTriggers does, the
 * activation polls once as a test (an error fails the activation and is thrown here); later polls
 * report errors through the context's emitError.
 */
export async function activateTrigger(options: ActivateOptions): Promise<ActiveTrigger> {
	const node: INode = {
		id: 'trigger',
		name: 'SMS Messaging Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: { smsMessagingApi: { id: '1', name: 'SMS Messaging account' } },
	};
	const description = NodeHelpers.getVersionedNodeType(
		nodeTypes.getByName(TRIGGER_TYPE),
		1,
	).description;
	// n8n stores a node's parameters with their defaults filled in (Poll Times among them).
	node.parameters =
		NodeHelpers.getNodeParameters(
			description.properties,
			node.parameters,
			true,
			false,
			node,
			description,
		) ?? {};
	const workflow = new Workflow({
		id: 'trigger-test',
		nodes: [node],
		connections: {},
		nodeTypes,
		active: true,
		staticData: options.staticData ?? {},
		settings: { executionOrder: 'v1' },
	});
	const additionalData = executionAdditionalData(options.credentials);

	let outcome: PollOutcome = { items: null };
	const executor = () => {
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			'trigger',
			options.activation ?? 'activate',
			(data) => {
				outcome = { items: data[0] };
			},
			(error) => {
				outcome = { items: null, error };
			},
		);
		return Container.get(PollTriggerExecutor).create(
			workflow,
			node,
			context as unknown as IPollFunctions,
			() => true,
		);
	};
	const executePoll = executor();
	const run = async (testing: boolean) => {
		outcome = { items: null };
		if (options.savedBetweenPolls && !testing) {
			workflow.overrideStaticData(JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject);
		}
		await (options.contextPerPoll && !testing ? executor() : executePoll)(testing);
		return outcome;
	};

	return {
		atActivation: await run(true),
		poll: async () => await run(false),
		fetchTestEvent: async () => {
			const manual = new PollContext(workflow, node, additionalData, 'manual', 'manual');
			const type = NodeHelpers.getVersionedNodeType(nodeTypes.getByName(TRIGGER_TYPE), 1);
			return (await type.poll!.call(manual))?.[0] ?? null;
		},
		// n8n's Workflow keeps it as a proxy that notes changes; a plain copy is what it saves.
		get staticData() {
			return JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
		},
	};
}
