// The error that stops a run: which items were sent, which were not, which may have been.

import { NodeApiError, type INode } from 'n8n-workflow';

import type { Envelope } from './envelopes';
import { sentence } from '../requests/errors';
import {
	NOT_REACHED_HINT,
	REFUSED_HINT,
	UNKNOWN_HINT,
	type SendOutcome,
} from '../requests/outcome';
import { NOT_ATTEMPTED_WHERE, type EnvelopeOutcome } from './outcomes';
import type { Failure } from './request';
import type { RequestReport } from './scheduler';

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

/** How many envelopes of a request of unknown outcome the run's error shows. */
const ENVELOPES_SHOWN = 10;

const messages = (count: number) => `${count} message${count === 1 ? '' : 's'}`;

/**
 * The run's summary, one sentence per outcome: which items were sent (and charged), which may
 * have been, which were not sent and which were not attempted. `retrySkipsSent`: whether the node
 * keeps Send's ledger, so that a retry of the execution sends the items that were not sent and
 * skips the sent ones; otherwise (one request for every item) a retry sends nothing.
 */
function runSummary(
	items: Record<SendOutcome, number[]>,
	notAttempted: number[],
	{ retrySkipsSent }: { retrySkipsSent: boolean },
): string[] {
	const { sent, notSent, unknown } = items;
	const refused = notSent.filter((itemIndex) => !notAttempted.includes(itemIndex));
	const lines: string[] = [];
	if (sent.length) {
		const again = retrySkipsSent
			? 'A retry of this execution skips them; a new execution sends them again.'
			: 'A retry of this execution sends nothing; a new execution sends them again.';
		lines.push(`Sent and charged (${messages(sent.length)}): items ${itemRanges(sent)}. ${again}`);
	}
	if (unknown.length) {
		lines.push(
			`May have been sent (${messages(unknown.length)}): items ${itemRanges(unknown)}. Check SMS → Get Many before sending them again.`,
		);
	}
	if (refused.length) {
		lines.push(
			`Not sent (${messages(refused.length)}): items ${itemRanges(refused)}. These can be sent again.`,
		);
	}
	if (notAttempted.length) {
		lines.push(
			`Not attempted, as the run stopped first (${messages(notAttempted.length)}): items ${itemRanges(notAttempted)}. These can be sent again.`,
		);
	}
	return lines;
}

/** What a failed request's description says about its messages: the run's summary says it once. */
const OUTCOME_HINTS = new Set([NOT_REACHED_HINT, REFUSED_HINT, UNKNOWN_HINT]);
const withoutOutcomeHints = (description = '') =>
	description
		.split('\n')
		.filter((line) => !OUTCOME_HINTS.has(line))
		.join('\n');

/** The envelopes of a batch that the run does not know to be sent. */
const notSentIn = (batch: Envelope[], outcomes: Map<Envelope, EnvelopeOutcome>) =>
	batch.filter((envelope) => outcomes.get(envelope)?.outcome !== 'sent');

/**
 * Each failed request's items that are not known to be sent, its error and what the run found
 * out since; for a request of unknown outcome, its first envelopes.
 */
function failedRequestLines(
	failed: RequestReport[],
	outcomes: Map<Envelope, EnvelopeOutcome>,
	requests: number,
): string[] {
	const lines: string[] = [];
	for (const { request, batch, failure } of failed) {
		const { outcome, message } = failure!;
		const left = notSentIn(batch, outcomes);
		// What the run found out since (the SMS list lookup) is in `outcomes`, not the report.
		const entry = outcomes.get(left[0]);
		const description =
			entry?.outcome === 'sent' ? undefined : withoutOutcomeHints(entry?.failure.description);
		lines.push(
			`Request ${request} of ${requests}, items ${itemRanges(left.map((e) => e.itemIndex))}: ${sentence(message)}`,
		);
		if (description) lines.push(description);
		if (outcome === 'unknown') {
			// A few, to recognise them by: each error item of the run carries its own envelope.
			const shown = left.slice(0, ENVELOPES_SHOWN).map(({ envelope }) => envelope);
			const more = left.length - shown.length;
			lines.push(`Envelopes: ${JSON.stringify(shown)}${more > 0 ? ` and ${more} more` : ''}`);
		}
	}
	return lines;
}

