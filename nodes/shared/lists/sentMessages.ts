// Finding messages sent earlier in the SMS list, by their recipient and text.
//
// The SMS list (GET /sms) is the API's only record of delivery (spec section 6). The spec has no
// request for one message and does not say that an outgoing record's `id` (Send's answer) is the
// SMS list's `id`, so a message is found by its recipient and its text (as a service may store
// it), and its id only chooses between records that both match.

import type { IDataObject, JsonObject } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from './list';
import {
	isSetId,
	matchSentMessages,
	numberAndTextKey,
	ownRecordId,
	type FoundMessage,
	type ReadNumbers,
	type SentMessage,
} from './matching';
import { walkPages, type ListOrder } from './pageWalker';
import { pageCount, recordKey, type PageRead, type RepeatedPages } from './pages';
import { CLOCK_MARGIN_MS, ListTimes, seemingZone, startDateInAnyZone } from './sentWindow';

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
	/** Further messages the API accepted (`messageId`, `sentAt`) that only show its zone. */
	anchors?: SentMessage[];
	/** The credential's API Time Zone: where times without an offset are read, unless learned. */
	zone: string;
}

/**
 * The messages the API is known to have accepted at a time n8n saw (`sentAt`), by their id: their
 * records show the zone the API writes its times in.
 */
function knownById(
	known: SentMessage[],
	read: ReadNumbers,
): Map<string, Array<{ key: string; at: number }>> {
	const byId = new Map<string, Array<{ key: string; at: number }>>();
	for (const { messageId, sentAt, recipient, text } of known) {
		if (!isSetId(messageId) || sentAt === undefined) continue;
		const id = String(messageId);
		const key = numberAndTextKey(recipient, text, read);
		byId.set(id, [...(byId.get(id) ?? []), { key, at: sentAt }]);
	}
	return byId;
}

/** The messages of one number and text, and the earliest time any of them was sent. */
interface SameNumberAndText {
	messages: SentMessage[];
	since: number;
}

/** The wanted messages by number and text, in the order they first come. */
function byNumberAndText(wanted: SentMessage[], read: ReadNumbers): Map<string, SameNumberAndText> {
	const groups = new Map<string, SameNumberAndText>();
	for (const message of wanted) {
		const key = numberAndTextKey(message.recipient, message.text, read);
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

	/**
	 * `oldest`: the earliest `since` of every message; an older record ends the reading. `known`:
	 * messages the API accepted at a time n8n saw, by id, whose records teach `times` its zone.
	 */
	constructor(
		private readonly oldest: number,
		private readonly groups: Map<string, SameNumberAndText>,
		readonly times: ListTimes,
		private readonly known: Map<string, Array<{ key: string; at: number }>>,
		readonly read: ReadNumbers,
	) {
		this.unsettled = new Set(groups.keys());
	}

	/** Adds a page's records; true when the page reached records older than every message. */
	add(data: JsonObject): boolean {
		const content = data.content as IDataObject[];
		for (const record of content) {
			const key = numberAndTextKey(record.recipient, record.content, this.read);
			for (const sample of this.known.get(String(record.id)) ?? []) {
				if (sample.key === key) this.times.learn(record.sentAt, sample.at);
			}
		}
		const changed = new Set<string>();
		let older = false;
		for (const record of content) {
			const time = this.times.of(record.sentAt);
			// Newest first: a record older than every message ends the reading.
			if (time < this.oldest) older = true;
			const key = this.take(record, time);
			if (key !== undefined) changed.add(key);
		}
		for (const key of changed) this.settle(key);
		return older;
	}

	/** The numbers and texts still unsettled, by number. */
	unsettledByNumber(): Map<string, string[]> {
		const byNumber = new Map<string, string[]>();
		for (const key of this.unsettled) {
			const [number] = JSON.parse(key) as [string];
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
	private take(record: IDataObject, time: number): string | undefined {
		// A search finds records the window's first page already gave.
		const id = recordKey(record);
		if (this.seen.has(id)) return undefined;
		this.seen.add(id);
		this.records.push(record);
		const key = numberAndTextKey(record.recipient, record.content, this.read);
		// A record counts when it was sent since: an older one cannot change what a message is given.
		const since = this.groups.get(key)?.since;
		if (!this.unsettled.has(key) || since === undefined || !(time >= since)) return undefined;
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

/** The SMS list by Sent At, newest first: messages sent meanwhile land first. */
const bySentAt = (times: ListTimes): ListOrder => ({
	arrivals: 'first',
	byId: false,
	orderOf: (record) => {
		const time = times.of((record as IDataObject | null)?.sentAt);
		return Number.isNaN(time) ? undefined : time;
	},
});

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
		{ size: MAX_PAGE_SIZE, parallel, repeated, order: bySentAt(reading.times) },
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
		{ size: MAX_PAGE_SIZE, repeated, order: bySentAt(reading.times) },
	);
}

/**
 * Finds sent messages in the SMS list, newest first (`sort=sentAt,desc`, 100 per page), from the
 * earliest `since` of them on (`startDateInAnyZone`: robust to both readings of `start-date`
 * and to an API writing its local time in any zone), and matches them as `matchSentMessages`
 * does: per wanted message, in order, its SMS record as the list gave it, or none (`FoundMessage`).
 * A `sentAt` without an offset is read in the API's zone: the one the records of messages it is
 * known to have accepted show, else `zone` (the credential's API Time Zone). Where nothing showed
 * the zone and a record read in `zone` lies after now, the setting is contradicted: no message is
 * given a record (each is given that one as `future`); where nothing showed it and a message's
 * `older` record lies a whole or half number of hours from its `sentAt`, the zone that record seems
 * written in is named (`seems`), and nothing is taken for the message by it.
 *
 * It reads the window's first page, which holds the latest messages (often all it needs). Then,
 * when the window has more pages than the numbers still to find plus one, it searches each such
 * number (`query`), page by page; otherwise it reads the rest of the window, `parallel` pages at
 * a time. Either stops as soon as the records read settle every message (each has its record, by
 * its `messageId` when it has one), or a page reaches records older than every message. So, with
 * the API's page counts, it makes at most min(messages, window pages) + 1 list requests, as long
 * as no number it searches has more than 100 messages in the window that have to be paged through
 * to settle its messages, and the list does not move (pages then overlap: pageWalker.ts). Linear
 * in the messages and the records read.
 */
export async function findSentMessages(
	wanted: SentMessage[],
	{ readPage, parallel, repeated, anchors = [], zone }: FindOptions,
): Promise<FoundMessage[]> {
	if (wanted.length === 0) return [];
	let oldest = Infinity;
	for (const { since } of wanted) oldest = Math.min(oldest, since);
	const window = { 'start-date': startDateInAnyZone(oldest), sort: 'sentAt,desc' };
	const times = new ListTimes(zone);
	const read: ReadNumbers = new Map();
	const known = knownById([...wanted, ...anchors], read);
	const groups = byNumberAndText(wanted, read);
	const reading = new SentMessageSearch(oldest, groups, times, known, read);
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
	const time = (record: IDataObject) => times.of(record.sentAt);
	const now = Date.now() + CLOCK_MARGIN_MS;
	const future = times.learned ? undefined : reading.records.find((record) => time(record) > now);
	if (future) return wanted.map(() => ({ future, zone }));
	const found = matchSentMessages(wanted, reading.records, time, zone, read);
	if (times.learned) return found;
	return found.map((message, k) => {
		const { sentAt } = wanted[k];
		const seems = message.older && sentAt !== undefined && seemingZone(message.older, sentAt);
		return seems ? { ...message, seems } : message;
	});
}
