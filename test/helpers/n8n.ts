// Runs workflows through n8n-core's real WorkflowExecute with the built package loaded the way n8n
// loads it, so that tests see what a user would see.
import { ExecutionLifecycleHooks, PackageDirectoryLoader, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type ICredentials,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type INodeTypes,
	type IRun,
	type IVersionedNodeType,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
	type IConnections,
	type NodeExecutionHint,
	type IRunExecutionData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { inspect } from 'node:util';

import { packageRoot } from './package-root';

/**
 * The built package (dist/, from the paths in package.json's `n8n` field), loaded by n8n-core's own
 * PackageDirectoryLoader as n8n loads a community package. Besides instantiating the classes, the
 * loader changes the node description as n8n does: a declarative node (no `execute`, which is
 * what a node with only `customOperations` is) gains n8n's "Request Options" (`requestOptions`:
 * batching, allowUnauthorizedCerts, proxy, timeout), a polling node its Poll Times, and icons
 * become icon URLs. Tests give Request Options as ordinary node parameters
 * (`parameters: { ..., requestOptions: { proxy, timeout, allowUnauthorizedCerts } }`).
 *
 * No setup is needed for the loader: it takes n8n's Logger from n8n-core's DI container, which
 * builds one from the environment's defaults (WorkflowExecute does the same). Under Jest
 * (NODE_ENV=test) it `require`s the classes; elsewhere (bench/) it instantiates them through a
 * `vm` script that calls the same `require`, as n8n does.
 */
// `npm run bench` loads an earlier build of the package from BENCH_PACKAGE_ROOT, beside this one.
const loader = new PackageDirectoryLoader(process.env.BENCH_PACKAGE_ROOT || packageRoot());
const PACKAGE_NAME = loader.packageName;
// loadAll() is async by signature, but in n8n-core 2.x it loads every file before its first
// await; the exports below need the classes at import time (bench/ adds node types on import,
// and the credential-test node is built from the credential), so check that it did.
const loaded = loader.loadAll();
// Why loading failed (no build, a description n8n rejects) is in the rejection; reported below.
loaded.catch(() => undefined);
if (
	Object.keys(loader.nodeTypes).length === 0 ||
	Object.keys(loader.credentialTypes).length === 0
) {
	throw new Error(
		`n8n-core's PackageDirectoryLoader loaded no node or no credential from ${loader.directory} ` +
			// inspect() shows a settled promise's state and reason at once: the loader's own error.
			`at import (is the package built?): ${inspect(loaded)}`,
	);
}

const NODE_TYPE = 'n8n-nodes-sms-messaging.smsMessaging';
const CREDENTIAL_NAME = 'smsMessagingApi';

/** The short name n8n's loader files a node under: `smsMessaging` for `<package>.smsMessaging`. */
function shortName(type: string): string {
	return type.startsWith(`${PACKAGE_NAME}.`) ? type.slice(PACKAGE_NAME.length + 1) : type;
}

/**
 * A node type of the package as n8n's loader gave it (with n8n's added settings such as Request
 * Options); `type` is the full name (`n8n-nodes-sms-messaging.smsMessaging`) or the short one.
 */
export function loadedNodeType(type: string = NODE_TYPE): INodeType | IVersionedNodeType {
	return loader.getNode(shortName(type)).type;
}

/** The description n8n shows and validates against for `type` at `version` (the latest if omitted). */
export function loadedNodeDescription(
	type: string = NODE_TYPE,
	version?: number,
): INodeTypeDescription {
	return NodeHelpers.getVersionedNodeType(loadedNodeType(type), version).description;
}

const ITEMS_TYPE = 'test.items';

/** Stands in for a trigger plus whatever produced the rows: it outputs the items it is given. */
class ItemsNode implements INodeType {
	description = {
		displayName: 'Items',
		name: 'items',
		group: ['input'],
		version: 1,
		description: 'Outputs fixed items',
		defaults: { name: 'Items' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = JSON.parse(this.getNodeParameter('items', 0) as string) as object[];
		return [items.map((json) => ({ json: json as INodeExecutionData['json'] }))];
	}
}

/** The package's credential type, as n8n's loader gave it. */
export const credentialType: ICredentialType = loader.getCredential(CREDENTIAL_NAME).type;

export const CREDENTIAL_TEST_TYPE = 'test.credentialTest';

/**
 * n8n tests a credential by running its `test.request` as the request defaults of a declarative
 * node without properties, authenticated with the credential; this is that node.
 */
const credentialTestNode = {
	description: {
		displayName: 'Credential test',
		name: 'credentialTest',
		group: ['input'],
		version: 1,
		description: '',
		defaults: { name: 'Credential test' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: credentialType.name, required: true }],
		requestDefaults: credentialType.test!.request,
		properties: [],
	},
} as unknown as INodeType;

/**
 * Node types the engine knows besides the package's (which come from n8n's loader): the test
 * nodes here, and benchmarks add their own comparison nodes.
 */
export const nodeTypeInstances: Record<string, INodeType> = {
	[ITEMS_TYPE]: new ItemsNode(),
	[CREDENTIAL_TEST_TYPE]: credentialTestNode,
};

const isPackageType = (type: string) => type.startsWith(`${PACKAGE_NAME}.`);

/** n8n's NodeTypes reduced to a lookup: the package's types from the loader, then the others. */
export const nodeTypes: INodeTypes = {
	getByName: (type) => (isPackageType(type) ? loadedNodeType(type) : nodeTypeInstances[type]),
	getByNameAndVersion: (type, version) =>
		isPackageType(type)
			? NodeHelpers.getVersionedNodeType(loadedNodeType(type), version)
			: nodeTypeInstances[type],
	getKnownTypes: () => ({}),
};

/** n8n's credentials helper reduced to what a function-based `authenticate` needs. */
class CredentialsHelper extends ICredentialsHelper {
	constructor(private readonly data: ICredentialDataDecryptedObject) {
		super();
	}

	getParentTypes() {
		return [];
	}

	isCredentialUsableByNode() {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	) {
		if (typeName !== credentialType.name || typeof credentialType.authenticate !== 'function') {
			throw new Error(`unexpected credential type ${typeName}`);
		}
		return await credentialType.authenticate(credentials, requestOptions);
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used');
	}

	async getDecrypted() {
		return { ...this.data };
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties() {
		return credentialType.properties;
	}
}

export interface Credentials {
	apiToken: string;
	baseUrl: string;
	sendBaseUrl: string;
}

export interface RunOptions {
	/** Node type under test; the SMS Messaging node unless told otherwise. */
	nodeType?: string;
	/** Parameters of the SMS Messaging node. */
	parameters: INode['parameters'];
	/** Input items of the SMS Messaging node. */
	items?: object[];
	/**
	 * Start at the node under test with `items` as its input, as n8n does for pinned input data,
	 * instead of producing them with an upstream node (for large benchmark inputs).
	 */
	inputDirect?: boolean;
	credentials: Credentials;
	continueOnFail?: boolean;
	onError?: INode['onError'];
	/** n8n's Retry On Fail on the node under test: tries in all, and the wait between them. */
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
	/** How the execution started: 'manual' unless told otherwise ('webhook', 'trigger'…). */
	mode?: WorkflowExecuteMode;
	/** n8n's waiting-webhook address (from WEBHOOK_URL), when not this machine's stand-in. */
	webhookWaitingBaseUrl?: string;
}

export interface RunResult {
	run: IRun;
	/** The workflow and the services the run used, to resume it (a waiting run) as n8n does. */
	workflow: Workflow;
	additionalData: IWorkflowExecuteAdditionalData;
	/** Items on the SMS Messaging node's first output (empty when it failed). */
	items: INodeExecutionData[];
	/** Items on its second output, with onError "continueErrorOutput". */
	errorItems: INodeExecutionData[];
	/** The hints n8n shows in the node's output pane after the run. */
	hints: NodeExecutionHint[];
	/** The node's error when the run stopped. */
	error?: {
		message: string;
		description?: string | null;
		httpCode?: string | null;
		context?: object;
	};
	/** What n8n would push to the editor's browser console during the run. */
	uiMessages: unknown[];
	/** Everything n8n stores of the run and pushes to the editor, serialised. */
	readonly serialized: string;
}

/**
 * What n8n hands every node execution context besides the workflow: here, the credential and
 * stand-ins for the server's URLs and services; `extra` adds the run's hooks and UI channel.
 */
export function executionAdditionalData(
	credentials: Credentials,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new CredentialsHelper(
			credentials as unknown as ICredentialDataDecryptedObject,
		),
		currentNodeParameters: undefined,
		currentNodeExecutionIndex: 0,
		variables: {},
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formBaseUrl: 'http://127.0.0.1:5678/formBaseUrl',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/formWaitingBaseUrl',
		formTestBaseUrl: 'http://127.0.0.1:5678/formTestBaseUrl',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhookBaseUrl',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhookWaitingBaseUrl',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhookTestBaseUrl',
		mcpBaseUrl: 'http://127.0.0.1:5678/mcpBaseUrl',
		mcpTestBaseUrl: 'http://127.0.0.1:5678/mcpTestBaseUrl',
		executeWorkflow: async () => {
			throw new Error('not used');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: async () => {},
		startRunnerTask: async () => {
			throw new Error('not used');
		},
		...extra,
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** The two-node workflow of a run: Items, then the node under test. */
function buildWorkflow(options: RunOptions) {
	const nodes: INode[] = [
		{
			id: 'items',
			name: 'Items',
			type: ITEMS_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: options.inputDirect ? '[]' : JSON.stringify(options.items ?? [{}]) },
		},
		{
			id: 'sms',
			name: 'SMS Messaging',
			type: options.nodeType ?? NODE_TYPE,
			typeVersion: 1,
			position: [200, 0],
			parameters: options.parameters,
			credentials: { [CREDENTIAL_NAME]: { id: '1', name: 'SMS Messaging account' } },
			continueOnFail: options.continueOnFail,
			onError: options.onError,
			...(options.retryOnFail ? { retryOnFail: true, ...options.retryOnFail } : {}),
		},
	];
	const connections: IConnections = {
		Items: { main: [[{ node: 'SMS Messaging', type: 'main', index: 0 }]] },
	};
	const workflow = new Workflow({
		id: 'test',
		nodes,
		connections,
		nodeTypes,
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const workflowData = {
		id: 'test',
		name: 'test',
		nodes,
		connections,
		active: false,
	} as unknown as IWorkflowBase;

	return { nodes, workflow, workflowData };
}

/** Runs `runExecutionData` through n8n-core's engine in `mode` and reads what the node did. */
async function execute(
	options: RunOptions,
	mode: WorkflowExecuteMode,
	runExecutionData: IRunExecutionData,
): Promise<RunResult> {
	const { workflow, workflowData } = buildWorkflow(options);
	const hooks = new ExecutionLifecycleHooks(mode, '1', workflowData);
	let finished: IRun | undefined;
	hooks.addHandler('workflowExecuteAfter', (run) => {
		finished = run;
	});

	const uiMessages: unknown[] = [];
	const additionalData = executionAdditionalData(options.credentials, {
		hooks,
		executionId: '1',
		sendDataToUI: (_type: string, data: unknown) => uiMessages.push(data),
		...(options.webhookWaitingBaseUrl
			? { webhookWaitingBaseUrl: options.webhookWaitingBaseUrl }
			: {}),
	});

	const returned = await new WorkflowExecute(
		additionalData,
		mode,
		runExecutionData,
	).processRunExecutionData(workflow);
	const run = finished ?? returned;
	const runs = run.data.resultData.runData['SMS Messaging'] ?? [];
	const task = runs[runs.length - 1];
	const error = task?.error as RunResult['error'];
	return {
		run,
		workflow,
		additionalData,
		items: task?.data?.main?.[0] ?? [],
		errorItems: task?.data?.main?.[1] ?? [],
		hints: task?.hints ?? [],
		error: error ? JSON.parse(JSON.stringify(error)) : undefined,
		uiMessages,
		get serialized() {
			return JSON.stringify({ run, uiMessages });
		},
	};
}

export async function runWorkflow(options: RunOptions): Promise<RunResult> {
	await loaded;
	const { nodes } = buildWorkflow(options);
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				options.inputDirect
					? {
							node: nodes[1],
							data: {
								main: [
									(options.items ?? [{}]).map((json) => ({
										json: json as INodeExecutionData['json'],
									})),
								],
							},
							source: null,
						}
					: { node: nodes[0], data: { main: [[{ json: {} }]] }, source: null },
			],
		},
	});

	return await execute(options, options.mode ?? 'manual', runExecutionData);
}

/**
 * Retries a failed execution as n8n's Executions list does (ExecutionService.retry): the stored
 * execution data (here through JSON, as n8n stores it) without the run's error and without the
 * failed node's last task, run again in mode `retry` from the node left on the stack; with
 * `loadWorkflow`, the stack's nodes come from the workflow as `options` now describe it.
 */
export async function retryExecution(
	failed: RunResult,
	options: RunOptions,
	{ loadWorkflow = false } = {},
): Promise<RunResult> {
	const data = JSON.parse(JSON.stringify(failed.run.data)) as IRunExecutionData;
	if (loadWorkflow) {
		// "Retry with currently saved workflow": the stack's nodes as the workflow now has them.
		const { workflow } = buildWorkflow(options);
		for (const entry of data.executionData?.nodeExecutionStack ?? []) {
			entry.node = workflow.getNode(entry.node.name) ?? entry.node;
		}
	}
	const { resultData } = data;
	const last = resultData.lastNodeExecuted;
	if (last) {
		delete resultData.error;
		const tasks = resultData.runData[last];
		if (tasks.length > 0 && tasks[tasks.length - 1].error !== undefined) tasks.pop();
	}
	return await execute(options, 'retry', data);
}
