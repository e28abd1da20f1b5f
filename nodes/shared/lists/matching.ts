// Which record of the SMS list is which message: by number and text, never one record for two.
import type { IDataObject } from 'n8n-workflow';

import { apiTime } from '../input/apiTime';
import { normalisedPhoneNumber } from '../input/phoneNumbers';

/**
 * A text as a service may store it: trimmed, line breaks as "\n", Unicode NFC (a decomposed "é"
 * composed). Texts are compared in this form wherever a record of the API is matched to a message.
 */
export function comparableText(text: string): string {
	return text.normalize('NFC').replace(/\r\n?/g, '\n').trim();
}

/** A message sent earlier, to be found in the SMS list. */
export interface SentMessage {
	/** The number it went to, in any form Send accepts (compared after Send's normalisation). */
	recipient: string;
	/** Its text as sent (compared after `comparableText`). */
	text: string;
	/** The id Send's outgoing record gave it, if known: preferred, never required. */
	messageId?: string | number;
	/**
	 * The id of its record in the SMS list, when an earlier look found it there: that record is
	 * its own, but it proves nothing about whether Send's ids are the list's.
	 */
	recordId?: string | number;
	/** It was sent at this time or later (ms): an older record is never its record. */
	since: number;
	/**
	 * When the API accepted it, by n8n's clock (Send's sentAt): with `messageId`, it shows the
	 * zone of an API that writes times without an offset (ListTimes).
	 */
	sentAt?: number;
}

/**
 * What the SMS list gave one message: its `record`, or none; when none, the most recent matching
 * record, older than the message (`older`), or, when the list's times contradict the credential's
 * API Time Zone (`zone`), a record that read in that zone lies after now (`future`: nothing is
 * given).
 */
export interface FoundMessage {
	record?: IDataObject;
	older?: IDataObject;
	future?: IDataObject;
	zone?: string;
	/** The zone the times seem written in, by `older` (sentMessages.ts): "UTC-05:00". */
	seems?: string;
}

/**
 * Numbers as one lookup read them, each parsed once: reading a number with libphonenumber is most
 * of a lookup's work (a lookup of 150,000 messages meets each number in several places).
 */
export type ReadNumbers = Map<string, string>;

/** A record's number as Send would have sent it (or as given, when it is no phone number). */
function recipientOf(value: unknown, read: ReadNumbers = new Map()): string {
	const text = String(value ?? '');
	let number = read.get(text);
	if (number === undefined) {
		number = normalisedPhoneNumber(text) ?? text;
		read.set(text, number);
	}
	return number;
}

/**
 * What a message and its record have in common: the normalised number and the text, compared as
 * a service may store it (`comparableText`: trimmed, line breaks, Unicode NFC).
 */
export const numberAndTextKey = (recipient: unknown, text: unknown, read?: ReadNumbers) =>
	JSON.stringify([
		recipientOf(recipient, read),
		typeof text === 'string' ? comparableText(text) : text,
	]);

export const isSetId = (messageId: SentMessage['messageId']) =>
	messageId !== undefined && messageId !== '';

/** The id a message's own record has, if known: Send's id, or the list's from an earlier look. */
export const ownRecordId = ({ messageId, recordId }: SentMessage) =>
	isSetId(messageId) ? messageId : recordId;

/** Newest first: by `sentAt`, then by the larger id. */
function newestFirst(a: IDataObject, b: IDataObject): number {
	const at = (r: IDataObject) => {
		const ms = apiTime(r.sentAt);
		return Number.isNaN(ms) ? -Infinity : ms;
	};
	const byTime = at(b) - at(a);
	if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
	return Number(b.id) - Number(a.id) || 0;
}

/** Records by number and text. */
function byNumberAndText(records: IDataObject[], read: ReadNumbers): Map<string, IDataObject[]> {
	const byKey = new Map<string, IDataObject[]>();
	for (const record of records) {
		const key = numberAndTextKey(record.recipient, record.content, read);
		const group = byKey.get(key);
		if (group) group.push(record);
		else byKey.set(key, [record]);
	}
	return byKey;
}

/**
 * Gives each wanted message its SMS record, or undefined when the records hold none:
 * - a record matches a message when its recipient (normalised like Send's numbers) and its
 *   `content` (as `comparableText` gives it) are the message's, and it was sent no earlier than
 *   the message's `since` (its `sentAt` read by `time`);
 * - a matching record whose `id` equals the message's `messageId` (or, without one, its
 *   `recordId`) is its record;
 * - otherwise the most recent matching record (`sentAt`, then `id`) that no other message was
 *   given, in the order the messages come: the same text sent to the same number several times
 *   gives each message a different record, the first message the most recent;
 * - no record is given to two messages;
 * - once one message's `messageId` is the id of its record (so Send's ids are the list's ids),
 *   a message whose `messageId` matches no record gets none: an older message with the same text
 *   would be another message's record.
 * - a message left without a record is given the most recent matching record left as `older`.
 * Linear in the messages and records (but for sorting each number and text's records).
 */
export function matchSentMessages(
	wanted: SentMessage[],
	records: IDataObject[],
	time: (record: IDataObject) => number,
	zone: string,
	read: ReadNumbers,
): FoundMessage[] {
	const byKey = byNumberAndText(records, read);
	/** Per number and text: its records newest first, and a cursor past those given away. */
	const groups = new Map<
		string,
		{ records: IDataObject[]; next: number; byId: Map<string, IDataObject[]> }
	>();
	for (const [key, group] of byKey) {
		group.sort(newestFirst);
		const byId = new Map<string, IDataObject[]>();
		for (const record of group) {
			if (record.id === undefined) continue;
			const id = String(record.id);
			const same = byId.get(id);
			if (same) same.push(record);
			else byId.set(id, [record]);
		}
		groups.set(key, { records: group, next: 0, byId });
	}
	const groupOf = wanted.map(({ recipient, text }) =>
		groups.get(numberAndTextKey(recipient, text, read)),
	);

	const given = new Set<IDataObject>();
	const result: Array<IDataObject | undefined> = wanted.map((message, k) => {
		const id = ownRecordId(message);
		if (!isSetId(id)) return undefined;
		const own = groupOf[k]?.byId
			.get(String(id))
			?.find((record) => !given.has(record) && time(record) >= message.since);
		if (own) given.add(own);
		return own;
	});
	// Only a message's id from Send's answer can show that Send's ids are the list's.
	const idsAreListIds = result.some((own, k) => own && isSetId(wanted[k].messageId));
	return result.map((own, k): FoundMessage => {
		if (own) return { record: own };
		const group = groupOf[k];
		if (!group || (idsAreListIds && isSetId(wanted[k].messageId))) return {};
		while (group.next < group.records.length && given.has(group.records[group.next])) group.next++;
		const next = group.records[group.next];
		// Newest first: when the most recent record left is older than the message, so are the others.
		if (next && time(next) >= wanted[k].since) {
			given.add(next);
			return { record: next };
		}
		return next ? { older: next, zone } : {};
	});
}
