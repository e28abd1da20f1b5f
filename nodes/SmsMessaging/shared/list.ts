import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type JsonObject,
	type NodeExecutionHint,
} from 'n8n-workflow';

import { unexpectedBodyError, unwrapData, type ApiErrorContext } from './errors';
import { CREDENTIAL_TYPE } from './routing';
import { DEFAULT_RETRY, requestWithRetry } from './transport';
import { positiveInteger } from './validation';

/** The largest page the API serves (spec section 8). */
const MAX_PAGE_SIZE = 100;

/** Reads and checks one item's filters as the list's query parameters; throws on bad input. */
export type ListQueryReader = (this: IExecuteFunctions, itemIndex: number) => IDataObject;

interface ListRequest {
	query: IDataObject;
	/** Infinity with Return All. */
	limit: number;
}

interface ListResult {
	records: IDataObject[];
	/** Whether the API has more matching records than were returned. */
	more: boolean;
	/** Matching records the API reports, when it does. */
	total?: number;
}

interface PageMetadata {
	last?: unknown;
	totalPages?: unknown;
	totalElements?: unknown;
}

/** The SMS list puts page metadata under `pagination`, the contact list beside `content`. */
function pageMetadata(data: JsonObject): PageMetadata {
	const nested = data.pagination;
	return nested && typeof nested === 'object' && !Array.isArray(nested)
		? (nested as PageMetadata)
		: (data as PageMetadata);
}

function readRequest(
	this: IExecuteFunctions,
	readQuery: ListQueryReader,
	itemIndex: number,
): ListRequest {
	const query = readQuery.call(this, itemIndex);
	if (this.getNodeParameter('returnAll', itemIndex, false) as boolean) {
		return { query, limit: Infinity };
	}
	const ref = { node: this.getNode(), itemIndex, field: 'limit', label: 'Limit' };
	return { query, limit: positiveInteger(ref, this.getNodeParameter('limit', itemIndex, 50)) };
}

/**
 * Fetches one item's records page by page. Requests the largest page (or a Limit-sized one when
 * smaller) and stops on `last`, an empty or short page, `totalPages`, or the Limit, whichever
 * comes first, so that a server that never says `last` cannot keep it going.
 */
async function fetchRecords(
	this: IExecuteFunctions,
	path: string,
	baseUrl: string,
	{ query, limit }: ListRequest,
	context: ApiErrorContext,
): Promise<ListResult> {
	const node = this.getNode();
	const records: IDataObject[] = [];
	for (let page = 1; ; page++) {
		const pageSize = Math.min(MAX_PAGE_SIZE, limit - records.length);
		const delivery = await requestWithRetry.call(
			this,
			{
				method: 'GET',
				baseURL: baseUrl,
				url: path,
				qs: { ...query, page, records: pageSize },
				json: true,
			},
			DEFAULT_RETRY,
		);
		if (delivery.outcome !== 'answered') {
			throw new NodeOperationError(
				node,
				`Item ${context.itemIndex}: page ${page} of the list could not be read: ${delivery.reason}`,
				{
					itemIndex: context.itemIndex,
					description: 'Nothing was changed by this request; running it again is safe.',
				},
			);
		}
		const { statusCode, body } = delivery.response;
		const data = unwrapData(node, statusCode, body, context);
		if (!Array.isArray(data.content)) {
			throw unexpectedBodyError(node, statusCode, `page ${page} has no "content" list`, context);
		}
		const content = data.content as IDataObject[];
		const room = limit - records.length;
		records.push(...content.slice(0, room));

		const { last, totalPages, totalElements } = pageMetadata(data);
		const total = typeof totalElements === 'number' ? totalElements : undefined;
		const lastPage =
			content.length < pageSize ||
			last === true ||
			(typeof totalPages === 'number' && page >= totalPages);
		if (lastPage || records.length >= limit) {
			const more =
				total !== undefined ? total > records.length : content.length > room || !lastPage;
			return { records, more, total };
		}
	}
}

function limitHint(
	itemIndex: number,
	items: number,
	limit: number,
	total?: number,
): NodeExecutionHint {
	const item = items > 1 ? `Item ${itemIndex}: ` : '';
	const matching = total === undefined ? 'more matching records' : `${total} matching records`;
	return {
		message: `${item}Get Many stopped at the Limit of ${limit} while the API has ${matching}. Turn on Return All, or raise the Limit, to get the rest.`,
		type: 'info',
		location: 'outputPane',
	};
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
 * Get Many for both lists. Every item's filters are checked before the first request, each item
 * then gets its records (paired to it), and a hint in the output says when the Limit cut a list
 * short. The hint depends on what the API answered, which declarative routing cannot report:
 * that is why the lists are custom operations.
 */
export async function getMany(
	this: IExecuteFunctions,
	path: string,
	readQuery: ListQueryReader,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	const requests = items.map((_, itemIndex) => {
		try {
			return readRequest.call(this, readQuery, itemIndex);
		} catch (caught) {
			const error = nodeError(node, caught, itemIndex);
			// Nothing has been requested yet: without Continue On Fail one bad item stops the run.
			if (!continueOnFail) throw error;
			return error;
		}
	});

	const credentials = await this.getCredentials<{ baseUrl: string; apiToken: string }>(
		CREDENTIAL_TYPE,
	);
	const output: INodeExecutionData[] = [];
	const hints: NodeExecutionHint[] = [];
	for (const [itemIndex, request] of requests.entries()) {
		if (request instanceof Error) {
			output.push(errorItem(itemIndex, request));
			continue;
		}
		const context: ApiErrorContext = {
			operation: 'list',
			itemIndex,
			apiToken: credentials.apiToken,
		};
		let result: ListResult;
		try {
			result = await fetchRecords.call(this, path, credentials.baseUrl, request, context);
		} catch (caught) {
			const error = nodeError(node, caught, itemIndex);
			if (!continueOnFail) throw error;
			output.push(errorItem(itemIndex, error));
			continue;
		}
		for (const record of result.records) {
			output.push({ json: record, pairedItem: { item: itemIndex } });
		}
		if (result.more && request.limit !== Infinity) {
			hints.push(limitHint(itemIndex, items.length, request.limit, result.total));
		}
	}
	if (hints.length > 0) this.addExecutionHints(...hints);
	return [output];
}
