// Send's ledger: what a failed try sent, or may have sent, kept for the next try of the same run.
//
// What a Send run that failed (threw) leaves for the next try of the same run, by item index: the
// messages the API accepted and those whose outcome is unknown, each with the recipient it was for.
//
// It lives in the node's context of the execution (`getContext('node')`), which n8n keeps in the
// execution's own data: the same object for every try of n8n's Retry On Fail, and saved with a
// failed execution, whose data a retry from the Executions list starts from (with the original or
// the currently saved workflow alike). A new execution starts with an empty context, so the ledger
// never holds back a message sent again on purpose.
//
// When it goes: a try that sends writes it only when a next try can come, that is when the try
// throws, or (n8n 2.x's Retry On Fail) returns with an error as its first item while Retry On Fail
// is on; it removes it when it returns otherwise. A try refused before sending, or a Dry Run,
// leaves it as it was; a ledger left in a failed execution goes with that execution's data. A sent
// message takes at most 64 bytes: what the API returned that its item does not hold (`SentFacts`);
// its output is rebuilt from its item (`sentEarlierJson`).

import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiTime } from '../../../../shared/input/apiTime';
import type { Envelope } from '../../../../shared/send/envelopes';
import { executionNodeContext, runIndexOf } from '../../../../shared/n8n/n8nInternals';

/** One item's entry: a message the API accepted, or one whose outcome is unknown. */
export type LedgerEntry =
	| { key: string; outcome: 'sent'; sent: SentFacts }
	/** unknown: why, in the words the run used, and when the try that made the request started. */
	| { key: string; outcome: 'unknown'; message?: string; triedAt?: number };

/** What the API gave a sent message that its item does not hold, and what its text was. */
interface SentFacts {
	id: unknown;
	/** `textHash` of the text that went out; absent in ledgers of builds before it was kept. */
	textHash?: string;
	/** ms */
	sentAt: number;
	/** Found in the SMS list by the lookup, which does not know credits and balance. */
	found: boolean;
	credits?: unknown;
	balance?: unknown;
}

/**
 * How an entry is stored: a sent message as an array, [key, id, sentAt, textHash] when the SMS
 * list gave it, [key, id, sentAt, credits, balance, textHash] when Send's answer did (and the same
 * without textHash, as builds before it stored them). `sentAt` in seconds (builds before stored
 * milliseconds: a number above 1e11 is read as those).
 */
type Stored =
	| [string, unknown, number]
	| [string, unknown, number, string]
	| [string, unknown, number, unknown, unknown]
	| [string, unknown, number, unknown, unknown, string]
	| { key: string; outcome: 'unknown'; message?: string; triedAt?: number }
	/** As builds before the 64-byte form stored a sent message: its whole output. */
	| { key: string; outcome: 'sent'; json: IDataObject };

function toStored(entry: LedgerEntry): Stored {
	if (entry.outcome === 'unknown') return entry;
	const { id, found, credits, balance, textHash = '' } = entry.sent;
	const sentAt = Math.round(entry.sent.sentAt / 1000);
	return found
		? [entry.key, id, sentAt, textHash]
		: [entry.key, id, sentAt, credits ?? null, balance ?? null, textHash];
}

function fromStored(value: Stored): LedgerEntry {
	if (!Array.isArray(value)) {
		if (value.outcome === 'unknown') return value;
		const json = value.json ?? {};
		const text = typeof json.message === 'string' ? json.message : undefined;
		return { key: value.key, outcome: 'sent', sent: sentFacts(json, text) };
	}
	const [key, id, stored] = value;
	const sentAt = stored > 1e11 ? stored : stored * 1000;
	const found = value.length <= 4;
	const [credits, balance] = found ? [] : [value[3], value[4]];
	const textHash = value[found ? 3 : 5];
	return {
		key,
		outcome: 'sent',
		sent: {
			id,
			sentAt,
			found,
			...(found ? {} : { credits, balance }),
			...(typeof textHash === 'string' && textHash !== '' ? { textHash } : {}),
		},
	};
}

/** A short hash of a text: enough to tell whether a later try's text is the one that went out. */
const textHash = (text: string) => createHash('sha256').update(text).digest('base64').slice(0, 5);

/** What the ledger keeps of a sent message's output item; `text`: the text that went out. */
export function sentFacts(json: IDataObject, text: string | undefined): SentFacts {
	const sentAt = apiTime(json.sentAt);
	return {
		id: json.id,
		...(text === undefined ? {} : { textHash: textHash(text) }),
		sentAt: Number.isNaN(sentAt) ? Date.now() : sentAt,
		found: json.foundInSmsList === true,
		...(json.foundInSmsList ? {} : { credits: json.credits, balance: json.balance }),
	};
}

/** What the item an earlier try sent says when this try's text is not the one that went out. */
const OTHER_TEXT_NOTE =
	"An earlier try of this node in this execution sent this item's message with another text than this try's (the Message changes each time it is read, as a code or {{ $now }} does), so `message` is left out: the text that went out is not known here. SMS → Get Many shows it.";

/**
 * The output of a message an earlier try sent, rebuilt from its item and what the ledger kept:
 * this try's text only when it is the one that went out.
 */
export function sentEarlierJson({ senderId, envelope }: Envelope, facts: SentFacts): IDataObject {
	const found = facts.found;
	// Builds before kept 6 characters of the hash: their first 5 are this one.
	const sameText =
		facts.textHash === undefined || facts.textHash.slice(0, 5) === textHash(envelope.message);
	return {
		id: facts.id as IDataObject[string],
		senderId,
		recipient: envelope.number,
		...(sameText ? { message: envelope.message } : { note: OTHER_TEXT_NOTE }),
		...(found ? {} : { credits: facts.credits as IDataObject[string], status: 'SENT' }),
		...(envelope.thirdPartyRef === undefined ? {} : { thirdPartyRef: envelope.thirdPartyRef }),
		...(found ? { foundInSmsList: true } : { balance: facts.balance as IDataObject[string] }),
		sentAt: new Date(facts.sentAt).toISOString(),
	};
}

const LEDGER_FIELD = 'smsSendLedger';

/** What the ledger knows an item's message by, beside the item's index: its recipient. */
export const ledgerKey = ({ envelope }: Envelope): string => envelope.number;

type Ledgers = Record<string, Record<string, Stored>>;

function runKey(context: IExecuteFunctions): string {
	return String(runIndexOf(context));
}

/** What earlier tries of this run of the node left, by item index. */
export function readLedger(context: IExecuteFunctions): Map<number, LedgerEntry> {
	const runs = executionNodeContext(context)[LEDGER_FIELD] as Ledgers | undefined;
	const entries = runs?.[runKey(context)] ?? {};
	return new Map(
		Object.entries(entries).map(([itemIndex, entry]) => [Number(itemIndex), fromStored(entry)]),
	);
}

/**
 * Keeps `entries` for the next try of this run (a node in a loop runs several times in one
 * execution: one ledger per run index); an empty map removes the run's ledger.
 */
export function writeLedger(context: IExecuteFunctions, entries: Map<number, LedgerEntry>): void {
	const node = executionNodeContext(context);
	const runs = (node[LEDGER_FIELD] ?? {}) as Ledgers;
	const run = runKey(context);
	if (entries.size > 0) {
		runs[run] = Object.fromEntries(
			[...entries].map(([itemIndex, entry]) => [itemIndex, toStored(entry)]),
		);
	} else delete runs[run];
	if (Object.keys(runs).length > 0) node[LEDGER_FIELD] = runs;
	else delete node[LEDGER_FIELD];
}
