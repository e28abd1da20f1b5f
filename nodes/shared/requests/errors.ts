// The errors the user sees: the API's error answers with a hint, the token kept out, error items.

import {
	NodeApiError,
	NodeOperationError,
	type INode,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';

import { decide, UNKNOWN_HINT } from './outcome';
import { isSet } from '../input/validation';

/** What the node was doing when the API answered with an error; it shapes the hint shown. */
export type ApiOperation = 'senderId:create' | 'senderId:update' | 'sms:send' | 'list';

/** What the error for an answer needs to know of the request. */
export interface ApiErrorContext {
	operation: ApiOperation;
	itemIndex?: number;
	/** Removed from every text the error carries, whatever the API echoed. */
	apiToken?: string;
	/** The Sender ID an update addressed, for the 404 hint. */
	senderId?: unknown;
}

/** One entry of the wrapper's `errors` list. */
interface ApiErrorEntry {
	field?: unknown;
	message?: unknown;
	rejectedValue?: unknown;
}

const STATUS_HINTS: Record<number, string> = {
	402: 'The account does not have enough credits for this request. Top up the account, or send fewer or shorter messages.',
	403: 'The account behind this API token lacks permission for this operation.',
	405: 'The API does not allow this method on this endpoint. Check the Base URL in the credential.',
	422: 'The API understood the request but could not process it. Check the values listed above.',
	429: 'The API is receiving too many requests. Try again later.',
	500: 'The API failed with an unexpected server error. Try again later.',
};

/** A text without the API token and without the user and password of any URL in it. */
export function redact(text: string, apiToken?: string): string {
	const withoutUrlCredentials = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, '$1***@');
	if (!apiToken) return withoutUrlCredentials;
	return withoutUrlCredentials.split(apiToken).join('***');
}

function describeEntry(entry: unknown): string {
	if (typeof entry === 'string') return entry;
	if (entry && typeof entry === 'object') {
		const { field, message, rejectedValue } = entry as ApiErrorEntry;
		const text = [field, message].filter(isSet).join(': ');
		const rejected =
			rejectedValue === undefined || rejectedValue === null
				? ''
				: ` (rejected value: ${JSON.stringify(rejectedValue)})`;
		return `${text || JSON.stringify(entry)}${rejected}`;
	}
	return String(entry);
}

/** What the provider's support needs to find the request: its ID, the API's code and time. */
function supportLine({ reqId, code, timestamp }: JsonObject): string[] {
	if (!isSet(reqId) && !isSet(code) && !isSet(timestamp)) return [];
	const parts = [
		isSet(reqId) ? `request ID ${String(reqId)}` : undefined,
		isSet(code) ? `code ${String(code)}` : undefined,
		isSet(timestamp) ? `at ${String(timestamp)}` : undefined,
	];
	return [`For the API's support: ${parts.filter(Boolean).join(', ')}.`];
}

/** What to check after a Sender ID request that may have reached the API without an answer. */
export const SENDER_ID_UNKNOWN_OUTCOME = {
	create:
		'The Sender ID may have been registered. Check your Sender IDs with the service before running this item again, or it may be registered twice.',
	update: 'The update may have been applied. Running it again sends the same values.',
};

/** The credential a node uses, by the name the user gave it, or its type's name. */
function credentialName(node: INode): string {
	const name = node.credentials?.smsMessagingApi?.name;
	return typeof name === 'string' && name !== ''
		? `the credential "${name}"`
		: 'the "SMS Messaging API" credential';
}

/** A 401 in words for people: the credential and its field; the API's own words come after. */
function unauthorizedHint(node: INode): string {
	const credential = credentialName(node);
	return `The API did not accept the API Token of ${credential}: correct its API Token field, or create a new token in your Messaging Service account and enter that.`;
}

/** A text as a sentence: with a full stop unless it ends with one already. */
export const sentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text : `${text}.`);

function statusHint(
	statusCode: number,
	body: unknown,
	context: ApiErrorContext,
): string | undefined {
	// A 500, a gateway that gave up waiting (502, 504), a CDN's 520-524 or any error not in the
	// API's own words may hide a request the API processed: for the operations that are not safe
	// to repeat, never "try again later".
	if (decide({ statusCode, body }).outcome === 'unknown') {
		if (context.operation === 'sms:send') return UNKNOWN_HINT;
		if (context.operation === 'senderId:create') return SENDER_ID_UNKNOWN_OUTCOME.create;
		if (context.operation === 'senderId:update') return SENDER_ID_UNKNOWN_OUTCOME.update;
	}
	if (statusCode === 404 && context.operation === 'senderId:update') {
		return `The Sender ID ${String(context.senderId)} does not exist. Check the ID of the Sender ID to update.`;
	}
	if (statusCode === 404) {
		return 'The API could not find this resource. Check the base URLs in the credential.';
	}
	if (statusCode >= 500 && !(statusCode in STATUS_HINTS)) return STATUS_HINTS[500];
	return STATUS_HINTS[statusCode];
}

