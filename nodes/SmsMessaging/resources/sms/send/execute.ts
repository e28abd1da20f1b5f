// SMS → Send: one run, from the checked items to every item's output, with what earlier tries sent.

import type {
	IExecuteFunctions,
	INodeExecutionData,
	IPairedItemData,
	JsonObject,
} from 'n8n-workflow';

import { toBatches, type Envelope } from '../../../../shared/send/envelopes';
import { errorItem, nodeError } from '../../../../shared/requests/errors';
import { OUTCOME_WORDS, UNKNOWN_HINT } from '../../../../shared/requests/outcome';
import {
	outcomeItem,
	planRun,
	runError,
	sendEnvelopes,
	type EnvelopeOutcome,
	type RunPlan,
} from '../../../../shared/send';
import { dryRunItems } from './dryRun';
import {
	ledgerKey,
	readLedger,
	sentEarlierJson,
	sentFacts,
	writeLedger,
	type LedgerEntry,
} from './ledger';

const EARLIER_UNKNOWN_HINT =
	"An earlier try of this node in this execution (n8n's Retry On Fail, or the failed execution this one retries) may have sent it, so it was not sent again. " +
	UNKNOWN_HINT;

/**
 * What earlier tries of this run sent, or may have sent, enters `outcomes` and is not sent again;
 * gives the envelopes still to send, and those an earlier try sent with what the ledger kept of
 * them (carried to the next try as it is: never recomputed from a later try's text).
 */
function skipWhatEarlierTriesSent(
	this: IExecuteFunctions,
	envelopes: Envelope[],
	outcomes: Map<Envelope, EnvelopeOutcome>,
): { toSend: Envelope[]; sentEarlier: Map<Envelope, LedgerEntry> } {
	const ledger = readLedger(this);
	const sentEarlier = new Map<Envelope, LedgerEntry>();
	const toSend: Envelope[] = [];
	for (const envelope of envelopes) {
		const earlier = ledger.get(envelope.itemIndex);
		if (earlier?.key !== ledgerKey(envelope)) {
			toSend.push(envelope);
		} else if (earlier.outcome === 'sent') {
			sentEarlier.set(envelope, earlier);
			const json = sentEarlierJson(envelope, earlier.sent) as JsonObject;
			const item = { json, pairedItem: { item: envelope.itemIndex } };
			outcomes.set(envelope, { outcome: 'sent', item });
		} else {
			const failure = {
				message: earlier.message ?? 'May have been sent',
				description: EARLIER_UNKNOWN_HINT,
			};
			outcomes.set(envelope, {
				outcome: 'unknown',
				failure,
				where: 'an earlier try',
				triedAt: earlier.triedAt,
			});
		}
	}
	return { toSend, sentEarlier };
}

/** Whether any of the run's `envelopes` is not accounted for as sent. */
const notAllSent = (outcomes: Map<Envelope, EnvelopeOutcome>, envelopes: number) =>
	outcomes.size < envelopes || [...outcomes.values()].some(({ outcome }) => outcome !== 'sent');

/**
 * What a try keeps for the next try of its run, when one may come: what went out, or may have; a
 * message an earlier try sent, as that try's ledger kept it.
 */
function keepForNextTry(
	this: IExecuteFunctions,
	outcomes: Map<Envelope, EnvelopeOutcome>,
	sentEarlier: Map<Envelope, LedgerEntry>,
): void {
	const kept = new Map<number, LedgerEntry>();
	for (const [envelope, entry] of outcomes) {
		const key = ledgerKey(envelope);
		const earlier = sentEarlier.get(envelope);
		if (earlier) {
			kept.set(envelope.itemIndex, earlier);
		} else if (entry.outcome === 'sent') {
			const sent = sentFacts(entry.item.json, envelope.envelope.message);
			kept.set(envelope.itemIndex, { key, outcome: 'sent', sent });
		} else if (entry.outcome === 'unknown') {
			const { message } = entry.failure;
			kept.set(envelope.itemIndex, { key, outcome: 'unknown', message, triedAt: entry.triedAt });
		}
	}
	writeLedger(this, kept);
}

/**
 * SMS → Send: every item of the run goes out as an envelope, in as few requests as the batch
 * size allows, after all of them are checked; every item is accounted for whatever the API or the
 * network does. A try of the same run (n8n's Retry On Fail, or a retried execution) sends only
 * what no earlier try sent or may have sent.
 */
export async function send(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	let plan: RunPlan;
	try {
		plan = await planRun.call(this, continueOnFail, { defaultCountryCode: true });
	} catch (caught) {
		const error = nodeError(node, caught, 0);
		if (!continueOnFail) throw error;
		// A refused run sends nothing, so no item may pass through as if it had been sent: n8n would
		// pass the input on if this threw under Continue On Fail.
		return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
	}
	const { options, settings, envelopes, refused } = plan;
	const results: INodeExecutionData[] = new Array(items.length);
	const place = (item: INodeExecutionData) => {
		results[(item.pairedItem as IPairedItemData).item] = item;
	};
	refused.forEach(place);
	if (options.dryRun) {
		dryRunItems(envelopes).forEach(place);
		return [results];
	}

	const outcomes = new Map<Envelope, EnvelopeOutcome>();
	const { toSend, sentEarlier } = skipWhatEarlierTriesSent.call(this, envelopes, outcomes);
	// Request Options → Batching: no request carries more than Items per Batch envelopes.
	const batches = toBatches(toSend, Math.min(options.batchSize, settings.itemsPerBatch));
	// Whether a next try of this run may come: n8n's Retry On Fail, or a retry of the failed
	// execution, runs the node again after it throws, and n8n 2.x's Retry On Fail also after it
	// returns with an error as its first item. Only then is the ledger kept.
	let nextTryMayCome = true;
	try {
		const reports = await sendEnvelopes.call(this, plan, batches, outcomes);
		if (notAllSent(outcomes, envelopes.length) && !continueOnFail) {
			throw runError(node, reports, outcomes, [...sentEarlier.keys()], batches.length);
		}
		for (const [envelope, entry] of outcomes) {
			if (entry.outcome === 'sent') place(entry.item);
			else {
				const outcome = `${OUTCOME_WORDS[entry.outcome]}, ${entry.where}`;
				place(outcomeItem(node, entry.failure, envelope, outcome));
			}
		}
		nextTryMayCome = node.retryOnFail === true && results[0]?.json.error !== undefined;
	} finally {
		if (nextTryMayCome) keepForNextTry.call(this, outcomes, sentEarlier);
		else writeLedger(this, new Map());
	}
	return [results];
}
