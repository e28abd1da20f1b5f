/**
 * How a paid, non-idempotent request ended, decided in one place: `sent` (the API accepted it and
 * said so in a way that can be read), `notSent` (provably not processed: nothing reached the API,
 * or the API refused it) or `unknown` (the API may have processed it). Every text Send prints
 * about a message is worded from this decision.
 */
export type SendOutcome = 'sent' | 'notSent' | 'unknown';

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
export function networkOutcome(code: string | undefined): {
	outcome: 'notSent' | 'unknown';
	reason?: string;
	retry: boolean;
} {
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
 * An answer's status: a 2xx was accepted (sent, once its body says which messages), 429, 503 and
 * the other 4xx were refused (not sent), and every other status, 500, 502, 504 and a CDN's 520 to
 * 524 included, may come after the API processed the request (unknown).
 */
export function statusOutcome(statusCode: number): SendOutcome {
	if (statusCode >= 200 && statusCode < 300) return 'sent';
	if (statusCode >= 400 && statusCode < 500) return 'notSent';
	if (statusCode === 503) return 'notSent';
	return 'unknown';
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

/** "0-99, 150" for item indexes 0 to 99 and 150. */
export function itemRanges(itemIndexes: number[]): string {
	const sorted = [...itemIndexes].sort((a, b) => a - b);
	const ranges: string[] = [];
	for (let i = 0; i < sorted.length; i++) {
		const start = sorted[i];
		while (i + 1 < sorted.length && sorted[i + 1] === sorted[i] + 1) i++;
		ranges.push(start === sorted[i] ? `${start}` : `${start}-${sorted[i]}`);
	}
	return ranges.join(', ');
}

const messages = (count: number) => `${count} message${count === 1 ? '' : 's'}`;

/**
 * The run's account, three lines at most: which items were sent (and charged), which were not,
 * which may have been. It says that nothing was sent only when nothing was and nothing may have
 * been. `retrySkipsSent`: whether the node keeps Send's ledger (sendLedger.ts), so that a retry of
 * the execution does not send the sent items again.
 */
export function runSummary(
	items: Record<SendOutcome, number[]>,
	{ retrySkipsSent }: { retrySkipsSent: boolean },
): string[] {
	const { sent, notSent, unknown } = items;
	const lines: string[] = [];
	if (sent.length) {
		const again = retrySkipsSent
			? 'A retry of this execution skips them; a new execution sends them again.'
			: 'Running this node again sends them again.';
		lines.push(`Sent and charged (${messages(sent.length)}): items ${itemRanges(sent)}. ${again}`);
	}
	if (unknown.length) {
		lines.push(
			`May have been sent (${messages(unknown.length)}): items ${itemRanges(unknown)}. Check SMS → Get Many before sending them again.`,
		);
	}
	if (notSent.length) {
		lines.push(
			`Not sent (${messages(notSent.length)}): items ${itemRanges(notSent)}. These can be sent again.`,
		);
	}
	if (!sent.length && !unknown.length) lines.push('No message of this run was sent.');
	return lines;
}
