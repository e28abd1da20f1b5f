// Each behaviour of n8n the package relies on beyond its documented node API, behind one function.
import {
	NodeHelpers,
	type IContextObject,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IRunExecutionData,
	type IWebhookFunctions,
} from 'n8n-workflow';

// What the package relies on in n8n beyond the node API n8n documents, each behind one function
// here. docs/n8n-internals.md lists them with the n8n versions they were checked on and the test
// that fails if a release of n8n changes them. The other borrowed behaviours (the expression
// shortcut of itemParameters.ts, routing's hand-over in SmsMessaging/routing.ts) are listed there too.

/**
 * The Request Options (Batching, Ignore SSL Issues, Proxy, Timeout) that n8n's loader adds, as the
 * parameter `requestOptions`, to the Settings of a node without `execute`. Routing applies them to
 * routed operations; a custom operation reads them here.
 */
export function requestOptionsParameter(context: IExecuteFunctions): IDataObject {
	return context.getNodeParameter('requestOptions', 0, {}) as IDataObject;
}

/**
 * The node's context in this execution: n8n keeps it in the execution's own data, the same object
 * for every try of Retry On Fail, saved with a failed execution and restored by a retry of it.
 */
export function executionNodeContext(context: IExecuteFunctions): IContextObject {
	return context.getContext('node');
}

/** Which run of the node this is in the execution (a node in a loop runs several times). */
export function runIndexOf(context: IExecuteFunctions): number {
	return context.getWorkflowDataProxy(0).$runIndex;
}

/** n8n 1.x checks a waiting execution's signature only once a node asked for it; 2.x always does. */
type SignatureOptIn = { setSignatureValidationRequired?: () => void };

/**
 * n8n's signed resume URL of this execution and node, with `parameters` in its query (n8n signs
 * them too), where this n8n has one (n8n 1.x checks its signature once asked to); undefined on
 * n8n lines without signed links (1.82).
 */
export function signedResumeUrl(
	context: IExecuteFunctions,
	parameters: Record<string, string> = {},
): string | undefined {
	if (typeof context.getSignedResumeUrl !== 'function') return undefined;
	(context as IExecuteFunctions & SignatureOptIn).setSignatureValidationRequired?.();
	return context.getSignedResumeUrl(parameters);
}

/** The execution's resume URL with the node's id: the waiting webhook's address, unsigned. */
export function unsignedResumeUrl(context: IExecuteFunctions): string {
	const resumeUrl = context.evaluateExpression('{{ $execution.resumeUrl }}', 0) as string;
	return `${resumeUrl}/${encodeURIComponent(context.getNode().id)}`;
}

/**
 * The waiting node's context in the execution a waiting webhook resumes: n8n builds the webhook's
 * context with the waiting execution's data (`runExecutionData`), which holds what
 * `executionNodeContext` stored before the execution went to wait. Undefined when there is none.
 */
export function waitingNodeContext(context: IWebhookFunctions): IContextObject | undefined {
	const { runExecutionData } = context as unknown as {
		runExecutionData?: IRunExecutionData | null;
	};
	if (!runExecutionData?.executionData) return undefined;
	return NodeHelpers.getContext(runExecutionData, 'node', context.getNode());
}

/**
 * What the node outputs if its wait ends by the time limit: n8n then runs the waiting node
 * disabled, which passes on the items of its entry in the execution stack (its input), so the
 * node puts these in that entry's place. An answer through the waiting webhook replaces them.
 */
export function outputOnTimeLimit(context: IExecuteFunctions, items: INodeExecutionData[]): void {
	context.getExecuteData().data = { main: [items] };
}
