import {
	sleep,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IPollFunctions,
	type NodeApiError,
} from 'n8n-workflow';

import { redact } from './errors';
import { Limiter } from './limiter';
import { decide } from './outcome';

// The one request loop: every request the package makes (the routed operations, Send, the lists,
// Send's lookup, the trigger's polls, the approval's send) goes through `requestLoop`.
//
//   requestLoop(attempt, { repeatable, policy, apiToken }, { gate, stopped, run }) → Delivery
//
// - `attempt()` makes the request once and resolves to its answer (any status), or to `noAnswer`
//   and the request's error when there is none. An error it throws stops the request.
// - `repeatable`: whether making the request again is harmless (a read: GET changes nothing).
//   A read is tried again after a 429, 502, 503 or 504, whoever answered, and after any network
//   failure that another attempt can mend. A request that is not repeatable (Send, Sender ID →
//   Create or Update) is tried again only when `decide` proves it was not processed: a 429 or 503
//   in the API's own words, a refused connection, a host name not resolved.
// - `Retry-After` (seconds or an HTTP date) on any 429 or 503 holds every request of the gate
//   (the credential's other requests too) for that long.
// - Max Attempts is a ceiling: a request ends after `policy.maxAttempts` failed attempts in a row
//   of its own (refusals, gateway errors, network failures); only an accepted answer (2xx) of
//   its own run (`run`) in between starts the count again, and all the waits of one request
//   together never exceed `policy.maxTotalWaitMs`.
// - `stopped()` (default: the execution was cancelled) is checked before every attempt.
//
// `request` is the loop over n8n's `httpRequestWithAuthentication`, for requests made outside
// routing. The answer says when the answered attempt went out (`attemptedAt`).

export const CREDENTIAL_TYPE = 'smsMessagingApi';

export interface RetryPolicy {
	/** Failed attempts in a row that end a request, the first included. */
	maxAttempts: number;
	/** First backoff; each retry doubles it. */
	baseDelayMs: number;
	/** Longest backoff between two attempts. */
	maxDelayMs: number;
	/** A Retry-After longer than this is not waited for: the request ends with that answer. */
	maxRetryAfterMs: number;
	/** All the waits of one request together (backoffs and Retry-After) stay within this. */
	maxTotalWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 10_000,
	maxRetryAfterMs: 60_000,
	maxTotalWaitMs: 120_000,
};

/** An answer, whoever gave it. */
export interface Answer {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

/**
 * How a request ended without an answer, either `notSent` when it provably never reached the
 * server (so sending again is safe) or `unknown` when the server may have processed it.
 */
export type Unanswered = {
	outcome: 'notSent' | 'unknown';
	reason: string;
	code?: string;
	attempts: number;
};

export type Delivery =
	/** `attemptedAt`: when the attempt that got this answer went out (ms). */
	| { outcome: 'answered'; response: Answer; attemptedAt: number }
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

function backoffMs(policy: RetryPolicy, failures: number): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failures - 1));
	return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Requests in Parallel's default: 0, Auto (nodes/shared/limiter.ts). A 429 or 503 on any request
 * of a limiter holds back all of them (their retries included) until the wait it asked for is
 * over, so that requests in parallel never turn one refusal into a storm of retries.
 */
export const DEFAULT_PARALLEL_REQUESTS = 0;

/** A 429 or a 503: the API (or what stands before it) asks for fewer requests. */
const isRefusal = (statusCode: number) => statusCode === 429 || statusCode === 503;

/** Answers a read is tried again after, whoever gave them: the request was not served. */
const READ_RETRIED = new Set([429, 502, 503, 504]);

/** One run's accepted answers: the only progress that starts a request's count again. */
export class RunProgress {
	accepted = 0;
}

/** How the requests of one run are held back together. */
export interface RequestControl {
	/** The limiter of the run's requests; a request without one waits alone. */
	gate?: Limiter;
	/**
	 * Checked after the gate, before every attempt: once true, no new request is made. A request
	 * that made no attempt yet ends `notStarted`; one already refused ends with that answer.
	 */
	stopped?: () => boolean;
	/** The run the request belongs to; a request without one counts only its own answers. */
	run?: RunProgress;
}

export interface RequestKind {
	/** Whether the request may be made again whatever happened to it: a read. */
	repeatable: boolean;
	policy?: RetryPolicy;
	/** Removed from every reason the loop words. */
	apiToken?: () => Promise<string | undefined>;
}

