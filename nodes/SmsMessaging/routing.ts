// The hooks n8n's declarative routing calls: checks, requests with retries, pages, error items.
import {
	NodeApiError,
	NodeOperationError,
	type DeclarativeRestApiSettings,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IExecuteSingleFunctions,
	type IN8nHttpFullResponse,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyRouting,
	type JsonObject,
} from 'n8n-workflow';

import { maskedSmsRecord } from '../shared/approvalLink';
import {
	errorItem,
	nodeError,
	SENDER_ID_UNKNOWN_OUTCOME,
	unwrapData,
	type ApiOperation,
} from '../shared/requests/errors';
import { sharedLimiter } from '../shared/requests/limiter';
import { checkedPage, collectPages, repeatedPagesError } from '../shared/lists/list';
import type { PageAt } from '../shared/lists/pages';
import { idOrder, type ListOrder } from '../shared/lists/pageWalker';
import { apiTime } from '../shared/input/apiTime';
import {
	apiCredentials,
	requestLoop,
	RunProgress,
	unansweredText,
	type Answer,
	type RequestControl,
	type Unanswered,
} from '../shared/requests/transport';
import {
	booleanValue,
	fieldsOf,
	isSet,
	positiveInteger,
	type FieldRef,
} from '../shared/input/validation';

// Hooks for n8n's declarative routing. Each routed operation (Sender ID → Create and Update, both
// Get Many) has one request hook, routing's `operations.pagination` function, which n8n calls once
// per item when `send.paginate` is true. It relies only on what n8n documents for declarative
// nodes: the hook's `this` is the item's context (IExecutePaginationFunctions extends
// IExecuteSingleFunctions), `this.makeRoutingRequest(requestData)` makes the request with the
// options it is given and resolves to what the operation's postReceive returned, and
// `ignoreHttpStatusErrors` (in the node's requestDefaults) gives every status to postReceive. No
// state passes between the hooks outside those arguments and return values.

type ResultOptions = DeclarativeRestApiSettings.ResultOptions;

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

async function apiToken(this: IExecuteSingleFunctions): Promise<string | undefined> {
	return (await apiCredentials(this)).apiToken;
}

/**
 * postReceive of every routed operation: hands the API's answer, its status and Retry-After
 * included, to the operation's request hook as one item. The hook reads it: n8n's routing alone
 * would give the hook only the body.
 */
export async function fullAnswerAsItem(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const answer: Answer = {
		statusCode: response.statusCode,
		headers: { 'retry-after': response.headers?.['retry-after'] },
		body: response.body,
	};
	return [{ json: answer as unknown as IDataObject }];
}

/** The answer in what `makeRoutingRequest` resolved to: the one item `fullAnswerAsItem` returned. */
function answerOfItems(this: IExecutePaginationFunctions, items: INodeExecutionData[]): Answer {
	const answer = items.length === 1 ? (items[0].json as Partial<Answer>) : undefined;
	if (typeof answer?.statusCode !== 'number') {
		// Only if a release of n8n stopped handing postReceive's items to the request hook.
		throw new NodeOperationError(
			this.getNode(),
			"n8n's routing did not hand the API's answer to the node",
			{
				itemIndex: this.getItemIndex(),
				description: 'This version of n8n routes requests in a way the node does not support.',
			},
		);
	}
	return answer as Answer;
}

/**
 * Makes the routed request through the one request loop (nodes/shared/requests/transport.ts), a read
 * (`repeatable`) or not, and gives its last answer, to be read. A request that got no answer
 * becomes the error `unanswered` words; an error of n8n's that is not about the request stops it.
 */
async function routedRequest(
	this: IExecutePaginationFunctions,
	requestData: ResultOptions,
	repeatable: boolean,
	unanswered: (failure: Unanswered) => Error,
	control: RequestControl = {},
): Promise<Answer> {
	const cancelled = this.getExecutionCancelSignal?.();
	const end = await requestLoop(
		async () => {
			let items: INodeExecutionData[];
			try {
				items = await this.makeRoutingRequest(requestData);
			} catch (caught) {
				// A NodeApiError is the request's failure, for the loop to decide about; any other
				// error (n8n's, about the node) stops the request.
				const error = nodeError(this.getNode(), caught, this.getItemIndex());
				if (error instanceof NodeApiError) return { noAnswer: error };
				throw error;
			}
			return answerOfItems.call(this, items);
		},
		{ repeatable, apiToken: async () => await apiToken.call(this) },
		{ ...control, stopped: () => cancelled?.aborted === true },
	);
	if (end.outcome === 'answered') return end.response;
	if (end.outcome === 'notStarted') {
		throw new NodeOperationError(this.getNode(), 'The execution was cancelled', {
			itemIndex: this.getItemIndex(),
		});
	}
	throw unanswered(end);
}

