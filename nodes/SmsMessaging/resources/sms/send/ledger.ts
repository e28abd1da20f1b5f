import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Envelope } from '../../../../shared/envelopes';
import { executionNodeContext, runIndexOf } from '../../../../shared/n8nInternals';

/**
 * What a Send run that did not end with every message sent leaves for the next try of the same
 * run, by item index: the messages the API accepted (with the item's output) and those whose
 * outcome is unknown, each with the recipient it was for.
 *
 * It lives in the node's context of the execution (`getContext('node')`), which n8n keeps in the
 * execution's own data: the same object for every try of n8n's Retry On Fail, and saved with a
 * failed execution, whose data a retry from the Executions list starts from (with the original or
 * the currently saved workflow alike). A new execution starts with an empty context, so the ledger
 * never holds back a message sent again on purpose. Bounded by the run itself: one entry per item
 * of the run that was not sent in full, removed once a try sends everything.
 */
export interface LedgerEntry {
	/**
	 * `ledgerKey` of the envelope: the recipient. An item that now goes to another number is a new
	 * message; one whose text changed is not (a text may hold `{{ $now }}` or a random id).
	 */
	key: string;
	outcome: 'sent' | 'unknown';
	/** sent: the item's output (its outgoing record and the balance). */
	json?: IDataObject;
	/** unknown: why, in the words the run used. */
	message?: string;
	/** unknown: when the try that made the request started (ms), for the SMS list lookup. */
	triedAt?: number;
}

const FIELD = 'smsSendLedger';

/** What the ledger knows an item's message by, beside the item's index: its recipient. */
export const ledgerKey = ({ envelope }: Envelope): string => envelope.number;

type Ledgers = Record<string, Record<string, LedgerEntry>>;

function runKey(context: IExecuteFunctions): string {
	return String(runIndexOf(context));
}

/** What earlier tries of this run of the node left, by item index. */
export function readLedger(context: IExecuteFunctions): Map<number, LedgerEntry> {
	const runs = executionNodeContext(context)[FIELD] as Ledgers | undefined;
	const entries = runs?.[runKey(context)] ?? {};
	return new Map(Object.entries(entries).map(([itemIndex, entry]) => [Number(itemIndex), entry]));
}

/**
 * Keeps `entries` for the next try of this run (a node in a loop runs several times in one
 * execution: one ledger per run index); an empty map removes the run's ledger.
 */
export function writeLedger(context: IExecuteFunctions, entries: Map<number, LedgerEntry>): void {
	const node = executionNodeContext(context);
	const runs = (node[FIELD] ?? {}) as Ledgers;
	const run = runKey(context);
	if (entries.size > 0) runs[run] = Object.fromEntries(entries);
	else delete runs[run];
	if (Object.keys(runs).length > 0) node[FIELD] = runs;
	else delete node[FIELD];
}
