// The one request loop: every request the package makes, tried again, held back and counted here.
//
// Every request the package makes (the routed operations, Send, the lists, Send's lookup, the
// trigger's polls, the approval's send) goes through `requestLoop`.
//
//   requestLoop(attempt, { repeatable, policy, apiToken }, { gate, stopped, run }) → RequestEnd
//
// - `attempt()` makes the request once and resolves to its answer (any status), or to `noAnswer`
//   and the request's error when there is none. An error it throws stops the request.
// - `repeatable`: whether making the request again is harmless (a read: GET changes nothing).
//   A read is tried again after a 429, 502, 503 or 504, whoever answered, and after any network
//   failure that another attempt can mend. A request that is not repeatable (Send, Sender ID →
//   Create or Update) is tried again only when `decide` proves it was not processed: a 429 or 503
//   in the API's own words, a refused connection, a host name not resolved.
// - A 429 or 503 makes the request wait until its `Retry-After` (seconds or an HTTP date) is
//   over, or, when it has none and is tried again, its backoff; the gate (the limiter the request
//   waits in) decides whether its other requests wait as long (`Limiter.holdFor`). A run's own
//   limiter (a fixed Requests in Parallel) holds every request of that run. A shared limiter
//   (`sharedLimiter`; Requests in Parallel = Auto) holds every request of the credential and host
//   in this n8n process only when the API lets nothing through, or others took the room;
//   otherwise the refused request alone waits and Auto's window and pace slow the others. A
//   request without a gate waits alone. A Retry-After longer than `policy.maxRetryAfterMs` holds
//   nothing: the request ends with that answer.
// - Max Attempts is a ceiling: a request ends after `policy.maxAttempts` failed attempts in a row
//   of its own (refusals, gateway errors, network failures); only an accepted answer (2xx) of
//   its own run (`run`) in between starts the count again, and the waits before its own retries
//   (backoffs and Retry-After) together never exceed `policy.maxTotalWaitMs`.
// - `stopped()` is checked before every attempt (`request` also stops once the execution is
//   cancelled).
// - `deadline` (a run given a time, as the trigger's poll budget): no attempt starts after it,
//   and no wait (a backoff, a Retry-After, the gate's hold) that would end after it is begun: the
//   request throws `DeadlinePassed` instead, and `request` cuts an attempt still waiting for its
//   answer a few seconds after it.
//
// `request` is the loop over n8n's `httpRequestWithAuthentication`, for requests made outside
// routing. The answer says when the answered attempt went out (`attemptedAt`).

import {
	sleep,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type IPollFunctions,
	type NodeApiError,
} from 'n8n-workflow';

import { DeadlinePassed, passes } from './deadline';
import { redact } from './errors';
import { Limiter } from './limiter';
import { decide } from './outcome';

/** The credential type every request authenticates with. */
const CREDENTIAL_TYPE = 'smsMessagingApi';

/** The credential's fields (credentials/SmsMessagingApi.credentials.ts). */
interface ApiCredentials {
	apiToken: string;
	baseUrl: string;
	sendBaseUrl: string;
	/** The zone the API writes times without an offset in (nodes/shared/input/apiTime.ts). */
	apiTimeZone?: string;
}

/** The node's credential, as n8n gives it to any of the nodes' contexts. */
export async function apiCredentials(context: {
	getCredentials<T extends object>(type: string): Promise<T>;
}): Promise<ApiCredentials> {
	return await context.getCredentials<ApiCredentials>(CREDENTIAL_TYPE);
}

