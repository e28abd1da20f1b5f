import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { unwrapData } from './errors';
import { checkedPage } from './list';
import type { SmsPageReader } from './sentMessages';
import type { Limiter } from './limiter';
import { DEFAULT_RETRY, requestWithRetry, unansweredText } from './transport';

export interface SmsListReading {
	/** n8n's Request Options (Proxy, Ignore SSL Issues, Timeout) of a node that has them. */
	request?: Pick<IHttpRequestOptions, 'proxy' | 'skipSslCertificateValidation' | 'timeout'>;
	/** The requests in flight, and every request held back while the API asks to slow down. */
	gate?: Limiter;
	/** The item an error names. */
	itemIndex?: number;
	/** What an error says about trying again, after "Reading the list changes nothing; ". */
	again?: string;
	/** Whether an error names the page that could not be read (a reading of many pages). */
	namePage?: boolean;
}

/**
 * Reads pages of `GET {baseUrl}/sms` outside routing (Get Delivery Status, Send's lookup of unknown
 * outcomes, the trigger's polls): 429 and 503 retried as for Get Many, and each page checked as Get
 * Many checks it.
 */
export function smsListReader(
	this: IExecuteFunctions | IPollFunctions,
	{ baseUrl, apiToken }: { baseUrl: string; apiToken: string },
	{ request = {}, gate, itemIndex, again = 'running it again is safe', namePage }: SmsListReading,
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
				...request,
			},
			DEFAULT_RETRY,
			{ gate },
		);
		if (delivery.outcome !== 'answered') {
			const list = namePage ? `Page ${String(qs.page)} of the SMS list` : 'The SMS list';
			throw new NodeOperationError(node, `${list} could not be read: ${unansweredText(delivery)}`, {
				itemIndex,
				description: `Reading the list changes nothing; ${again}.`,
			});
		}
		const { statusCode, body } = delivery.response;
		const data = unwrapData(node, statusCode, body, context);
		return checkedPage(node, statusCode, data, Number(qs.page), context);
	};
}
