// Sending messages, for every node of the package: the parts SMS → Send uses, and sendInOneRequest.
//
// The parts: the plan (every item checked before the first request), the request of one batch,
// the scheduler of the run's requests, the outcome of every envelope and the run's error. SMS →
// Send builds on them (it adds Continue On Fail, the dry run and its ledger); other nodes send
// through `sendInOneRequest`.

import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import type { Envelope } from './envelopes';
import { executionNodeContext, runIndexOf } from '../n8n/n8nInternals';
import { sendEnvelopes, type EnvelopeOutcome } from './outcomes';
import { planRun } from './plan';
import { itemRanges, runError } from './runError';

export { outcomeItem, sendEnvelopes, type EnvelopeOutcome } from './outcomes';
export { planRun, type RunPlan } from './plan';
export { runError } from './runError';

const SENT_FIELD = 'smsOneRequestSent';

/** What a failed try of a run left for its next try: the items it sent, or may have sent. */
interface SentBefore {
	sent: number[];
	unknown: number[];
}

/**
 * What earlier tries of this run of the node sent, or may have sent, kept in the node's context
 * of the execution (as Send's ledger is: the same for every try of Retry On Fail and for a retry
 * of the failed execution; a new execution starts without it), one entry per run index.
 */
function sentBefore(context: IExecuteFunctions): Record<string, SentBefore> | undefined {
	return executionNodeContext(context)[SENT_FIELD] as Record<string, SentBefore> | undefined;
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
	const earlier = sentBefore(this)?.[run];
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
			executionNodeContext(this)[SENT_FIELD] = { ...sentBefore(this), [run]: sentOrMaybe };
		}
		throw runError(this.getNode(), reports, outcomes, [], batches.length, {
			retrySkipsSent: false,
		});
	}
}
