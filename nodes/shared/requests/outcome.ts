// What an attempt's answer or error means: sent, not sent or unknown, and whether to retry.

/**
 * How a request ended, decided in one place for every answer and every error: `sent` (the API
 * accepted it), `notSent` (provably not processed: nothing reached the API, or the API refused it)
 * or `unknown` (the API may have processed it). Whether a request that is not a read is tried
 * again (transport.ts tries a read again more often), and every text the node prints about what a
 * request did, are worded from this decision (`decide`).
 */
export type SendOutcome = 'sent' | 'notSent' | 'unknown';

/** What one attempt ended with: an answer (its status and body), or an error without one. */
type AttemptResult = { statusCode: number; body: unknown } | { networkCode: string | undefined };

/** What an attempt means for its request. */
interface Decision<Outcome extends SendOutcome = SendOutcome> {
	outcome: Outcome;
	/** Whether trying the same request again can help; only ever for `notSent`. */
	retry: boolean;
	/** For an attempt without an answer: the node's words for what happened, if it has its own. */
	reason?: string;
}

/**
 * Network errors that prove the request was never processed, with the words the node uses and
 * whether trying again can help. Any other error after the request left may hide a request the
 * API processed: its outcome is unknown.
 */
const NOT_SENT_NETWORK: Record<string, { reason: string; retry: boolean }> = {
	ECONNREFUSED: { reason: 'the connection was refused', retry: true },
	ENOTFOUND: { reason: 'the host name could not be resolved', retry: true },
	EAI_AGAIN: { reason: 'the host name could not be resolved', retry: true },
	ERR_INVALID_URL: { reason: 'the URL is not valid, so no request could be made', retry: false },
	// TLS failed in the handshake (for instance https to an http port): the request itself is only
	// written once the handshake is done, so none of it reached the server.
	EPROTO: { reason: 'the TLS handshake failed before the request was written', retry: false },
	ERR_SSL_WRONG_VERSION_NUMBER: {
		reason: 'the TLS handshake failed before the request was written',
		retry: false,
	},
};

/** TLS refused the server's certificate: the request never left, and trying again cannot help. */
const CERTIFICATE_CODES = new Set([
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
	'CERT_HAS_EXPIRED',
	'ERR_TLS_CERT_ALTNAME_INVALID',
]);

// Our own words for failures that may hide a processed request: n8n's stock texts for these codes
// advise retrying at once, which is wrong for a request the API may have processed.
const UNKNOWN_NETWORK_REASONS: Record<string, string> = {
	ECONNRESET: 'the connection was closed before the API answered',
	ECONNABORTED: 'the API did not answer within the timeout',
	ETIMEDOUT: 'the API did not answer within the timeout',
};

/** A request that got no answer: whether it was processed, why, and whether to try again. */
function networkDecision(code: string | undefined): Decision<'notSent' | 'unknown'> {
	if (code !== undefined && CERTIFICATE_CODES.has(code)) {
		return {
			outcome: 'notSent',
			reason: `the API's TLS certificate was not accepted (${code})`,
			retry: false,
		};
	}
	const notSent = code === undefined ? undefined : NOT_SENT_NETWORK[code];
	if (notSent) return { outcome: 'notSent', ...notSent };
	return {
		outcome: 'unknown',
		reason: code === undefined ? undefined : UNKNOWN_NETWORK_REASONS[code],
		retry: false,
	};
}

/**
 * Whether an answer is the API's own response wrapper (spec 2.1): a JSON object whose `status`
 * starts with the answer's HTTP code (its reason may follow), with a `message` and, if any, a list
 * of `errors`. Only the API itself can say that it
 * refused a request: a proxy, a load balancer or a CDN in front of it answers in its own words,
 * and may do so after the API took the request.
 */
function isApiWrapper(statusCode: number, body: unknown): boolean {
	let value = body;
	if (typeof value === 'string') {
		try {
			value = JSON.parse(value);
		} catch {
			return false;
		}
	}
	if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
	const { status, message, errors } = value as Record<string, unknown>;
	return (
		typeof status === 'string' &&
		new RegExp(`^${statusCode}(\\D|$)`).test(status.trim()) &&
		typeof message === 'string' &&
		(errors === undefined || Array.isArray(errors))
	);
}

/**
 * An answer: a 2xx was accepted (sent, once its body says which messages). A 4xx, or a 503, in the
 * API's own wrapper was refused (not sent; 429 and 503 ask to try again). Every other answer may
 * come after the API processed the request (unknown): a 500, 502, 504 or a CDN's 520 to 524, and
 * any status in words that are not the API's (a proxy's 503 or 429, an HTML error page).
 */
function answerDecision(statusCode: number, body: unknown): Decision {
	if (statusCode >= 200 && statusCode < 300) return { outcome: 'sent', retry: false };
	const refusable = statusCode === 503 || (statusCode >= 400 && statusCode < 500);
	if (!refusable || !isApiWrapper(statusCode, body)) return { outcome: 'unknown', retry: false };
	return { outcome: 'notSent', retry: statusCode === 429 || statusCode === 503 };
}

/** The one decision: what an attempt's answer or error means for the request. */
export function decide(attempt: {
	networkCode: string | undefined;
}): Decision<'notSent' | 'unknown'>;
export function decide(attempt: AttemptResult): Decision;
export function decide(attempt: AttemptResult): Decision {
	return 'statusCode' in attempt
		? answerDecision(attempt.statusCode, attempt.body)
		: networkDecision(attempt.networkCode);
}

/** What to do about messages whose outcome is unknown. */
export const UNKNOWN_HINT =
	'The API may have accepted these messages. Check SMS → Get Many (search by number or text) before sending them again.';

/** What a request that never reached the API means for its messages. */
export const NOT_REACHED_HINT = 'Nothing reached the API, so these messages can be sent again.';

/** What a request the API refused means for its messages. */
export const REFUSED_HINT =
	'The API refused this request, so these messages were not sent; they can be sent again once the cause is fixed.';

/** The word an error item's "Outcome:" line uses for each outcome. */
export const OUTCOME_WORDS: Record<SendOutcome, string> = {
	sent: 'sent',
	notSent: 'not sent',
	unknown: 'may have been sent',
};
