import {
	sleep,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type NodeApiError,
} from 'n8n-workflow';

import { redact } from './errors';

export const CREDENTIAL_TYPE = 'smsMessagingApi';

export interface RetryPolicy {
	/** Attempts per request, the first included. */
	maxAttempts: number;
	/** First backoff; each retry doubles it. */
	baseDelayMs: number;
	/** Longest backoff between two attempts. */
	maxDelayMs: number;
	/** A Retry-After longer than this is not waited for: the request fails as not sent. */
	maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 10_000,
	maxRetryAfterMs: 60_000,
};

interface FullResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

/**
 * How a request ended: with an answer, or without one, either `notSent` when it provably never
 * reached the server (so sending again is safe) or `unknown` when the server may have processed it.
 */
export type Delivery =
	| { outcome: 'answered'; response: FullResponse }
	| { outcome: 'notSent' | 'unknown'; reason: string; code?: string; attempts: number };

/** What happened to a request that got no answer, in the words its error message uses. */
export function unansweredText(delivery: Exclude<Delivery, { outcome: 'answered' }>): string {
	if (delivery.outcome === 'notSent') {
		const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
		return `the API could not be reached after ${attempts}: ${delivery.reason}`;
	}
	return `the request failed after it may have reached the API: ${delivery.reason}`;
}

/** Network errors that happen before any byte of the request reaches the server. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

// Our own words: n8n's stock texts for these codes advise retrying at once, which is wrong for a
// request the API may have processed.
const REASONS: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ENOTFOUND: 'the host name could not be resolved',
	EAI_AGAIN: 'the host name could not be resolved',
	ECONNRESET: 'the connection was closed before the API answered',
	ECONNABORTED: 'the API did not answer within the timeout',
	ETIMEDOUT: 'the API did not answer within the timeout',
};

function errorCode(error: NodeApiError): string | undefined {
	const cause = error.cause as { code?: unknown } | undefined;
	const code = cause?.code ?? (error as unknown as { code?: unknown }).code;
	return typeof code === 'string' ? code : undefined;
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
function retryAfterMs(value: unknown, now = Date.now()): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+$/.test(text)) return Number(text) * 1000;
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function backoffMs(policy: RetryPolicy, attempt: number): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Sends one request, retrying only answers that prove it was not processed: 429 and 503, and a
 * connection that was refused or never resolved. A timeout, a reset connection or any other
 * failure after the request may have reached the server is never retried; it ends with outcome
 * `unknown`.
 */
export async function requestWithRetry(
	this: IExecuteFunctions,
	options: IHttpRequestOptions,
	policy: RetryPolicy,
): Promise<Delivery> {
	for (let attempt = 1; ; attempt++) {
		let response: FullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
				...options,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as FullResponse;
		} catch (caught) {
			const error = caught as NodeApiError;
			const code = errorCode(error);
			const notSent = code !== undefined && NOT_SENT_CODES.has(code);
			if (notSent && attempt < policy.maxAttempts) {
				await sleep(backoffMs(policy, attempt));
				continue;
			}
			// The reason ends up in error messages, which must never carry the token.
			const { apiToken } = await this.getCredentials<{ apiToken?: string }>(CREDENTIAL_TYPE);
			const reason = redact((code && REASONS[code]) || error.message, apiToken);
			return { outcome: notSent ? 'notSent' : 'unknown', reason, code, attempts: attempt };
		}

		if (
			(response.statusCode === 429 || response.statusCode === 503) &&
			attempt < policy.maxAttempts
		) {
			const asked = retryAfterMs(response.headers['retry-after']);
			if (asked !== undefined && asked > policy.maxRetryAfterMs)
				return { outcome: 'answered', response };
			await sleep(asked ?? backoffMs(policy, attempt));
			continue;
		}
		return { outcome: 'answered', response };
	}
}
