// Runs the trigger through n8n-core's own poll machinery (PollContext, PollTriggerExecutor), in
// each of the three ways n8n 2.41 polls, as read in its sources (docs/n8n-internals.md):
// - 'memory': n8n's default path. One workflow object per activation, kept in memory: every poll
//   sees what the last one left in its static data; n8n saves it to its database at activation and
//   after a poll that emits (a restart starts from what was saved).
// - 'scheduler': the task scheduler (N8N_SCHEDULER_ENABLED, N8N_SCHEDULER_POLL_TRIGGERS_ENABLED):
//   every poll gets a fresh workflow from the database, and its static data is saved only when it
//   emits; the activation's poll is saved with the activation. n8n gives it getPollBudgetMs().
// - 'durable': the same with N8N_POLLER_DURABLE_CURSORS_ENABLED: the static data is a cursor
//   saved after every poll that ends (emitting or not), not after one that fails; the
//   activation's poll (a test poll) is not saved.
import { PackageDirectoryLoader, PollContext, PollTriggerExecutor } from 'n8n-core';
import {
	NodeHelpers,
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypes,
	type IVersionedNodeType,
	type IPollFunctions,
	type WorkflowActivateMode,
} from 'n8n-workflow';

import { executionAdditionalData, nodeTypes, type Credentials } from './n8n';
import { packageRoot } from './package-root';

export const TRIGGER_TYPE = 'n8n-nodes-sms-messaging.smsMessagingTrigger';

// n8n-core resolves its services from its own copy of @n8n/di, so the executor comes from there.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as typeof import('@n8n/di');

/** How n8n runs a poll trigger (see the top of this file). */
export type PollMode = 'memory' | 'scheduler' | 'durable';
export const POLL_MODES: PollMode[] = ['memory', 'scheduler', 'durable'];

/** n8n 2.41's poll budget under its task scheduler: 45 s timeout less its 9 s margin. */
const SCHEDULER_BUDGET_MS = 36_000;

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
	/** The static data the next poll starts from (in 'memory' mode, the one in memory). */
	staticData: IDataObject;
	/** The static data as n8n has it in its database: what a restart starts from. */
	savedStaticData: IDataObject;
}

interface ActivateOptions {
	parameters: INode['parameters'];
	credentials: Credentials;
	/** Static data saved by an earlier activation of the same workflow. */
	staticData?: IDataObject;
	/** How n8n activates it: `activate` when a user turns it on, `init` when n8n starts. */
	activation?: WorkflowActivateMode;
	/** How n8n polls (default 'memory'). */
	mode?: PollMode;
	/** getPollBudgetMs() (default: SCHEDULER_BUDGET_MS under the task scheduler, 5 minutes else). */
	budgetMs?: number;
	/**
	 * n8n starting again with the workflow published: on its default path it activates it anew (a
	 * test poll); its task scheduler finds the poll's jobs there and polls as before, with none. A
	 * new process: nothing the package kept in memory (`freshProcess`).
	 */
	restart?: boolean;
	/**
	 * The trigger loaded as a new n8n process loads it (the package's modules required anew), so
	 * that nothing a poll before kept in this process's memory is there; `everyPoll`: each poll
	 * in a process of its own, as polls that n8n's task scheduler hands to different main
	 * instances. Default: true for a restart.
	 */
	freshProcess?: boolean | 'everyPoll';
}

/** Each activation is a workflow of its own, but one that starts again from its static data. */
let workflowCount = 0;

/**
 * The trigger's node type as a new n8n process loads it: the package's built modules required
 * anew by n8n-core's loader, with nothing in memory from the ones loaded before.
 */
function freshTriggerType(): INodeTypes {
	let trigger: INodeType | IVersionedNodeType | undefined;
	// Jest keeps its own module registry: a fresh one loads every module of the package anew. The
	// package's one dependency, n8n-workflow, stays the one n8n-core uses, as in an n8n process.
	const workflowModule = jest.requireActual<object>('n8n-workflow');
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => workflowModule);
		const loader = new PackageDirectoryLoader(packageRoot());
		void loader.loadAll();
		trigger = loader.getNode('smsMessagingTrigger').type;
	});
	jest.dontMock('n8n-workflow');
	return {
		...nodeTypes,
		getByName: (type) => (type === TRIGGER_TYPE ? trigger! : nodeTypes.getByName(type)),
		getByNameAndVersion: (type, version) =>
			type === TRIGGER_TYPE
				? NodeHelpers.getVersionedNodeType(trigger!, version)
				: nodeTypes.getByNameAndVersion(type, version),
	};
}