/** When a request is tried again, and how long it may wait before each attempt. */
export interface RetryPolicy {
	/** Failed attempts in a row that end a request, the first included. */
	maxAttempts: number;
	/**
	 * The first backoff's ceiling; each retry doubles it. A backoff is drawn at random between half
	 * its ceiling and the ceiling.
	 */
	baseDelayMs: number;
	/** The highest ceiling of a backoff between two attempts. */
	maxDelayMs: number;
	/** A Retry-After longer than this is not waited for: the request ends with that answer. */
	maxRetryAfterMs: number;
	/** The waits before one request's retries together (backoffs and Retry-After) stay within this. */
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

/** How a request ended. */
export type RequestEnd =
	/** `attemptedAt`: when the attempt that got this answer went out (ms). */
	| { outcome: 'answered'; response: Answer; attemptedAt: number }
	| Unanswered
	/** The run stopped before this request made its first attempt: nothing was sent. */
	| { outcome: 'notStarted' };

/** What happened to a request that got no answer, in the words its error message uses. */
export function unansweredText(end: Exclude<RequestEnd, { outcome: 'answered' }>): string {
	if (end.outcome === 'notStarted') return 'the run stopped before this request was made';
	if (end.outcome === 'notSent') {
		const attempts = `${end.attempts} attempt${end.attempts === 1 ? '' : 's'}`;
		return `the API could not be reached after ${attempts}: ${end.reason}`;
	}
	return `the request failed after it may have reached the API: ${end.reason}`;
}

/** The network error's code (ECONNRESET, ENOTFOUND…) under n8n's error, if it has one. */
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

/** The wait before the next attempt after `failures` in a row, when the answer asked for none. */
function backoffMs(policy: RetryPolicy, failures: number): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failures - 1));
	return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Requests in Parallel's default: 0, Auto (limiter.ts): the window and the pace it learns from
 * the API's refusals keep requests in parallel from turning one refusal into a storm of retries.
 */
export const DEFAULT_PARALLEL_REQUESTS = 0;

/** A 429 or a 503: the API (or what stands before it) asks for fewer requests. */
const isRefusal = (statusCode: number) => statusCode === 429 || statusCode === 503;

/** Answers a read is tried again after, whoever gave them: the request was not served. */
const READ_RETRIED = new Set([429, 502, 503, 504]);

/**
 * How long past the deadline an attempt already made may wait for its answer: within n8n's 9 s
 * between a poll's budget and the time it abandons the poll.
 */
const ANSWER_GRACE_MS = 5_000;

/** One run's accepted answers: the only progress that starts a request's count again. */
export class RunProgress {
	accepted = 0;
}

/** How the requests of one run are held back together. */
export interface RequestControl {
	/** The limiter of the run's requests; a request without one waits alone. */
	gate?: Limiter;
	/**
	 * Checked after the gate, before every attempt: once true, no new attempt is made. A request
	 * that made no attempt yet ends `notStarted`; one that did ends with what its last attempt got
	 * (its answer, or its failure).
	 */
	stopped?: () => boolean;
	/** The run the request belongs to; a request without one counts only its own answers. */
	run?: RunProgress;
	/** When the run's time ends (ms since the epoch): see the top of this file. */
	deadline?: number;
}

/** What kind of request it is, for the loop's decisions. */
interface RequestKind {
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
	// A read may be made again whatever became of it, unless another attempt cannot mend it (a
	// refused certificate, a URL that is not valid, a failed TLS handshake).
	const retry = decision.retry || (repeatable && decision.outcome === 'unknown');
	return { retry, outcome: decision.outcome, reason: decision.reason ?? error.message, code };
}

/** An attempt that got no answer: the error of the request (n8n's, or the network's). */
interface NoAnswer {
	noAnswer: unknown;
}

/** What one attempt came to: how the request ends if it ends here, and whether it goes on. */
interface NextStep {
	end: RequestEnd;
	/** The wait before the next attempt; undefined when the request ends here. */
	wait?: number;
	/** A 429 or 503: the wait holds back every request of the gate, not this one alone. */
	refused?: boolean;
	/** The Retry-After every request of the gate waits out, whether or not this one is retried. */
	retryAfter?: number;
}

/** One request's count of attempts and failures, and its waits within the retry policy. */
class Retries {
	attempts = 0;
	private failures = 0;
	private acceptedSeen: number;
	private waited = 0;

	constructor(
		private readonly repeatable: boolean,
		private readonly policy: RetryPolicy,
		private readonly run?: RunProgress,
	) {
		this.acceptedSeen = run?.accepted ?? 0;
	}

	/** An attempt that got no answer (`caught`: its error); the reason never carries the token. */
	async afterNoAnswer(
		caught: unknown,
		apiToken: () => Promise<string | undefined>,
	): Promise<NextStep> {
		const { retry, outcome, reason, code } = unansweredDecision(caught, this.repeatable);
		// The reason ends up in error messages.
		const end: Unanswered = {
			outcome,
			reason: redact(reason, await apiToken()),
			code,
			attempts: this.attempts,
		};
		return { end, wait: retry ? this.nextWait(undefined) : undefined };
	}