/** The items an earlier try sent, and those of unknown outcome found in the SMS list since. */
function sentEarlierOrFoundLines(
	outcomes: Map<Envelope, EnvelopeOutcome>,
	sentEarlier: Envelope[],
): string[] {
	const lines: string[] = [];
	if (sentEarlier.length) {
		lines.push(
			`Items ${itemRanges(sentEarlier.map((e) => e.itemIndex))} went out in an earlier try of this node in this execution (n8n's Retry On Fail, or the failed execution this one retries) and were not sent again.`,
		);
	}
	const found = [...outcomes]
		.filter(([, entry]) => entry.outcome === 'sent' && entry.item.json.foundInSmsList)
		.map(([{ itemIndex }]) => itemIndex);
	if (found.length) {
		lines.push(
			`Items ${itemRanges(found)} had an unknown outcome but were then found in the SMS list, so they were sent.`,
		);
	}
	return lines;
}

/**
 * The error's title, HTTP code and item: the first failed request, or else (its items all found
 * sent since) the first item that is not sent, in its own words.
 */
function headline(
	failed: RequestReport[],
	outcomes: Map<Envelope, EnvelopeOutcome>,
	byOutcome: Record<SendOutcome, number[]>,
	sentEarlier: number,
): { message: string; httpCode?: string; itemIndex?: number } {
	const firstNotSent = [...outcomes]
		.filter(([, entry]) => entry.outcome !== 'sent')
		.sort(([a], [b]) => a.itemIndex - b.itemIndex)[0];
	const itsFailure = firstNotSent?.[1].outcome === 'sent' ? undefined : firstNotSent?.[1].failure;
	const known = failed[0]?.failure ?? itsFailure;
	let first: Omit<Failure, 'outcome'> = known ?? { message: 'May have been sent' };
	// n8n's editor titles an error with its item ("[item 0]"); when no item of the run went out,
	// the title names the run instead, and never says "not sent" of items that may have been.
	const everyItemFailed = byOutcome.sent.length === 0 && sentEarlier === 0;
	let message = first.message;
	if (everyItemFailed && byOutcome.unknown.length > 0 && byOutcome.notSent.length > 0) {
		const unknown = [...outcomes.values()].find((entry) => entry.outcome === 'unknown');
		if (unknown && unknown.outcome !== 'sent') first = unknown.failure;
		message = `${first.message} [${byOutcome.unknown.length} of ${outcomes.size} items may have been sent, the others were not]`;
	} else if (everyItemFailed) {
		message = `${first.message} [every item of this run]`;
	}
	const itemIndex = everyItemFailed ? undefined : firstNotSent?.[0].itemIndex;
	return { message, httpCode: first.httpCode, itemIndex };
}

/**
 * The error that stops a run, saying exactly which items went out, which did not and which may
 * have: each failed request, then the run's summary of every item.
 */
export function runError(
	node: INode,
	reports: RequestReport[],
	outcomes: Map<Envelope, EnvelopeOutcome>,
	sentEarlier: Envelope[],
	requests: number,
	{ retrySkipsSent = true }: { retrySkipsSent?: boolean } = {},
): NodeApiError {
	const failed = reports.filter(
		(report) => report.failure && notSentIn(report.batch, outcomes).length > 0,
	);
	const notAttempted = [...outcomes]
		.filter(([, entry]) => entry.outcome === 'notSent' && entry.where === NOT_ATTEMPTED_WHERE)
		.map(([{ itemIndex }]) => itemIndex);
	const byOutcome: Record<SendOutcome, number[]> = { sent: [], notSent: [], unknown: [] };
	for (const [{ itemIndex }, entry] of outcomes) byOutcome[entry.outcome].push(itemIndex);
	const description = [
		...failedRequestLines(failed, outcomes, requests),
		...sentEarlierOrFoundLines(outcomes, sentEarlier),
		...runSummary(byOutcome, notAttempted, { retrySkipsSent }),
	].join('\n');
	const { message, httpCode, itemIndex } = headline(
		failed,
		outcomes,
		byOutcome,
		sentEarlier.length,
	);
	return new NodeApiError(
		node,
		{ message, httpCode: httpCode ?? null },
		{ message, description, httpCode, itemIndex },
	);
}