type Check = (ref: FieldRef, value: unknown) => unknown;

/** A parameter of a routed operation whose value is checked before the item's request. */
export interface CheckedParameter {
	/** The parameter's path, as in the workflow JSON (`filters.startDate`). */
	parameter: string;
	/** Its name as shown in the editor. */
	label: string;
	/** Gives the value to send, or throws the error that names the item and the field. */
	check: Check;
	/** Where the checked value goes. */
	send: { type: 'body' | 'query'; property: string };
	/** An optional parameter left empty is not sent. */
	optional?: boolean;
}

/** The routing of a checked parameter: sent where it goes; the request hook checks it. */
export function checkedRouting({ send }: CheckedParameter): INodePropertyRouting {
	return { send: { type: send.type, property: send.property } };
}

/** A field of a routed operation, with the check its request hook gives it. */
export interface CheckedField {
	property: INodeProperties;
	parameter: CheckedParameter;
}

/** A top-level field sent in the body (under its own name unless `property` says otherwise). */
export function bodyField(
	field: INodeProperties,
	check: Check,
	property = field.name,
): CheckedField {
	const parameter: CheckedParameter = {
		parameter: field.name,
		label: field.displayName,
		check,
		send: { type: 'body', property },
	};
	return { property: { ...field, routing: checkedRouting(parameter) }, parameter };
}

/**
 * The item's request with every parameter of `parameters` checked: the checked value (trimmed,
 * normalised, a date as YYYY-MM-DD) replaces the one routing put in, and an optional parameter
 * left empty is left out. Throws the error of the first bad value, before any request.
 */
function checkedRequest(
	this: IExecutePaginationFunctions,
	requestData: ResultOptions,
	parameters: CheckedParameter[],
): ResultOptions {
	const ref = fieldsOf(this.getNode(), this.getItemIndex());
	const qs = { ...(requestData.options.qs as IDataObject | undefined) };
	const body = { ...(requestData.options.body as IDataObject | undefined) };
	for (const { parameter, label, check, send, optional } of parameters) {
		const value = this.getNodeParameter(parameter, null) as unknown;
		const target = send.type === 'body' ? body : qs;
		if (optional && !isSet(value)) delete target[send.property];
		else target[send.property] = check(ref(parameter, label), value) as IDataObject[string];
	}
	const options = { ...requestData.options, qs };
	if (requestData.options.body !== undefined) options.body = body;
	return { ...requestData, options };
}

/**
 * The item's results, or with Continue On Fail (either mode) its error as n8n's error item, paired
 * to it, and the other items go on. Without Continue On Fail the error stops the run.
 */
async function resultsOrErrorItem(
	this: IExecutePaginationFunctions,
	run: () => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	try {
		return await run();
	} catch (caught) {
		const itemIndex = this.getItemIndex();
		const error = nodeError(this.getNode(), caught, itemIndex);
		if (!this.continueOnFail()) throw error;
		return [errorItem(error, itemIndex)];
	}
}

/**
 * The request hook of Sender ID → Create or Update: checks the item's `parameters`, then makes
 * its one request, with its retries.
 */
export function senderIdRequest(operation: 'create' | 'update', parameters: CheckedParameter[]) {
	const apiOperation: ApiOperation = `senderId:${operation}`;
	return async function (
		this: IExecutePaginationFunctions,
		requestData: ResultOptions,
	): Promise<INodeExecutionData[]> {
		return await resultsOrErrorItem.call(this, async () => {
			const node = this.getNode();
			const itemIndex = this.getItemIndex();
			const request = checkedRequest.call(this, requestData, parameters);
			const answer = await routedRequest.call(this, request, false, (failure) => {
				const notSent = failure.outcome === 'notSent';
				return new NodeOperationError(
					node,
					notSent ? `Not sent: ${unansweredText(failure)}` : capitalised(unansweredText(failure)),
					{
						itemIndex,
						description: notSent
							? 'Nothing reached the API; running it again is safe.'
							: SENDER_ID_UNKNOWN_OUTCOME[operation],
					},
				);
			});
			const senderId = unwrapData(node, answer.statusCode, answer.body, {
				operation: apiOperation,
				itemIndex,
				apiToken: await apiToken.call(this),
				senderId: operation === 'update' ? this.getNodeParameter('id', '') : undefined,
			});
			return [{ json: senderId, pairedItem: { item: itemIndex } }];
		});
	};
}

