// One send request: POST /outgoings/send with one batch, and what became of each of its envelopes.

import type { IExecuteFunctions, INodeExecutionData, JsonObject, NodeApiError } from 'n8n-workflow';

import { matchOutgoings, type Envelope } from './envelopes';
import { joinLines, readAnswer } from '../requests/errors';
import { decide, NOT_REACHED_HINT, REFUSED_HINT, UNKNOWN_HINT } from '../requests/outcome';
import type { RequestSettings } from '../requests/requestOptions';
import {
	DEFAULT_RETRY,
	request,
	unansweredText,
	type Answer,
	type RequestEnd,
	type RequestControl,
	type RetryPolicy,
	type Unanswered,
} from '../requests/transport';
import { baseUrlOf } from '../input/validation';
import type { SendOptions } from './options';
import type { SendCredentials } from './plan';

/** Why messages did not go out as sent, in the words the run reports. */
export interface Failure {
	outcome: 'notSent' | 'unknown';
	message: string;
	description?: string;
	httpCode?: string;
}

/** What one request did: every envelope's output item when sent, and why the others were not. */
export interface RequestResult {
	/** By position in the batch: the item of a sent envelope, undefined for the others. */
	sent: Array<INodeExecutionData | undefined>;
	/** Set when any envelope of the request was not sent: what happened to those. */
	failure?: Failure;
}

/**
 * POSTs one batch to /outgoings/send, tried again only when an answer or error proves nothing was
 * sent; gives how the request ended.
 */
async function postBatch(
	this: IExecuteFunctions,
	batch: Envelope[],
	credentials: SendCredentials,
	options: SendOptions,
	settings: RequestSettings,
	control: RequestControl,
): Promise<RequestEnd> {
	const policy: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: options.maxAttempts };
	return await request.call(
		this,
		{
			method: 'POST',
			baseURL: baseUrlOf(credentials.sendBaseUrl),
			url: '/outgoings/send',
			body: { senderId: batch[0].senderId, envelopes: batch.map(({ envelope }) => envelope) },
			json: true,
			...settings.request,
			timeout: settings.request.timeout ?? 60_000,
		},
		// Sending again what the API may have taken would send it twice.
		{ repeatable: false, policy },
		control,
	);
}

/** A request that got no answer: its messages were not sent, or may have been. */
function notAnswered(batch: Envelope[], end: Unanswered): RequestResult {
	const code = end.code ? `Network error code: ${end.code}.` : undefined;
	const notSent = end.outcome === 'notSent';
	return {
		sent: batch.map(() => undefined),
		failure: {
			outcome: end.outcome,
			message: `${notSent ? 'Not sent' : 'May have been sent'}: ${unansweredText(end)}`,
			description: joinLines(code, notSent ? NOT_REACHED_HINT : UNKNOWN_HINT),
		},
	};
}

/** An answer that is no success: an error status, or a 2xx whose body cannot be read. */
function failedAnswer(
	batch: Envelope[],
	{ statusCode, body }: Answer,
	error: NodeApiError,
): RequestResult {
	// A 2xx whose body cannot be read was still accepted, and charged.
	const outcome = decide({ statusCode, body }).outcome === 'notSent' ? 'notSent' : 'unknown';
	const hint = outcome === 'notSent' ? REFUSED_HINT : UNKNOWN_HINT;
	const description = error.description ?? '';
	return {
		sent: batch.map(() => undefined),
		failure: {
			outcome,
			message: outcome === 'notSent' ? error.message : `May have been sent: ${error.message}`,
			description: joinLines(description, description.includes(hint) ? undefined : hint),
			httpCode: String(statusCode),
		},
	};
}

/**
 * An accepted request: each envelope's output item is the outgoing record that pairs with it
 * (`matchOutgoings`); an envelope no record pairs with may have been sent. `sentAt`: when the
 * attempt the API accepted went out, for records that do not say.
 */
function acceptedAnswer(
	batch: Envelope[],
	statusCode: number,
	{ outgoings, balance }: JsonObject,
	sentAt: string,
): RequestResult {
	const records = matchOutgoings(outgoings, batch);
	const sent = records.map((record, k) =>
		record
			? {
					json: { ...record, balance, sentAt: record.sentAt ?? sentAt } as JsonObject,
					pairedItem: { item: batch[k].itemIndex },
				}
			: undefined,
	);
	const missing = records.filter((record) => !record).length;
	if (missing === 0) return { sent };
	const why = Array.isArray(outgoings)
		? `no outgoing record pairs with ${missing} of its ${batch.length} messages (by number and reference, then text)`
		: 'its answer has no "outgoings" list';
	return {
		sent,
		failure: {
			outcome: 'unknown',
			message: `May have been sent: the API accepted the request (HTTP ${statusCode}) but ${why}`,
			description: UNKNOWN_HINT,
			httpCode: String(statusCode),
		},
	};
}

/** Sends one batch and accounts for every envelope in it; undefined when it was never made. */
export async function sendBatch(
	this: IExecuteFunctions,
	batch: Envelope[],
	credentials: SendCredentials,
	options: SendOptions,
	settings: RequestSettings,
	control: RequestControl,
): Promise<RequestResult | undefined> {
	const end = await postBatch.call(this, batch, credentials, options, settings, control);
	if (end.outcome === 'notStarted') return undefined;
	if (end.outcome !== 'answered') return notAnswered(batch, end);
	const { statusCode, body } = end.response;
	const context = { operation: 'sms:send' as const, apiToken: credentials.apiToken };
	const answer = readAnswer(this.getNode(), statusCode, body, context);
	if ('error' in answer) return failedAnswer(batch, end.response, answer.error);
	// When the attempt the API accepted went out, as far as n8n's clock knows (Get Delivery
	// Status reads it): after any wait for a Retry-After or a backoff.
	const sentAt = new Date(end.attemptedAt).toISOString();
	return acceptedAnswer(batch, statusCode, answer.data, sentAt);
}
