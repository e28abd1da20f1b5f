import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';

import { matchOutgoings, type Envelope } from './envelopes';
import { joinLines, readAnswer } from '../requests/errors';
import { decide, NOT_REACHED_HINT, REFUSED_HINT, UNKNOWN_HINT } from '../requests/outcome';
import type { RequestSettings } from '../requests/requestOptions';
import {
	DEFAULT_RETRY,
	request,
	unansweredText,
	type RequestControl,
	type RetryPolicy,
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

/** Sends one batch and accounts for every envelope in it; undefined when it was never made. */
export async function sendBatch(
	this: IExecuteFunctions,
	batch: Envelope[],
	credentials: SendCredentials,
	options: SendOptions,
	settings: RequestSettings,
	control: RequestControl,
): Promise<RequestResult | undefined> {
	const node = this.getNode();
	const context = { operation: 'sms:send' as const, apiToken: credentials.apiToken };
	const policy: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: options.maxAttempts };
	const delivery = await request.call(
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
	if (delivery.outcome === 'notStarted') return undefined;
	const none = batch.map(() => undefined);
	if (delivery.outcome !== 'answered') {
		const code = delivery.code ? `Network error code: ${delivery.code}.` : undefined;
		const notSent = delivery.outcome === 'notSent';
		return {
			sent: none,
			failure: {
				outcome: delivery.outcome,
				message: `${notSent ? 'Not sent' : 'Delivery unknown'}: ${unansweredText(delivery)}`,
				description: joinLines(code, notSent ? NOT_REACHED_HINT : UNKNOWN_HINT),
			},
		};
	}

	const { statusCode, body } = delivery.response;
	// When the attempt the API accepted went out, as far as n8n's clock knows (Get Delivery
	// Status reads it): after any wait for a Retry-After or a backoff.
	const sentAt = new Date(delivery.attemptedAt).toISOString();
	const httpCode = String(statusCode);
	const answer = readAnswer(node, statusCode, body, context);
	if ('error' in answer) {
		const { error } = answer;
		// A 2xx whose body cannot be read was still accepted, and charged.
		const outcome = decide({ statusCode, body }).outcome === 'notSent' ? 'notSent' : 'unknown';
		const hint = outcome === 'notSent' ? REFUSED_HINT : UNKNOWN_HINT;
		const description = error.description ?? '';
		return {
			sent: none,
			failure: {
				outcome,
				message: outcome === 'notSent' ? error.message : `Delivery unknown: ${error.message}`,
				description: joinLines(description, description.includes(hint) ? undefined : hint),
				httpCode,
			},
		};
	}

	const { outgoings, balance } = answer.data;
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
			message: `Delivery unknown: the API accepted the request (HTTP ${statusCode}) but ${why}`,
			description: UNKNOWN_HINT,
			httpCode,
		},
	};
}
