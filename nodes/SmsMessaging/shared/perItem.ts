import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type NodeExecutionHint,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './transport';

export interface ApiCredentials {
	apiToken: string;
	baseUrl: string;
}

/** Something the user should know about one item's result, shown in the output pane. */
export interface ItemHint {
	message: string;
	/** A short form, listed when the hints of several items are collapsed into one. */
	label: string;
}

export interface ItemResult {
	records: IDataObject[];
	hint?: ItemHint;
}

/** An operation that makes its own request(s) for each input item. */
export interface PerItemOperation<Request> {
	/** Reads and checks one item's parameters; throws a NodeOperationError naming the field. */
	read(this: IExecuteFunctions, itemIndex: number): Request;
	run(
		this: IExecuteFunctions,
		request: Request,
		itemIndex: number,
		credentials: ApiCredentials,
	): Promise<ItemResult>;
	/** The hints of several items collapse into one line; `{count}` is their number. */
	hintSummary: string;
}

type NodeError = NodeApiError | NodeOperationError;

/** What a check or a request threw; anything unforeseen is wrapped so that n8n can show it. */
function nodeError(node: INode, caught: unknown, itemIndex: number): NodeError {
	if (caught instanceof NodeApiError || caught instanceof NodeOperationError) return caught;
	return new NodeOperationError(node, caught as Error, { itemIndex });
}

function errorItem(itemIndex: number, error: NodeError): INodeExecutionData {
	return {
		json: {
			error: error.message,
			details: {
				description: error.description ?? null,
				httpCode: error instanceof NodeApiError ? error.httpCode : null,
			},
		},
		pairedItem: { item: itemIndex },
	};
}

/**
 * Runs an operation item by item, the way a user expects of n8n: every item's parameters are
 * checked before the first request, so that one bad item stops the run before anything happens
 * (or, with Continue On Fail, becomes an error item paired to it); each item's records come out
 * paired to it; and what the answers call for is said in the output pane, which only an execute
 * context can do (declarative routing returns no hints).
 */
export async function runPerItem<Request>(
	this: IExecuteFunctions,
	operation: PerItemOperation<Request>,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	const requests = items.map((_, itemIndex): { request: Request } | { error: NodeError } => {
		try {
			return { request: operation.read.call(this, itemIndex) };
		} catch (caught) {
			const error = nodeError(node, caught, itemIndex);
			if (!continueOnFail) throw error;
			return { error };
		}
	});

	const credentials = await this.getCredentials<ApiCredentials>(CREDENTIAL_TYPE);
	const output: INodeExecutionData[] = [];
	const hints: NodeExecutionHint[] = [];
	for (const [itemIndex, read] of requests.entries()) {
		if ('error' in read) {
			output.push(errorItem(itemIndex, read.error));
			continue;
		}
		let result: ItemResult;
		try {
			result = await operation.run.call(this, read.request, itemIndex, credentials);
		} catch (caught) {
			const error = nodeError(node, caught, itemIndex);
			if (!continueOnFail) throw error;
			output.push(errorItem(itemIndex, error));
			continue;
		}
		for (const record of result.records) {
			output.push({ json: record, pairedItem: { item: itemIndex } });
		}
		if (result.hint) {
			const { message, label } = result.hint;
			const item = items.length > 1 ? `Item ${itemIndex}: ` : '';
			hints.push({
				message: `${item}${message}`,
				type: 'info',
				location: 'outputPane',
				// n8n 2.x's editor collapses the hints that share a group into its summary.
				group: {
					key: operation.hintSummary,
					summary: operation.hintSummary,
					label: `${item}${label}`,
				},
			});
		}
	}
	if (hints.length > 0) this.addExecutionHints(...hints);
	return [output];
}
