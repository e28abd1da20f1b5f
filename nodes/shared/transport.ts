import {
	sleep,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IPollFunctions,
	type NodeApiError,
} from 'n8n-workflow';

import { redact } from './errors';
import { Limiter, RefusalCount, type Permit } from './limiter';
import { decide } from './outcome';

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
export type Unanswered = {
	outcome: 'notSent' | 'unknown';
	reason: string;
	code?: string;
	attempts: number;
};

export type Delivery =
	| { outcome: 'answered'; response: FullResponse }
	| Unanswered
	/** The run stopped before this request made its first attempt: nothing was sent. */
	| { outcome: 'notStarted' };

/** What happened to a request that got no answer, in the words its error message uses. */
export function unansweredText(delivery: Exclude<Delivery, { outcome: 'answered' }>): string {
	if (delivery.outcome === 'notStarted') return 'the run stopped before this request was made';
	if (delivery.outcome === 'notSent') {
		const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
		return `the API could not be reached after ${attempts}: ${delivery.reason}`;
	}
	return `the request failed after it may have reached the API: ${delivery.reason}`;
}

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
 * How long to wait before attempt `attempt + 1` after an answer with this status, or undefined
 * when it is not retried: only an answer `decide` says to try again.
 */
export function answerRetryDelay(
	policy: RetryPolicy,
	attempt: number,
	{ statusCode, body, retryAfter }: { statusCode: number; body: unknown; retryAfter: unknown },
): number | undefined {
	if (!decide({ statusCode, body }).retry || attempt >= policy.maxAttempts) return undefined;
	const asked = retryAfterMs(retryAfter);
	if (asked !== undefined && asked > policy.maxRetryAfterMs) return undefined;
	return asked ?? backoffMs(policy, attempt);
}

/**
 * A request that got no answer: how long to wait before trying again (only when it provably never
 * reached the server), or what happened to it, with the token removed from the reason.
 */
export function networkFailure(
	error: NodeApiError,
	policy: RetryPolicy,
	attempt: number,
	apiToken: string | undefined,
): { retryInMs: number } | Unanswered {
	const code = errorCode(error);
	const { outcome, reason, retry } = decide({ networkCode: code });
	if (retry && attempt < policy.maxAttempts) return { retryInMs: backoffMs(policy, attempt) };
	// The reason ends up in error messages, which must never carry the token.
	return { outcome, reason: redact(reason ?? error.message, apiToken), code, attempts: attempt };
}

/**
 * Requests in Parallel's default: 0, Auto (nodes/shared/limiter.ts). A 429 or 503 on any request
 * of a limiter holds back all of them (their retries included) until the wait it asked for is
 * over, so that requests in parallel never turn one refusal into a storm of retries.
 */
export const DEFAULT_PARALLEL_REQUESTS = 0;

/** A 429 or a 503: the API (or what stands before it) asks for fewer requests. */
export const isRefusal = (statusCode: number) => statusCode === 429 || statusCode === 503;

/**
 * After an answer, the wait before the request is tried again, or undefined when the answer is
 * final. A 429 or 503 holds back every request of the limiter for the wait it asks, and counts
 * toward Max Attempts only while no request of the limiter gets through: before the count ends
 * the request, the requests in flight are answered, and any accepted among them starts it again.
 */
export async function answerWait(
	gate: Limiter,
	refusals: RefusalCount,
	policy: RetryPolicy,
	answer: { statusCode: number; body: unknown; retryAfter: unknown },
): Promise<number | undefined> {
	// Only a refusal is ever tried again (`decide` retries no other answer, and only the API's own).
	if (!isRefusal(answer.statusCode)) return undefined;
	let count = refusals.next(gate);
	const asked = answerRetryDelay({ ...policy, maxAttempts: Infinity }, count, answer);
	if (asked === undefined) return undefined;
	gate.holdFor(asked);
	if (count >= policy.maxAttempts && count > 1) count = await refusals.recount(gate);
	return count >= policy.maxAttempts ? undefined : asked;
}

/** How the requests of one run are held back together. */
export interface RequestControl {
	/** The limiter of the run's requests; a request without one waits alone. */
	gate?: Limiter;
	/**
	 * Checked after the gate, before every attempt: once true, no new request is made. A request
	 * that made no attempt yet ends `notStarted`; one already refused with a 429 or 503 ends with
	 * that answer.
	 */
	stopped?: () => boolean;
}

/**
 * Sends one request, retrying only what `decide` says proves it was not processed and may go
 * through on a new attempt: 429 and 503, and a connection that was refused or never resolved. A
 * timeout, a reset connection or any other failure after the request may have reached the server
 * is never retried; it ends with outcome `unknown`.
 */
export async function requestWithRetry(
	this: IExecuteFunctions | IPollFunctions,
	options: IHttpRequestOptions,
	policy: RetryPolicy,
	{ gate = new Limiter(false, 1), stopped = () => false }: RequestControl = {},
): Promise<Delivery> {
	// What this request ends with if the run stops before its next attempt.
	let ifStopped: Delivery = { outcome: 'notStarted' };
	// Max Attempts counts refusals in a row with no progress anywhere, and network failures.
	const refusals = new RefusalCount();
	for (let failures = 0; ; ) {
		const permit: Permit = await gate.acquire();
		if (stopped()) {
			gate.release(permit);
			return ifStopped;
		}
		let response: FullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
				...options,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as FullResponse;
		} catch (caught) {
			gate.release(permit, 'failed');
			const { apiToken } = await this.getCredentials<{ apiToken?: string }>(CREDENTIAL_TYPE);
			const error = caught as NodeApiError;
			const failure = networkFailure(error, policy, ++failures, apiToken);
			if ('retryInMs' in failure) {
				// As if this were the last attempt: what to report should the run stop meanwhile.
				ifStopped = networkFailure(
					error,
					{ ...policy, maxAttempts: failures },
					failures,
					apiToken,
				) as Unanswered;
				await sleep(failure.retryInMs);
				continue;
			}
			return failure;
		}
		gate.release(permit, isRefusal(response.statusCode) ? 'refused' : 'accepted');
		const wait = await answerWait(gate, refusals, policy, {
			statusCode: response.statusCode,
			body: response.body,
			retryAfter: response.headers['retry-after'],
		});
		if (wait === undefined) return { outcome: 'answered', response };
		ifStopped = { outcome: 'answered', response };
	}
}
