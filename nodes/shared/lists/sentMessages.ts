import type { IDataObject, JsonObject } from 'n8n-workflow';

import { apiTime } from '../input/apiTime';
import { MAX_PAGE_SIZE } from './list';
import { pageCount, recordKey, walkPages, type PageAt } from './pageWalker';
import { provablySentSince, sentSince, startDateFor } from './sentWindow';
import { normalisedPhoneNumber } from '../input/phoneNumbers';

/**
 * A text as a service may store it: trimmed, line breaks as "\n", Unicode NFC (a decomposed "é"
 * composed). Texts are compared in this form wherever a record of the API is matched to a message.
 */
export function comparableText(text: string): string {
	return text.normalize('NFC').replace(/\r\n?/g, '\n').trim();
}

// Finding messages sent earlier in the SMS list (GET /sms), the API's only record of delivery
// (spec section 6). The spec has no request for one message and does not say that an outgoing
// record's `id` (Send's answer) is the SMS list's `id`, so a message is found by its recipient
// and its text (as a service may store it), and its id only chooses between records that both match.

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
}

/** A record's number as Send would have sent it (or as given, when it is no phone number). */
function recipientOf(value: unknown): string {
	const text = String(value ?? '');
	return normalisedPhoneNumber(text) ?? text;
}

/**
 * What a message and its record have in common: the normalised number and the text, compared as
 * a service may store it (`comparableText`: trimmed, line breaks, Unicode NFC).
 */
const keyOf = (recipient: unknown, text: unknown) =>
	JSON.stringify([recipientOf(recipient), typeof text === 'string' ? comparableText(text) : text]);

const isSetId = (messageId: SentMessage['messageId']) =>
	messageId !== undefined && messageId !== '';

/** The id a message's own record has, if known: Send's id, or the list's from an earlier look. */
const idOf = ({ messageId, recordId }: SentMessage) => (isSetId(messageId) ? messageId : recordId);

/** Newest first: by `sentAt`, then by the larger id. */
function recency(a: IDataObject, b: IDataObject): number {
	const at = (r: IDataObject) => {
		const ms = apiTime(r.sentAt);
		return Number.isNaN(ms) ? -Infinity : ms;
	};
	const byTime = at(b) - at(a);
	if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
	return Number(b.id) - Number(a.id) || 0;
}

/**
 * Gives each wanted message its SMS record, or undefined when the records hold none:
 * - a record matches a message when its recipient (normalised like Send's numbers) and its
 *   `content` (as `comparableText` gives it) are the message's, and it was sent no earlier than the message's `since`;
 * - a matching record whose `id` equals the message's `messageId` is its record;
 * - otherwise the most recent matching record (`sentAt`, then `id`) that no other message was
 *   given, in the order the messages come: the same text sent to the same number several times
 *   gives each message a different record, the first message the most recent;
 * - no record is given to two messages;
 * - once one message's `messageId` is the id of its record (so Send's ids are the list's ids),
 *   a message whose `messageId` matches no record gets none: an older message with the same text
 *   would be another message's record.
 * Linear in the messages and records (but for sorting each number and text's records).
 */
