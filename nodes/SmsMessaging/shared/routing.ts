import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	JsonObject,
	PreSendAction,
} from 'n8n-workflow';

import {
	unexpectedBodyError,
	unwrapData,
	wrapperData,
	type ApiErrorContext,
	type ApiOperation,
} from './errors';
import type { FieldRef } from './validation';

export const CREDENTIAL_TYPE = 'smsMessagingApi';

/** The largest page the API serves (spec section 8). */
const MAX_PAGE_SIZE = 100;

async function errorContext(this: IExecuteSingleFunctions): Promise<ApiErrorContext> {
	const resource = this.getNodeParameter('resource') as string;
	const operation = this.getNodeParameter('operation') as string;
	const credentials = await this.getCredentials<{ apiToken?: string }>(CREDENTIAL_TYPE);
	return {
		operation: (operation === 'getAll' ? 'list' : `${resource}:${operation}`) as ApiOperation,
		itemIndex: this.getItemIndex(),
		apiToken: credentials.apiToken,
		senderId:
			resource === 'senderId' && operation === 'update' ? this.getNodeParameter('id') : undefined,
	};
}

/**
 * postReceive for every declarative operation: an error status becomes the mapped API error,
 * a success gives the wrapper's `data` as the item.
 */
export async function unwrapResponse(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	// The error context (and the token, kept out of messages) is only read for an error.
	const data =
		wrapperData(response.statusCode, response.body) ??
		unwrapData(this.getNode(), response.statusCode, response.body, await errorContext.call(this));
	return [{ json: data, pairedItem: { item: this.getItemIndex() } }];
}

/**
 * A preSend that checks one parameter of the item and, when it is set, sends the checked value
 * as `name` in the query or the body. It runs before the item's request, so bad input never
 * reaches the API.
 */
export function sendChecked(
	location: 'qs' | 'body',
	name: string,
	parameter: string,
	label: string,
	check: (ref: FieldRef, value: unknown) => string | number,
): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const value = this.getNodeParameter(parameter, '') as unknown;
		if (location === 'qs' && (value === '' || value === undefined || value === null)) {
			return requestOptions;
		}
		const ref = { node: this.getNode(), itemIndex: this.getItemIndex(), field: parameter, label };
		const checked = check(ref, value);
		if (location === 'qs') requestOptions.qs = { ...requestOptions.qs, [name]: checked };
		else requestOptions.body = { ...(requestOptions.body as JsonObject), [name]: checked };
		return requestOptions;
	};
}

interface PageMetadata {
	last?: unknown;
	totalPages?: unknown;
	empty?: unknown;
}

/** The SMS list puts page metadata under `pagination`, the contact list beside `content`. */
function pageMetadata(data: JsonObject): PageMetadata {
	const nested = data.pagination;
	return nested && typeof nested === 'object' && !Array.isArray(nested)
		? (nested as PageMetadata)
		: (data as PageMetadata);
}

/**
 * Pagination for both lists. Requests the largest page (or a Limit-sized one when smaller) and
 * stops on `last`, an empty or short page, `totalPages`, or the Limit, whichever comes first,
 * so that a server that never says `last` cannot keep it going.
 */
export async function paginateList(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', false) as boolean;
	const limit = returnAll ? Infinity : (this.getNodeParameter('limit', 50) as number);
	const itemIndex = this.getItemIndex();
	const records: INodeExecutionData[] = [];

	for (let page = 1; records.length < limit; page++) {
		const pageSize = Math.min(MAX_PAGE_SIZE, limit - records.length);
		const [response] = await this.makeRoutingRequest({
			...requestData,
			options: {
				...requestData.options,
				qs: { ...requestData.options.qs, page, records: pageSize },
			},
		});
		const data = response.json;
		if (!Array.isArray(data.content)) {
			throw unexpectedBodyError(this.getNode(), 200, `page ${page} has no "content" list`, {
				operation: 'list',
				itemIndex,
			});
		}
		const content = data.content as IDataObject[];
		for (const record of content.slice(0, limit - records.length)) {
			records.push({ json: record as IDataObject, pairedItem: { item: itemIndex } });
		}

		const { last, totalPages } = pageMetadata(data as JsonObject);
		const lastPage =
			content.length < pageSize ||
			last === true ||
			(typeof totalPages === 'number' && page >= totalPages);
		if (lastPage) break;
	}
	return records;
}
