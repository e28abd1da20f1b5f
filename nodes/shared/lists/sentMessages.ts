// Finding messages sent earlier in the SMS list, by their recipient and text.
//
// The SMS list (GET /sms) is the API's only record of delivery (spec section 6). The spec has no
// request for one message and does not say that an outgoing record's `id` (Send's answer) is the
// SMS list's `id`, so a message is found by its recipient and its text (as a service may store
// it), and its id only chooses between records that both match.

import type { IDataObject, JsonObject } from 'n8n-workflow';

import { apiTime } from '../input/apiTime';
import { MAX_PAGE_SIZE } from './list';
import { walkPages } from './pageWalker';
import { pageCount, recordKey, type PageRead, type RepeatedPages } from './pages';
import {
	learnedOffset,
	provablySentSince,
	sentSince,
	startDateInAnyZone,
	unplacedSince,
} from './sentWindow';
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
	 * zone of an API that writes times without an offset (`apiOffset`).
	 */
	sentAt?: number;
}

/**
 * What the SMS list gave one message: its `record`, or none; and, when none, a matching record
 * whose `sentAt`, without an offset in a zone not learned, may be older than the message
 * (`unplaced`): the message cannot be told from an older one with the same number and text.
 */
export interface FoundMessage {
	record?: IDataObject;
	unplaced?: IDataObject;
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
const numberAndTextKey = (recipient: unknown, text: unknown) =>
	JSON.stringify([recipientOf(recipient), typeof text === 'string' ? comparableText(text) : text]);

const isSetId = (messageId: SentMessage['messageId']) =>
	messageId !== undefined && messageId !== '';

/** The id a message's own record has, if known: Send's id, or the list's from an earlier look. */
const ownRecordId = ({ messageId, recordId }: SentMessage) =>
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

/**
 * Gives each wanted message its SMS record, or undefined when the records hold none:
 * - a record matches a message when its recipient (normalised like Send's numbers) and its
 *   `content` (as `comparableText` gives it) are the message's, and it was provably sent no
 *   earlier than the message's `since` (`provablySentSince`, at the API's `offset` when learned);
 * - a matching record whose `id` equals the message's `messageId` (or, without one, its
 *   `recordId`) is its record;
 * - otherwise the most recent matching record (`sentAt`, then `id`) that no other message was
 *   given, in the order the messages come: the same text sent to the same number several times
 *   gives each message a different record, the first message the most recent;
 * - no record is given to two messages;
 * - once one message's `messageId` is the id of its record (so Send's ids are the list's ids),
 *   a message whose `messageId` matches no record gets none: an older message with the same text
 *   would be another message's record.
 * - a message left without a record whose most recent matching record may or may not be older
 *   (a `sentAt` without an offset, `unplacedSince`) is given it as `unplaced`.
 * Linear in the messages and records (but for sorting each number and text's records).
 */
function matchSentMessages(
	wanted: SentMessage[],
	records: IDataObject[],
	offset: number | undefined,
): FoundMessage[] {
	const byKey = new Map<string, IDataObject[]>();
	for (const record of records) {
		const key = numberAndTextKey(record.recipient, record.content);
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
		groups.get(numberAndTextKey(recipient, text)),
	);

	const given = new Set<IDataObject>();
	const result: Array<IDataObject | undefined> = wanted.map((message, k) => {
		const id = ownRecordId(message);
		if (!isSetId(id)) return undefined;
		const own = groupOf[k]?.byId
			.get(String(id))
			?.find((record) => !given.has(record) && provablySentSince(record, message.since, offset));
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
		if (next && provablySentSince(next, wanted[k].since, offset)) {
			given.add(next);
			return { record: next };
		}
		return next && unplacedSince(next, wanted[k].since, offset) ? { unplaced: next } : {};
	});
}

/**
 * Reads one page of `GET {baseUrl}/sms` with these query parameters (retrying what the caller
 * retries) and gives the answer's `data`, whose `content` has been checked to be a list.
 */
export type SmsPageReader = (query: IDataObject) => Promise<JsonObject>;

interface FindOptions {
	readPage: SmsPageReader;
	/** Pages read at once when the whole window is read (default 1; a limiter's window). */
	parallel?: () => number;
	/** The error when the list's pages repeat earlier ones (pageWalker.ts). */
	repeated: RepeatedPages;
	/** Further messages the API accepted (`messageId`, `sentAt`) that only show its zone (`apiOffset`). */
	anchors?: SentMessage[];
}

/**
 * The API's offset for times it writes without one, learned from the records read of messages
 * known to be accepted at a time n8n saw (`sentAt`): each one's record by its id, number and
 * text. Undefined when none is read, or they disagree (`learnedOffset`).
 */
function apiOffset(known: SentMessage[], records: IDataObject[]): number | undefined {
	const byId = new Map<string, IDataObject[]>();
	for (const record of records) {
		const id = record.id === undefined ? undefined : String(record.id);
		if (id !== undefined) byId.set(id, [...(byId.get(id) ?? []), record]);
	}
	const samples = known.flatMap(({ messageId, sentAt, recipient, text }) => {
		if (!isSetId(messageId) || sentAt === undefined) return [];
		const key = numberAndTextKey(recipient, text);
		return (byId.get(String(messageId)) ?? [])
			.filter((record) => numberAndTextKey(record.recipient, record.content) === key)
			.map((record) => ({ written: record.sentAt, at: sentAt }));
	});
	return learnedOffset(samples);
}

/** The messages of one number and text, and the earliest time any of them was sent. */
interface SameNumberAndText {
	messages: SentMessage[];
	since: number;
}

/** The wanted messages by number and text, in the order they first come. */
function byNumberAndText(wanted: SentMessage[]): Map<string, SameNumberAndText> {
	const groups = new Map<string, SameNumberAndText>();
	for (const message of wanted) {
		const key = numberAndTextKey(message.recipient, message.text);
		const group = groups.get(key);
		if (group) {
			group.messages.push(message);
			group.since = Math.min(group.since, message.since);
		} else groups.set(key, { messages: [message], since: message.since });
	}
	return groups;
}

/**
 * What a reading of the SMS list has taken so far: the records, each once, and the numbers and
 * texts that older records could still change (`unsettled`). Pages come newest first, so one is
 * settled once each of its messages with a message ID has the record with that ID and there are
 * as many records as messages (the others take the most recent ones left).
 */
class SentMessageSearch {
	readonly records: IDataObject[] = [];
	readonly unsettled: Set<string>;
	private readonly seen = new Set<string>();
	/** Per number and text: how many records were read, and their ids. */
	private readonly readByKey = new Map<string, { count: number; ids: Set<string> }>();