	/** An attempt the API (or what stands before it) answered, with any status. */
	afterAnswer(end: RequestEnd & { outcome: 'answered' }): NextStep {
		const { statusCode, body, headers } = end.response;
		if (statusCode >= 200 && statusCode < 300) {
			if (this.run) this.run.accepted++;
			return { end };
		}
		const refused = isRefusal(statusCode);
		const asked = refused ? retryAfterMs(headers['retry-after']) : undefined;
		const retry = this.repeatable
			? READ_RETRIED.has(statusCode)
			: decide({ statusCode, body }).retry;
		const wait = retry ? this.nextWait(asked) : undefined;
		// A wait too long to take holds no one: this request ends instead.
		const retryAfter =
			asked !== undefined && asked <= this.policy.maxRetryAfterMs ? asked : undefined;
		return { end, wait, refused, retryAfter };
	}

	/** Counts a failed attempt; the wait before the next one, or undefined when it ends here. */
	private nextWait(wanted: number | undefined): number | undefined {
		const { policy, run } = this;
		if (run && run.accepted !== this.acceptedSeen) this.failures = 0;
		this.acceptedSeen = run?.accepted ?? 0;
		this.failures++;
		if (this.failures >= policy.maxAttempts) return undefined;
		const wait = wanted ?? backoffMs(policy, this.failures);
		if (wait > policy.maxRetryAfterMs || this.waited + wait > policy.maxTotalWaitMs) {
			return undefined;
		}
		this.waited += wait;
		return wait;
	}
}

/** The one request loop (see the top of this file). */
export async function requestLoop(
	attempt: () => Promise<Answer | NoAnswer>,
	{ repeatable, policy = DEFAULT_RETRY, apiToken = async () => undefined }: RequestKind,
	{ gate = new Limiter(false, 1), stopped = () => false, run, deadline }: RequestControl = {},
): Promise<RequestEnd> {
	const retries = new Retries(repeatable, policy, run);
	// What this request ends with if the run stops before its next attempt.
	let ifStopped: RequestEnd = { outcome: 'notStarted' };
	for (;;) {
		const permit = await gate.acquire(deadline);
		if (stopped()) {
			gate.release(permit);
			return ifStopped;
		}
		if (passes(deadline)) {
			gate.release(permit);
			throw new DeadlinePassed();
		}
		const attemptedAt = Date.now();
		retries.attempts++;
		let result: Answer | NoAnswer | undefined;
		try {
			result = await attempt();
		} finally {
			// An error that is not the request's own passes on, its permit given back.
			if (result === undefined) gate.release(permit);
		}
		let next: NextStep;
		if ('noAnswer' in result) {
			gate.release(permit, 'failed');
			next = await retries.afterNoAnswer(result.noAnswer, apiToken);
		} else {
			gate.release(permit, isRefusal(result.statusCode) ? 'refused' : 'accepted');
			next = retries.afterAnswer({ outcome: 'answered', response: result, attemptedAt });
			// Whoever asked, the gate may hold every request as long too (see the top of this file).
			if (next.retryAfter !== undefined && next.wait === undefined) gate.holdFor(next.retryAfter);
		}
		if (next.wait === undefined) return next.end;
		// A refusal may hold back the whole gate, this request with it; any other failure (and a
		// refusal the gate does not hold for) only this request.
		const heldByGate = next.refused === true && gate.holdFor(next.wait);
		if (passes(deadline, next.wait)) throw new DeadlinePassed();
		ifStopped = next.end;
		if (!heldByGate) await sleep(next.wait);
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
): Promise<RequestEnd> {
	const cancelled =
		'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const { deadline } = control;
	return await requestLoop(
		async () => {
			// An attempt of a run with a deadline waits for its answer until a little after it.
			const timeout =
				deadline === undefined
					? options.timeout
					: Math.min(options.timeout ?? Infinity, deadline - Date.now() + ANSWER_GRACE_MS);
			try {
				return (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
					...options,
					...(timeout === undefined ? {} : { timeout: Math.max(1, timeout) }),
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
				})) as Answer;
			} catch (noAnswer) {
				return { noAnswer };
			}
		},
		{
			...kind,
			apiToken: async () => (await apiCredentials(this)).apiToken,
		},
		{ ...control, stopped: () => cancelled?.aborted === true || control.stopped?.() === true },
	);
}