/**
 * Turns an API error answer (the response wrapper with `errors`) into the error the user sees:
 * the API's own message, each `errors` entry on its own line and what to do about the status (for
 * a 401, what to do first and the entries after it on one line), then what the API's support needs.
 */
function apiError(
	node: INode,
	statusCode: number,
	body: unknown,
	context: ApiErrorContext,
): NodeApiError {
	const wrapper = body && typeof body === 'object' ? (body as JsonObject) : {};
	const apiMessage =
		typeof wrapper.message === 'string' && wrapper.message !== ''
			? wrapper.message
			: `The API answered with HTTP ${statusCode}`;
	const entries = Array.isArray(wrapper.errors) ? wrapper.errors.map(describeEntry) : [];
	// A 401's entries name request headers (X-Service, Authorization): details, after the hint.
	const lines =
		statusCode === 401
			? [
					unauthorizedHint(node),
					...(entries.length ? [`Details from the API: ${sentence(entries.join('; '))}`] : []),
				]
			: [...entries, statusHint(statusCode, body, context)];
	const description = joinLines(...lines, ...supportLine(wrapper));

	const message = redact(apiMessage, context.apiToken);
	const safeDescription = redact(description, context.apiToken);
	// NodeApiError takes its description from a `response.data` it finds in what it is given, so
	// it is given only the texts it must show.
	return new NodeApiError(
		node,
		{ message, description: safeDescription, httpCode: String(statusCode) },
		{
			message,
			description: safeDescription,
			httpCode: String(statusCode),
			itemIndex: context.itemIndex,
		},
	);
}

/** A 2xx answer that is not the documented wrapper is an error, never an empty result. */
export function unexpectedBodyError(
	node: INode,
	statusCode: number,
	what: string,
	context: ApiErrorContext,
): NodeApiError {
	return new NodeApiError(
		node,
		{ message: what, httpCode: String(statusCode) },
		{
			message: `The API answered HTTP ${statusCode} with an unexpected body: ${what}`,
			description:
				'The response is not the documented JSON wrapper with a "data" object, so its result cannot be trusted. Nothing was assumed from it.',
			httpCode: String(statusCode),
			itemIndex: context.itemIndex,
		},
	);
}

/** The `data` object of a success wrapper, or undefined when the body is not one. */
function wrapperData(statusCode: number, body: unknown): JsonObject | undefined {
	if (statusCode >= 400 || !body || typeof body !== 'object' || Array.isArray(body))
		return undefined;
	const { data } = body as JsonObject;
	return data && typeof data === 'object' && !Array.isArray(data)
		? (data as JsonObject)
		: undefined;
}

/**
 * Reads an API answer: its `data` object, or the error the user sees when it is not a success
 * wrapper (an error status, or a 2xx that is not the documented JSON).
 */
export function readAnswer(
	node: INode,
	statusCode: number,
	body: unknown,
	context: ApiErrorContext,
): { data: JsonObject } | { error: NodeApiError } {
	const data = wrapperData(statusCode, body);
	if (data) return { data };
	if (statusCode >= 400) return { error: apiError(node, statusCode, body, context) };
	const what =
		!body || typeof body !== 'object' || Array.isArray(body)
			? 'it is not a JSON object'
			: 'it has no "data" object';
	return { error: unexpectedBodyError(node, statusCode, what, context) };
}

/** Checks an API answer and returns its `data` object; throws the mapped error otherwise. */
export function unwrapData(
	node: INode,
	statusCode: number,
	body: unknown,
	context: ApiErrorContext,
): JsonObject {
	const read = readAnswer(node, statusCode, body, context);
	if ('error' in read) throw read.error;
	return read.data;
}

/** What a node's code caught, as the error n8n shows: n8n's own errors pass unchanged. */
export function nodeError(
	node: INode,
	caught: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (caught instanceof NodeApiError || caught instanceof NodeOperationError) return caught;
	return new NodeOperationError(node, caught as Error, { itemIndex });
}

/**
 * n8n's own error item, paired to the item that failed: `json.error` holds the message, and the
 * error itself, with its description and HTTP code, rides beside it. n8n 1.x and 2.x route such an
 * item to the error output when the node's On Error is "Continue (using error output)".
 */
export function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
): INodeExecutionData {
	return { json: { error: error.message }, error, pairedItem: { item: itemIndex } };
}

/** The lines given, empty ones left out, one per line. */
export const joinLines = (...lines: Array<string | undefined | null>): string =>
	lines.filter(Boolean).join('\n');