	/** `oldest`: the earliest `since` of every message; an older record ends the reading. */
	constructor(
		private readonly oldest: number,
		private readonly groups: Map<string, SameNumberAndText>,
	) {
		this.unsettled = new Set(groups.keys());
	}

	/** Adds a page's records; true when the page reached records older than every message. */
	add(data: JsonObject): boolean {
		const changed = new Set<string>();
		let older = false;
		for (const record of data.content as IDataObject[]) {
			// Newest first: a record older than every message ends the reading.
			if (!sentSince(record, this.oldest)) {
				older = true;
				continue;
			}
			const key = this.take(record);
			if (key !== undefined) changed.add(key);
		}
		for (const key of changed) this.settle(key);
		return older;
	}

	/** The numbers and texts still unsettled, by number. */
	unsettledByNumber(): Map<string, string[]> {
		const byNumber = new Map<string, string[]>();
		for (const key of this.unsettled) {
			const number = recipientOf(this.groups.get(key)!.messages[0].recipient);
			const ofNumber = byNumber.get(number);
			if (ofNumber) ofNumber.push(key);
			else byNumber.set(number, [key]);
		}
		return byNumber;
	}

	/**
	 * Keeps a record not taken before; gives its number and text when it may be the record of an
	 * unsettled message.
	 */
	private take(record: IDataObject): string | undefined {
		// A search finds records the window's first page already gave.
		const id = recordKey(record);
		if (this.seen.has(id)) return undefined;
		this.seen.add(id);
		this.records.push(record);
		const key = numberAndTextKey(record.recipient, record.content);
		// A record counts when it was sent since, or may have been (`unplacedSince`): an older one
		// cannot change what the message is given.
		const since = this.groups.get(key)?.since;
		const counts =
			since !== undefined && (provablySentSince(record, since) || unplacedSince(record, since));
		if (!this.unsettled.has(key) || !counts) return undefined;
		const entry = this.readByKey.get(key) ?? { count: 0, ids: new Set<string>() };
		entry.count++;
		if (record.id !== undefined) entry.ids.add(String(record.id));
		this.readByKey.set(key, entry);
		return key;
	}

