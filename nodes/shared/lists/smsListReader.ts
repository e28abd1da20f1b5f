// Reads pages of the SMS list outside routing, through the one request loop.
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { unwrapData } from '../requests/errors';
import { checkedPage } from './list';
import type { SmsPageReader } from './sentMessages';
import { request as makeRequest, unansweredText, type RequestControl } from '../requests/transport';
import { baseUrlOf } from '../input/validation';

interface SmsListReaderOptions {
	/** n8n's Request Options (Proxy, Ignore SSL Issues, Timeout) of a node that has them. */
	request?: Pick<IHttpRequestOptions, 'proxy' | 'skipSslCertificateValidation' | 'timeout'>;
	/** The requests in flight, the run they belong to, held back together (transport.ts). */
	control?: RequestControl;
	/** The item an error names. */
	itemIndex?: number;
	/** What an error says about trying again, after "Reading the list changes nothing; ". */
	again?: string;
	/** Whether an error names the page that could not be read (a reading of many pages). */
	namePage?: boolean;
}

/**
 * Reads pages of `GET {baseUrl}/sms` outside routing (Get Delivery Status, Send's lookup of unknown
 * outcomes, the trigger's polls) through the one request loop, as a read, and each page checked
 * as Get Many checks it.
 */
export function smsListReader(
	this: IExecuteFunctions | IPollFunctions,
	{ baseUrl, apiToken }: { baseUrl: string; apiToken: string },
	{
		request = {},
		control,
		itemIndex,
		again = 'running it again is safe',
		namePage,
	}: SmsListReaderOptions,
): SmsPageReader {
	const node = this.getNode();
	const context = { operation: 'list' as const, itemIndex, apiToken };
	return async (qs: IDataObject): Promise<JsonObject> => {
		const end = await makeRequest.call(
			this,
			{
				method: 'GET',
				baseURL: baseUrlOf(baseUrl),
				url: '/sms',
				qs,
				headers: { Accept: 'application/json' },
				json: true,
				...request,
			},
			{ repeatable: true },
			control,
		);
		if (end.outcome !== 'answered') {
			const list = namePage ? `Page ${String(qs.page)} of the SMS list` : 'The SMS list';
			throw new NodeOperationError(node, `${list} could not be read: ${unansweredText(end)}`, {
				itemIndex,
				description: `Reading the list changes nothing; ${again}.`,
			});
		}
		const { statusCode, body } = end.response;
		const data = unwrapData(node, statusCode, body, context);
		return checkedPage(node, statusCode, data, Number(qs.page), context);
	};
}
