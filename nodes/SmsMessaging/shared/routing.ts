import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type DeclarativeRestApiSettings,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IExecuteSingleFunctions,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type INodeExecutionData,
	type INodePropertyRouting,
	type JsonObject,
	type PostReceiveAction,
	type PreSendAction,
} from 'n8n-workflow';

import {
	errorItem,
	nodeError,
	readAnswer,
	SENDER_ID_UNKNOWN_OUTCOME,
	type ApiOperation,
} from './errors';
import { checkedPage, collectPages } from './list';
import {
	answerRetryDelay,
	CREDENTIAL_TYPE,
	DEFAULT_PARALLEL_REQUESTS,
	DEFAULT_RETRY,
	networkFailure,
	RetryGate,
	unansweredText,
	type Unanswered,
} from './transport';
import { fieldsOf, isSet, type FieldRef } from './validation';

// Hooks for n8n's declarative routing: the checks a parameter gets before the item's request
// (preSend), the reading of the API's answer (postReceive), and the request itself with its
// retries and pages (routing's `operations.pagination`, its one hook around the request).

type ResultOptions = DeclarativeRestApiSettings.ResultOptions;

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

async function apiToken(this: IExecuteSingleFunctions): Promise<string | undefined> {
	return (await this.getCredentials<{ apiToken?: string }>(CREDENTIAL_TYPE)).apiToken;
}

/** The status of every answer read by `apiAnswer`, and its Retry-After, for the retries. */
const answers = new WeakMap<object, { statusCode: number; retryAfter: unknown }>();

/**
 * postReceive: checks the API's answer and gives its `data` object, paired to the item. An error
 * status becomes the API's message with each `errors` entry and what to do; a 2xx that is not the
 * documented wrapper is an error too, never an empty item. The token never appears in either.
 */
export function apiAnswer(operation: ApiOperation): PostReceiveAction {
	return async function (
		this: IExecuteSingleFunctions,
		_items: INodeExecutionData[],
		response: IN8nHttpFullResponse,
	): Promise<INodeExecutionData[]> {
		const itemIndex = this.getItemIndex();
		const read = readAnswer(this.getNode(), response.statusCode, response.body, {
			operation,
			itemIndex,
			apiToken: await apiToken.call(this),
			senderId: operation === 'senderId:update' ? this.getNodeParameter('id', '') : undefined,
		});
		const answer = { statusCode: response.statusCode, retryAfter: response.headers['retry-after'] };
		if ('error' in read) {
			answers.set(read.error, answer);
			throw read.error;
		}
		answers.set(read.data, answer);
		return [{ json: read.data, pairedItem: { item: itemIndex } }];
	};
}

/**
 * Makes the routed request, retrying only what proves that nothing was processed: 429 and 503
 * (honouring Retry-After), and a connection that was refused or never resolved. Any other failure
 * without an answer is never retried and becomes the error `unanswered` words. Requests sharing a
 * `gate` wait together after a 429 or 503 on any of them.
 */
async function routedRequest(
	this: IExecutePaginationFunctions,
	requestData: ResultOptions,
	unanswered: (failure: Unanswered) => Error,
	gate = new RetryGate(),
): Promise<JsonObject> {
	for (let attempt = 1; ; attempt++) {
		await gate.pass();
		try {
			const [answer] = await this.makeRoutingRequest(requestData);
			return answer.json as JsonObject;
		} catch (caught) {
			const error = nodeError(this.getNode(), caught, this.getItemIndex());
			const answer = answers.get(error);
			if (answer) {
				const wait = answerRetryDelay(DEFAULT_RETRY, attempt, answer.statusCode, answer.retryAfter);
				if (wait === undefined) throw error;
				gate.holdFor(wait);
				continue;
			}
			if (!(error instanceof NodeApiError)) throw error;
			const failure = networkFailure(error, DEFAULT_RETRY, attempt, await apiToken.call(this));
			if ('retryInMs' in failure) {
				await sleep(failure.retryInMs);
				continue;
			}
			throw unanswered(failure);
		}
	}
}

/**
 * Bad input found by a preSend under Continue On Fail, by the request options of its item: the
 * request hook reports it instead of making the request, so that its error item is paired.
 */
const refusedInput = new WeakMap<object, NodeApiError | NodeOperationError>();

/**
 * With Continue On Fail, an item whose input was refused or whose request failed comes out as
 * n8n's error item, paired to it (n8n's routing would leave it unpaired), and the other items go
 * on.
 */
async function orErrorItem(
	this: IExecuteSingleFunctions,
	requestData: ResultOptions,
	run: () => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	try {
		const refused = refusedInput.get(requestData.options);
		if (refused) throw refused;
		return await run();
	} catch (caught) {
		const itemIndex = this.getItemIndex();
		const error = nodeError(this.getNode(), caught, itemIndex);
		if (!this.continueOnFail()) throw error;
		return [errorItem(error, itemIndex)];
	}
}

