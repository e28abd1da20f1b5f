import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	JsonObject,
	PreSendAction,
} from 'n8n-workflow';

import { unwrapData, wrapperData, type ApiErrorContext } from './errors';
import type { FieldRef } from './validation';

export const CREDENTIAL_TYPE = 'smsMessagingApi';

async function errorContext(this: IExecuteSingleFunctions): Promise<ApiErrorContext> {
	// Sender ID Create and Update are the declarative operations.
	const operation = this.getNodeParameter('operation') as 'create' | 'update';
	const credentials = await this.getCredentials<{ apiToken?: string }>(CREDENTIAL_TYPE);
	return {
		operation: `senderId:${operation}`,
		itemIndex: this.getItemIndex(),
		apiToken: credentials.apiToken,
		senderId: operation === 'update' ? this.getNodeParameter('id') : undefined,
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
 * A preSend that checks one parameter of the item and sends the checked value as `name` in the
 * body. It runs before the item's request, so bad input never reaches the API.
 */
export function sendChecked(
	name: string,
	parameter: string,
	label: string,
	check: (ref: FieldRef, value: unknown) => string | number,
): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const value = this.getNodeParameter(parameter, '') as unknown;
		const ref = { node: this.getNode(), itemIndex: this.getItemIndex(), field: parameter, label };
		requestOptions.body = { ...(requestOptions.body as JsonObject), [name]: check(ref, value) };
		return requestOptions;
	};
}