function matchSentMessages(
	wanted: SentMessage[],
	records: IDataObject[],
): Array<IDataObject | undefined> {
	const byKey = new Map<string, IDataObject[]>();
	for (const record of records) {
		const key = keyOf(record.recipient, record.content);
		const group = byKey.get(key);
		if (group) group.push(record);
		else byKey.set(key, [record]);
	}
	/** Per number and text: its records newest first, and a cursor past those given away. */
	const groups = new Map<
		string,
		{ records: IDataObject[]; next: number; byId: Map<string, IDataObject[]> }
	>();
	for (const [key, group] of byKey) {
		group.sort(recency);
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
	const groupOf = wanted.map(({ recipient, text }) => groups.get(keyOf(recipient, text)));

	const given = new Set<IDataObject>();
	const result: Array<IDataObject | undefined> = wanted.map((message, k) => {
		const id = idOf(message);
		if (!isSetId(id)) return undefined;
		const own = groupOf[k]?.byId
			.get(String(id))
			?.find((record) => !given.has(record) && provablySentSince(record, message.since));
		if (own) given.add(own);
		return own;
	});
	// Only a message's id from Send's answer can show that Send's ids are the list's.
	const idsAreListIds = result.some((own, k) => own && isSetId(wanted[k].messageId));
	return result.map((own, k) => {
		if (own) return own;
		const group = groupOf[k];
		if (!group || (idsAreListIds && isSetId(wanted[k].messageId))) return undefined;
		while (group.next < group.records.length && given.has(group.records[group.next])) group.next++;
		const next = group.records[group.next];
		// Newest first: when the most recent record left is older than the message, so are the others.
		if (!next || !provablySentSince(next, wanted[k].since)) return undefined;
		given.add(next);
		return next;
	});
}

/**
 * Reads one page of `GET {baseUrl}/sms` with these query parameters (retrying what the caller
 * retries) and gives the answer's `data`, whose `content` has been checked to be a list.
 */
export type SmsPageReader = (query: IDataObject) => Promise<JsonObject>;

export interface FindOptions {
	readPage: SmsPageReader;
	/** Pages read at once when the whole window is read (default 1; a limiter's window). */
	parallel?: () => number;
	/** The error when the list's pages repeat earlier ones (pageWalker.ts). */
	repeated: (at: PageAt) => Error;
}

/**
 * Finds sent messages in the SMS list, newest first (`sort=sentAt,desc`, 100 per page), from the
 * earliest `since` of them on (`startDateFor`: robust to both readings of `start-date`), and
 * matches them as `matchSentMessages` does: per wanted message, in order, its SMS record as the
 * list gave it, or undefined.
 *
 * It reads the window's first page, which holds the latest messages (often all it needs). Then,
 * when the window has more pages than the numbers still to find plus one, it searches each such
 * number (`query`), page by page; otherwise it reads the rest of the window, `parallel` pages at
 * a time. Either stops as soon as the records read settle every message (each has its record, by
 * its `messageId` when it has one), or a page reaches records older than every message. So, with
 * the API's page counts, it makes at most min(messages, window pages) + 1 list requests, as long
 * as no number it searches has more than 100 messages in the window that have to be paged through
 * to settle its messages. Linear in the messages and the records read.
 */
export async function findSentMessages(
	wanted: SentMessage[],
	{ readPage, parallel, repeated }: FindOptions,
): Promise<Array<IDataObject | undefined>> {
	let oldest = Infinity;
	for (const { since } of wanted) oldest = Math.min(oldest, since);
	const window = { 'start-date': startDateFor(oldest), sort: 'sentAt,desc' };
	const records: IDataObject[] = [];
	const seen = new Set<string>();
	const keys = wanted.map(({ recipient, text }) => keyOf(recipient, text));
	/** The messages of each number and text, and the earliest time any of them was sent. */
	const messagesOf = new Map<string, { messages: SentMessage[]; since: number }>();
	keys.forEach((key, k) => {
		const entry = messagesOf.get(key);
		if (entry) {
			entry.messages.push(wanted[k]);
			entry.since = Math.min(entry.since, wanted[k].since);
		} else messagesOf.set(key, { messages: [wanted[k]], since: wanted[k].since });
	});
	/** Per number and text: how many records were read, and their ids. */
	const readByKey = new Map<string, { count: number; ids: Set<string> }>();
	/**
	 * The numbers and texts that older records could still change. Pages come newest first, so one
	 * is settled once each of its messages with a message ID has the record with that ID and there
	 * are as many records as messages (the others take the most recent ones left).
	 */
	const open = new Set(keys);
	/** Adds a page's records; true when the page reached records older than every message. */
	const add = (data: JsonObject): boolean => {
		const content = data.content as IDataObject[];
		const changed = new Set<string>();
		let older = false;
		for (const record of content) {
			// Newest first: a record older than every message ends the reading.
			if (!sentSince(record, oldest)) {
				older = true;
				continue;
			}
			// A search finds records the window's first page already gave.
			const id = recordKey(record);
			if (seen.has(id)) continue;
			seen.add(id);
			records.push(record);
			const key = keyOf(record.recipient, record.content);
			if (!open.has(key) || !provablySentSince(record, messagesOf.get(key)!.since)) continue;
			const entry = readByKey.get(key) ?? { count: 0, ids: new Set<string>() };
			entry.count++;
			if (record.id !== undefined) entry.ids.add(String(record.id));
			readByKey.set(key, entry);
			changed.add(key);
		}
		for (const key of changed) {
			const { count, ids } = readByKey.get(key)!;
			const { messages } = messagesOf.get(key)!;
			const settled =
				count >= messages.length &&
				messages.every((message) => !isSetId(idOf(message)) || ids.has(String(idOf(message))));
			if (settled) open.delete(key);
		}
		return older;
	};
	const result = () => matchSentMessages(wanted, records);
	if (wanted.length === 0) return result();
	const read =
		(query?: string) =>
		async ({ page, size }: PageAt) =>
			await readPage({
				...window,
				...(query === undefined ? {} : { query }),
				page,
				records: size,
			});

	/** The numbers and texts still open, by number. */
	const openByNumber = () => {
		const byNumber = new Map<string, string[]>();
		for (const key of open) {
			const number = recipientOf(messagesOf.get(key)!.messages[0].recipient);
			const ofNumber = byNumber.get(number);
			if (ofNumber) ofNumber.push(key);
			else byNumber.set(number, [key]);
		}
		return byNumber;
	};
	// The window, newest first; after its first page, when the window has more pages than the
	// numbers still open plus one, each such number is searched instead.
	let search: Map<string, string[]> | undefined;
	await walkPages(
		read(),
		(data, { page }) => {
			if (add(data) || open.size === 0) return true;
			const pages = page === 1 ? pageCount(data, MAX_PAGE_SIZE) : undefined;
			if (pages === undefined) return false;
			const byNumber = openByNumber();
			if (byNumber.size >= pages - 1) return false;
			search = byNumber;
			return true;
		},
		// Newest first: messages sent meanwhile land first, and are no message wanted here.
		{ size: MAX_PAGE_SIZE, parallel, repeated, arrivals: 'first' },
	);
	for (const [number, ofNumber] of search ?? []) {
		await walkPages(read(number), (data) => add(data) || ofNumber.every((key) => !open.has(key)), {
			size: MAX_PAGE_SIZE,
			repeated,
			arrivals: 'first',
		});
	}
	return result();
}