/**
 * How many records the item asks for: Infinity with Return All, else its Limit. Both are read
 * here for each item, so that either may be set by an expression.
 */
function recordsWanted(this: IExecutePaginationFunctions): number {
	const ref = fieldsOf(this.getNode(), this.getItemIndex());
	const returnAll = this.getNodeParameter('returnAll', false) as unknown;
	if (booleanValue(ref('returnAll', 'Return All'), returnAll)) return Infinity;
	return positiveInteger(ref('limit', 'Limit'), this.getNodeParameter('limit', null));
}

/** A record's time in `field` (Sent At, Created At) as a number, for its place in the list. */
const timeIn =
	(field: string) =>
	(record: unknown): number | undefined => {
		const time = apiTime((record as IDataObject | null)?.[field]);
		return Number.isNaN(time) ? undefined : time;
	};

/**
 * How the list asked for is sorted, for the reader (pageWalker.ts): the contact list by creation
 * date, newest first (spec 4.5); the SMS list as `sort` says (by id, newest first, by default),
 * with `read` in the reverse order when ascending; by status, an order that changes as messages
 * change status.
 */
function listOrderOf(
	url: string | undefined,
	qs: IDataObject | undefined,
	read: (page: PageAt, sort?: string) => Promise<JsonObject>,
): ListOrder {
	if (url === '/contacts') return { arrivals: 'first', byId: false, orderOf: timeIn('createdAt') };
	const [field, direction] = String(qs?.sort ?? 'id,desc').split(',');
	if (field === 'status') return { arrivals: 'anywhere' };
	const byId = field === 'id';
	if (direction !== 'asc') {
		return { arrivals: 'first', byId, orderOf: byId ? idOrder : timeIn('sentAt') };
	}
	const last = async (at: PageAt) => await read(at, `${field},desc`);
	return { arrivals: 'last', byId, last, ...(byId ? {} : { order: timeIn('sentAt') }) };
}

/**
 * The request hook of both lists' Get Many: checks the item's `parameters`, Return All and Limit,
 * then reads the item's records up to the Limit or all of them; after the first page, several
 * pages at once when the API says how many there are, as many as the credential's Auto limiter
 * allows, all of them held back together by a 429 or 503 on any.
 */
export function getManyPages(parameters: CheckedParameter[]) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: ResultOptions,
	): Promise<INodeExecutionData[]> {
		return await resultsOrErrorItem.call(this, async () => {
			const node = this.getNode();
			const itemIndex = this.getItemIndex();
			const limit = recordsWanted.call(this);
			const request = checkedRequest.call(this, requestData, parameters);
			const { baseUrl, apiToken: token } = await apiCredentials(this);
			// Auto: the requests in flight adapt to the API, with every run of this credential.
			const gate = sharedLimiter(baseUrl, token);
			const run = new RunProgress();
			const readPage = async ({ page, size }: PageAt, sort?: string): Promise<JsonObject> => {
				const { qs } = request.options;
				const options = {
					...request.options,
					qs: { ...qs, page, records: size, ...(sort === undefined ? {} : { sort }) },
				};
				const answer = await routedRequest.call(
					this,
					{ ...request, options },
					true,
					(failure) => {
						return new NodeOperationError(
							node,
							`Page ${page} of the list could not be read: ${failure.reason}`,
							{
								itemIndex,
								description: 'Reading a list changes nothing; running it again is safe.',
							},
						);
					},
					{ gate, run },
				);
				const context = { operation: 'list', itemIndex, apiToken: token } as const;
				const data = unwrapData(node, answer.statusCode, answer.body, context);
				return checkedPage(node, answer.statusCode, data, page, context);
			};
			// As many pages ahead as the window allows now: none waits in line to be read unused.
			const records = await collectPages(
				readPage,
				limit,
				repeatedPagesError(node, 'running it again is safe', itemIndex),
				{
					parallel: () => gate.window,
					order: listOrderOf(request.options.url, request.options.qs, readPage),
				},
			);
			return records.map((json) => ({
				json: maskedSmsRecord(json),
				pairedItem: { item: itemIndex },
			}));
		});
	};
}