/** The request of Sender ID → Create or Update, one per item, with its retries. */
export function senderIdRequest(operation: 'create' | 'update') {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: ResultOptions,
	): Promise<INodeExecutionData[]> {
		return await orErrorItem.call(this, requestData, async () => {
			const itemIndex = this.getItemIndex();
			const senderId = await routedRequest.call(this, requestData, (failure) => {
				const notSent = failure.outcome === 'notSent';
				return new NodeOperationError(
					this.getNode(),
					notSent ? `Not sent: ${unansweredText(failure)}` : capitalised(unansweredText(failure)),
					{
						itemIndex,
						description: notSent
							? 'Nothing reached the API; running it again is safe.'
							: SENDER_ID_UNKNOWN_OUTCOME[operation],
					},
				);
			});
			return [{ json: senderId, pairedItem: { item: itemIndex } }];
		});
	};
}

/**
 * Get Many of both lists: the item's records up to the Limit (`maxResults`, set by the Limit
 * field) or all of them with Return All; after the first page, several pages at once when the API
 * says how many there are, all of them held back together by a 429 or 503 on any.
 */
export async function getManyPages(
	this: IExecutePaginationFunctions,
	requestData: ResultOptions,
): Promise<INodeExecutionData[]> {
	return await orErrorItem.call(this, requestData, async () => {
		const node = this.getNode();
		const itemIndex = this.getItemIndex();
		const { maxResults } = requestData;
		const limit = isSet(maxResults) ? Number(maxResults) : Infinity;
		const gate = new RetryGate();
		const readPage = async (page: number, pageSize: number) => {
			const options = {
				...requestData.options,
				qs: { ...requestData.options.qs, page, records: pageSize },
			};
			const data = await routedRequest.call(
				this,
				{ ...requestData, options },
				(failure) => {
					return new NodeOperationError(
						node,
						`Page ${page} of the list could not be read: ${failure.reason}`,
						{ itemIndex, description: 'Reading a list changes nothing; running it again is safe.' },
					);
				},
				gate,
			);
			const statusCode = answers.get(data)?.statusCode ?? 200;
			return checkedPage(node, statusCode, data, page, { operation: 'list', itemIndex });
		};
		const records = await collectPages(readPage, limit, { parallel: DEFAULT_PARALLEL_REQUESTS });
		return records.map((json) => ({ json, pairedItem: { item: itemIndex } }));
	});
}

type Check = (ref: FieldRef, value: unknown) => unknown;

interface CheckedParameter {
	/** The parameter's path, as in the workflow JSON (`filters.startDate`). */
	parameter: string;
	/** Its name as shown in the editor. */
	label: string;
	/** Gives the value to send, or throws the error that names the item and the field. */
	check: Check;
	/** Where the checked value goes; without it the parameter is only checked. */
	send?: { type: 'body' | 'query'; property: string };
	/** An optional parameter left empty is not sent. */
	optional?: boolean;
}

/**
 * preSend: checks the item's value of one parameter before the item's request, and sends the
 * checked value (trimmed, normalised, a date as YYYY-MM-DD) instead of the raw one. A bad value
 * stops this item's request.
 */
function checkParameter({
	parameter,
	label,
	check,
	send,
	optional,
}: CheckedParameter): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		const value = this.getNodeParameter(parameter, undefined) as unknown;
		const target = (send?.type === 'body' ? requestOptions.body : requestOptions.qs) as IDataObject;
		if (optional && !isSet(value)) {
			if (send) delete target[send.property];
			return requestOptions;
		}
		const itemIndex = this.getItemIndex();
		const ref = fieldsOf(this.getNode(), itemIndex)(parameter, label);
		let checked: unknown;
		try {
			checked = check(ref, value);
		} catch (error) {
			// n8n's routing turns a preSend's error into an unpaired error item: the request hook
			// reports it instead, paired. The first refusal of an item is the one reported.
			if (!this.continueOnFail()) throw nodeError(this.getNode(), error, itemIndex);
			if (!refusedInput.has(requestOptions)) {
				refusedInput.set(requestOptions, nodeError(this.getNode(), error, itemIndex));
			}
			return requestOptions;
		}
		if (send) target[send.property] = checked as IDataObject[string];
		return requestOptions;
	};
}

/** The routing of a parameter whose value is checked, and sent as `send` says when it says. */
export function checkedRouting(options: CheckedParameter): INodePropertyRouting {
	const preSend = [checkParameter(options)];
	return options.send ? { send: { ...options.send, preSend } } : { send: { preSend } };
}