/** Whether another attempt may mend a request that got no answer, and what it was. */
function unansweredDecision(
	caught: unknown,
	repeatable: boolean,
): { retry: boolean; outcome: 'notSent' | 'unknown'; reason: string; code?: string } {
	const error = caught as NodeApiError;
	const code = errorCode(error);
	const decision = decide({ networkCode: code });
	// A read may be made again whatever became of it, unless nothing can reach the API.
	const retry = decision.retry || (repeatable && decision.outcome === 'unknown');
	return { retry, outcome: decision.outcome, reason: decision.reason ?? error.message, code };
}

/** An attempt that got no answer: the error of the request (n8n's, or the network's). */
export interface NoAnswer {
	noAnswer: unknown;
}

/** The one request loop (see the top of this file). */
export async function requestLoop(
	attempt: () => Promise<Answer | NoAnswer>,
	{ repeatable, policy = DEFAULT_RETRY, apiToken = async () => undefined }: RequestKind,
	{ gate = new Limiter(false, 1), stopped = () => false, run }: RequestControl = {},
): Promise<Delivery> {
	// What this request ends with if the run stops before its next attempt.
	let ifStopped: Delivery = { outcome: 'notStarted' };
	let attempts = 0;
	let failures = 0;
	let acceptedSeen = run?.accepted ?? 0;
	let waited = 0;
	/** Counts a failed attempt; the wait before the next one, or undefined when it ends here. */
	const nextWait = (wanted: number | undefined): number | undefined => {
		if (run && run.accepted !== acceptedSeen) failures = 0;
		acceptedSeen = run?.accepted ?? 0;
		failures++;
		if (failures >= policy.maxAttempts) return undefined;
		const wait = wanted ?? backoffMs(policy, failures);
		if (wait > policy.maxRetryAfterMs || waited + wait > policy.maxTotalWaitMs) return undefined;
		waited += wait;
		return wait;
	};
	for (;;) {
		const permit = await gate.acquire();
		if (stopped()) {
			gate.release(permit);
			return ifStopped;
		}
		const attemptedAt = Date.now();
		attempts++;
		let result: Answer | NoAnswer | undefined;
		try {
			result = await attempt();
		} finally {
			// An error that is not the request's own passes on, its permit given back.
			if (result === undefined) gate.release(permit);
		}
		if ('noAnswer' in result) {
			gate.release(permit, 'failed');
			const { retry, outcome, reason, code } = unansweredDecision(result.noAnswer, repeatable);
			// The reason ends up in error messages, which must never carry the token.
			const failure: Unanswered = {
				outcome,
				reason: redact(reason, await apiToken()),
				code,
				attempts,
			};
			const wait = retry ? nextWait(undefined) : undefined;
			if (wait === undefined) return failure;
			ifStopped = failure;
			await sleep(wait);
			continue;
		}
		const response = result;
		const { statusCode, body } = response;
		const refused = isRefusal(statusCode);
		gate.release(permit, refused ? 'refused' : 'accepted');
		const answered: Delivery = { outcome: 'answered', response, attemptedAt };
		if (statusCode >= 200 && statusCode < 300) {
			if (run) run.accepted++;
			return answered;
		}
		const asked = refused ? retryAfterMs(response.headers['retry-after']) : undefined;
		// Whoever asked, the credential's other requests wait as long too (a wait too long to take
		// ends this request instead).
		if (asked !== undefined && asked <= policy.maxRetryAfterMs) gate.holdFor(asked);
		const retry = repeatable ? READ_RETRIED.has(statusCode) : decide({ statusCode, body }).retry;
		const wait = retry ? nextWait(asked) : undefined;
		if (wait === undefined) return answered;
		ifStopped = answered;
		// A refusal holds back the whole gate; any other answer only this request.
		if (refused) gate.holdFor(wait);
		else await sleep(wait);
	}
}

/**
 * A request outside routing, through n8n's `httpRequestWithAuthentication` and the one loop. It
 * also stops once the execution is cancelled.
 */
export async function request(
	this: IExecuteFunctions | IPollFunctions,
	options: IHttpRequestOptions,
	kind: RequestKind,
	control: RequestControl = {},
): Promise<Delivery> {
	const cancelled =
		'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	return await requestLoop(
		async () => {
			try {
				return (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
					...options,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
				})) as Answer;
			} catch (noAnswer) {
				return { noAnswer };
			}
		},
		{
			...kind,
			apiToken: async () =>
				(await this.getCredentials<{ apiToken?: string }>(CREDENTIAL_TYPE)).apiToken,
		},
		{ ...control, stopped: () => cancelled?.aborted === true || control.stopped?.() === true },
	);
}
