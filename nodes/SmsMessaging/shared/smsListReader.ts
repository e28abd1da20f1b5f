import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { unwrapData } from './errors';
import { checkedPage } from './list';
import type { SmsPageReader } from './sentMessages';
import {
	DEFAULT_RETRY,
	requestWithRetry,
	unansweredText,
	type RequestSettings,
	type RetryGate,
} from './transport';

/**
 * Reads pages of `GET {baseUrl}/sms` for a custom operation (Get Delivery Status, Send's lookup
 * of unknown outcomes): n8n's Request Options, 429 and 503 retried as for Get Many and held back
 * together through `gate`, and each page checked as Get Many checks it. Errors name `itemIndex`.
 */
export function smsListReader(
	this: IExecuteFunctions,
	{ baseUrl, apiToken }: { baseUrl: string; apiToken: string },
	settings: RequestSettings,
	gate: RetryGate,
	itemIndex?: number,
): SmsPageReader {
	const node = this.getNode();
	const context = { operation: 'list' as const, itemIndex, apiToken };
	return async (qs: IDataObject): Promise<JsonObject> => {
		const delivery = await requestWithRetry.call(
			this,
			{
				method: 'GET',
				baseURL: String(baseUrl).replace(/\/+$/, ''),
				url: '/sms',
				qs,
				headers: { Accept: 'application/json' },
				json: true,
				...settings.request,
			},
			DEFAULT_RETRY,
			{ gate },
		);
		if (delivery.outcome !== 'answered') {
			throw new NodeOperationError(
				node,
				`The SMS list could not be read: ${unansweredText(delivery)}`,
				{ itemIndex, description: 'Reading the list changes nothing; running it again is safe.' },
			);
		}
		const { statusCode, body } = delivery.response;
		const data = unwrapData(node, statusCode, body, context);
		return checkedPage(node, statusCode, data, Number(qs.page), context);
	};
}