const copy = (data: IDataObject) => JSON.parse(JSON.stringify(data)) as IDataObject;

function triggerNode(parameters: INode['parameters']): INode {
	const node: INode = {
		id: 'trigger',
		name: 'SMS Messaging Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
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
			parameters,
			true,
			false,
			node,
			description,
		) ?? {};
	return node;
}

/**
 * Activates a workflow made of the trigger alone. As n8n's ActiveWorkflowTriggers does, the
 * activation polls once as a test (an error fails the activation and is thrown here); later polls
 * report errors through the context's emitError.
 */
export async function activateTrigger(options: ActivateOptions): Promise<ActiveTrigger> {
	const mode = options.mode ?? 'memory';
	const node = triggerNode(options.parameters);
	const additionalData = executionAdditionalData(options.credentials);
	// A restart or an update of the same workflow keeps its id; a new activation is a new workflow.
	if (!options.staticData) workflowCount++;
	const freshProcess = options.freshProcess ?? options.restart === true;
	let types = freshProcess ? freshTriggerType() : nodeTypes;
	const workflowFrom = (staticData: IDataObject) =>
		new Workflow({
			id: `trigger-test-${workflowCount}`,
			nodes: [node],
			connections: {},
			nodeTypes: types,
			active: true,
			staticData: copy(staticData),
			settings: { executionOrder: 'v1' },
		});
	let saved = copy(options.staticData ?? {});
	const activationWorkflow = workflowFrom(saved);
	const pollIn = async (workflow: Workflow, testing: boolean) => {
		// Each poll's own: two polls may run at once on n8n's default path.
		let outcome: PollOutcome = { items: null };
		const budgetMs = options.budgetMs ?? (mode === 'memory' ? undefined : SCHEDULER_BUDGET_MS);
		const budget = budgetMs === undefined ? undefined : () => budgetMs;
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			'trigger',
			options.activation ?? 'activate',
			(data) => (outcome = { items: data[0] }),
			(error) => (outcome = { items: null, error }),
			undefined,
			undefined,
			undefined,
			budget,
		);
		const executor = Container.get(PollTriggerExecutor).create(
			workflow,
			node,
			context as unknown as IPollFunctions,
			() => true,
		);
		await executor(testing);
		return outcome;
	};
	const restarted = options.restart && mode !== 'memory';
	const atActivation = restarted ? { items: null } : await pollIn(activationWorkflow, true);
	// n8n saves the static data after the activation; a durable cursor only with an execution.
	if (!restarted && (mode !== 'durable' || atActivation.items !== null)) {
		saved = copy(activationWorkflow.staticData);
	}
	const poll = async () => {
		if (freshProcess === 'everyPoll') types = freshTriggerType();
		const workflow = mode === 'memory' ? activationWorkflow : workflowFrom(saved);
		const polled = await pollIn(workflow, false);
		const store = mode === 'durable' ? !polled.error : polled.items !== null;
		if (store) saved = copy(workflow.staticData);
		return polled;
	};
	return {
		atActivation,
		poll,
		fetchTestEvent: async () => {
			const manual = new PollContext(activationWorkflow, node, additionalData, 'manual', 'manual');
			const type = NodeHelpers.getVersionedNodeType(nodeTypes.getByName(TRIGGER_TYPE), 1);
			return (await type.poll!.call(manual))?.[0] ?? null;
		},
		// n8n's Workflow keeps it as a proxy that notes changes; a plain copy is what it saves.
		get staticData() {
			return mode === 'memory' ? copy(activationWorkflow.staticData) : copy(saved);
		},
		get savedStaticData() {
			return copy(saved);
		},
	};
}
