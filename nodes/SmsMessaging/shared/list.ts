import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';

import { unexpectedBodyError, unwrapData, type ApiErrorContext } from './errors';
import { runPerItem, type ApiCredentials, type ItemResult, type PerItemOperation } from './perItem';
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

function limitHint(limit: number, total: number | undefined): ItemResult['hint'] {
	const matching = total === undefined ? 'more matching records' : `${total} matching records`;
	return {
		message: `Get Many stopped at the Limit of ${limit} while the API has ${matching}. Turn on Return All, or raise the Limit, to get the rest.`,
		label: `Limit ${limit}, ${matching}`,
	};
}

/**
 * Fetches one item's records page by page. Every page is asked at the same size, the largest
 * (or the Limit when smaller), because the API numbers pages by the size asked for; the last page
 * is trimmed to the Limit. It stops at whichever comes first: the API says `last`, the page number
 * reaches `totalPages`, the records reach `totalElements`, a page is empty, a page is shorter than
 * asked (unless the API says it is not the last), or the Limit. So a server that never says `last`
 * cannot keep it going. When the Limit cut the list short, the result carries a hint saying how
 * many records the API has.
 */
async function fetchRecords(
	this: IExecuteFunctions,
	path: string,
	{ query, limit }: ListRequest,
	itemIndex: number,
	credentials: ApiCredentials,
): Promise<ItemResult> {
	const node = this.getNode();
	const context: ApiErrorContext = { operation: 'list', itemIndex, apiToken: credentials.apiToken };
	const records: IDataObject[] = [];
	const pageSize = Math.min(MAX_PAGE_SIZE, limit);
	for (let page = 1; ; page++) {
		const delivery = await requestWithRetry.call(
			this,
			{
				method: 'GET',
				baseURL: credentials.baseUrl,
				url: path,
				qs: { ...query, page, records: pageSize },
				json: true,
			},
			DEFAULT_RETRY,
		);
		if (delivery.outcome !== 'answered') {
			throw new NodeOperationError(
				node,
				`Item ${itemIndex}: page ${page} of the list could not be read: ${delivery.reason}`,
				{ itemIndex, description: 'Reading a list changes nothing; running it again is safe.' },
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
			content.length === 0 ||
			last === true ||
			(typeof totalPages === 'number' && page >= totalPages) ||
			(total !== undefined && records.length >= total) ||
			(content.length < pageSize && last !== false);
		if (lastPage || records.length >= limit) {
			// The hint is for a list the Limit cut short, not for one the API ended early.
			const more =
				records.length >= limit &&
				(total !== undefined ? total > records.length : content.length > room || !lastPage);
			return { records, hint: more ? limitHint(limit, total) : undefined };
		}
	}
}

/**
 * Get Many for both lists: every item's filters are checked before the first request, then each
 * item gets its records, paired to it.
 */
export async function getMany(
	this: IExecuteFunctions,
	path: string,
	readQuery: ListQueryReader,
): Promise<INodeExecutionData[][]> {
	const operation: PerItemOperation<ListRequest> = {
		read(itemIndex) {
			const query = readQuery.call(this, itemIndex);
			if (this.getNodeParameter('returnAll', itemIndex, false) as boolean) {
				return { query, limit: Infinity };
			}
			const ref = { node: this.getNode(), itemIndex, field: 'limit', label: 'Limit' };
			return { query, limit: positiveInteger(ref, this.getNodeParameter('limit', itemIndex, 50)) };
		},
		async run(request, itemIndex, credentials) {
			return await fetchRecords.call(this, path, request, itemIndex, credentials);
		},
		hintSummary: '{count} items stopped at their Limit while the API has more matching records',
	};
	return await runPerItem.call(this, operation);
}
