// sendInOneRequest: every input item's message in one request, for the nodes other than SMS →
// Send (the approval node), with what earlier tries of the run sent (not a ledger: a next try
// after one that sent anything sends nothing).

import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import type { Envelope } from './envelopes';
import { executionNodeContext, runIndexOf } from '../n8n/n8nInternals';
import { sendEnvelopes, type EnvelopeOutcome } from './outcomes';
import { planRun } from './plan';
import { itemRanges, runError } from './runError';

const EARLIER_TRIES_FIELD = 'smsOneRequestSent';

/** What a failed try of a run left for its next try: the items it sent, or may have sent. */
interface EarlierTry {
	sent: number[];
	unknown: number[];
}

/**
 * The earlier tries of this run of the node: the items they sent, or may have sent, by run index,
 * kept in the node's context of the execution (the same for every try of Retry On Fail and for a
 * retry of the failed execution; a new execution starts without it). Only item indexes: a next
 * try sends nothing at all, so nothing of a message is carried forward (as Send's ledger does).
 */
function earlierTries(context: IExecuteFunctions): Record<string, EarlierTry> | undefined {
	return executionNodeContext(context)[EARLIER_TRIES_FIELD] as
		| Record<string, EarlierTry>
		| undefined;
}

/**
 * Sends every input item's message in one request, through Send's checks, request and outcome
 * rules. `prepare` sees the checked envelopes before anything is sent: it may refuse them (by
 * throwing) or change their text. Anything short of every message provably sent throws, and the
 * error says which items went out. A next try of the run (Retry On Fail, a retry of the failed
 * execution) after a try that sent or may have sent any message sends nothing and says so: its
 * messages would carry other text (new links), so they cannot be told from the first ones.
 */
export async function sendInOneRequest(
	this: IExecuteFunctions,
	prepare: (envelopes: Envelope[]) => void,
): Promise<void> {
	const run = String(runIndexOf(this));
	const earlier = earlierTries(this)?.[run];
	if (earlier !== undefined) {
		const lines = [
			earlier.sent.length ? `Sent by an earlier try: items ${itemRanges(earlier.sent)}.` : '',
			earlier.unknown.length
				? `May have been sent by an earlier try: items ${itemRanges(earlier.unknown)}.`
				: '',
			'Nothing was sent by this try, so that no one gets the message twice. A new execution sends every item again.',
		];
		throw new NodeOperationError(
			this.getNode(),
			'Not sent again: an earlier try of this run sent messages [every item of this run]',
			{ description: lines.filter(Boolean).join('\n'), level: 'warning' },
		);
	}
	// Without Continue On Fail, the checks refuse the whole run on the first bad item.
	const plan = await planRun.call(this, false);
	prepare(plan.envelopes);
	const batches = [plan.envelopes];
	const outcomes = new Map<Envelope, EnvelopeOutcome>();
	const reports = await sendEnvelopes.call(this, plan, batches, outcomes);
	const entries = [...outcomes];
	if (entries.some(([, { outcome }]) => outcome !== 'sent')) {
		const items = (wanted: EnvelopeOutcome['outcome']) =>
			entries.filter(([, { outcome }]) => outcome === wanted).map(([{ itemIndex }]) => itemIndex);
		const sentOrMaybe = { sent: items('sent'), unknown: items('unknown') };
		if (sentOrMaybe.sent.length + sentOrMaybe.unknown.length > 0) {
			executionNodeContext(this)[EARLIER_TRIES_FIELD] = {
				...earlierTries(this),
				[run]: sentOrMaybe,
			};
		}
		throw runError(this.getNode(), reports, outcomes, [], batches.length, {
			retrySkipsSent: false,
		});
	}
}