	private settle(key: string): void {
		const { count, ids } = this.readByKey.get(key)!;
		const { messages } = this.groups.get(key)!;
		const settled =
			count >= messages.length &&
			messages.every(
				(message) => !isSetId(ownRecordId(message)) || ids.has(String(ownRecordId(message))),
			);
		if (settled) this.unsettled.delete(key);
	}
}

/**
 * Reads the window newest first, `parallel` pages at a time, until the records read settle every
 * message or reach older ones. After its first page, when the window has more pages than the
 * numbers still unsettled plus one, it stops there and gives those numbers to search instead.
 */
async function readWindow(
	reading: SentMessageSearch,
	pages: PageRead,
	{ parallel, repeated }: Pick<FindOptions, 'parallel' | 'repeated'>,
): Promise<Map<string, string[]>> {
	let search = new Map<string, string[]>();
	await walkPages(
		pages,
		(data, { page }) => {
			if (reading.add(data) || reading.unsettled.size === 0) return true;
			const count = page === 1 ? pageCount(data, MAX_PAGE_SIZE) : undefined;
			if (count === undefined) return false;
			const byNumber = reading.unsettledByNumber();
			if (byNumber.size >= count - 1) return false;
			search = byNumber;
			return true;
		},
		// Newest first: messages sent meanwhile land first, and are no message wanted here.
		{ size: MAX_PAGE_SIZE, parallel, repeated, arrivals: 'first' },
	);
	return search;
}

/** Searches one number's records (`query`), page by page, until its numbers and texts settle. */
async function searchNumber(
	reading: SentMessageSearch,
	pages: PageRead,
	keys: string[],
	repeated: FindOptions['repeated'],
): Promise<void> {
	await walkPages(
		pages,
		(data) => reading.add(data) || keys.every((key) => !reading.unsettled.has(key)),
		{ size: MAX_PAGE_SIZE, repeated, arrivals: 'first' },
	);
}

/**
 * Finds sent messages in the SMS list, newest first (`sort=sentAt,desc`, 100 per page), from the
 * earliest `since` of them on (`startDateInAnyZone`: robust to both readings of `start-date`
 * and to an API writing its local time in any zone), and matches them as `matchSentMessages`
 * does: per wanted message, in order, its SMS record as the list gave it, or none (`FoundMessage`).
 * A `sentAt` without an offset is placed by the API's offset where the records of messages it is
 * known to have accepted show it (`apiOffset`), and otherwise proves nothing that any zone from
 * UTC−12:00 to UTC+14:00 contradicts (sentWindow.ts).
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
	{ readPage, parallel, repeated, anchors = [] }: FindOptions,
): Promise<FoundMessage[]> {
	if (wanted.length === 0) return [];
	let oldest = Infinity;
	for (const { since } of wanted) oldest = Math.min(oldest, since);
	const window = { 'start-date': startDateInAnyZone(oldest), sort: 'sentAt,desc' };
	const reading = new SentMessageSearch(oldest, byNumberAndText(wanted));
	const pages =
		(query?: string): PageRead =>
		async ({ page, size }) =>
			await readPage({
				...window,
				...(query === undefined ? {} : { query }),
				page,
				records: size,
			});
	const search = await readWindow(reading, pages(), { parallel, repeated });
	for (const [number, keys] of search) {
		await searchNumber(reading, pages(number), keys, repeated);
	}
	const offset = apiOffset([...wanted, ...anchors], reading.records);
	return matchSentMessages(wanted, reading.records, offset);
}
