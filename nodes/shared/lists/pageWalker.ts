// Reads any list of the API page by page: the last page, read-ahead, snapshots, repeated pages.
import type { JsonObject } from 'n8n-workflow';

// The one page walker: every reading of a list (Get Many of SMS and contacts, the SMS list lookups
// of Get Delivery Status and Send, the trigger's polls) goes page by page through `walkPages`.
//
//   walkPages(read, take, { size, next, parallel, records, repeated, arrivals }) → Promise<void>
//
// - `read({ page, size })` reads one page and gives the answer's `data` (its `content` a list).
// - `take(data, { page, size, last })` is given every page in order; it returns true when no later
//   page is wanted. `last` is the one rule for the last page (`isLastPage`): the API says `last`,
//   the page number reaches `totalPages`, the records reach `totalElements`, or the page is empty,
//   or shorter than asked (unless the API says it is not the last). The walk ends at the first
//   page that is last or taken as enough, so a server that never says `last` cannot keep it going.
// - Pages are page 1, 2, 3… at `size`, or what `next(previous)` says (pages of other sizes, as the
//   trigger's overlapping pages).
// - `parallel()` (default 1; a limiter's window): when above 1, and the first page gives
//   `totalPages` or `totalElements`, the pages after it up to the last those totals (and
//   `records`, the most records wanted) call for are read that many at a time, and still taken in
//   order; no page is ever left running behind the walk, and no more than `parallel() - 1` are
//   asked past the one that ends it. Read-ahead is for pages of one size (without `next`).
// - `repeated(at)`: the error the walk ends with when REPEATS pages in a row hold only records it
//   has already taken (by id): an API, or a cache in front of it, that ignores the page asked
//   for would otherwise keep a walk going for ever.
// - `arrivals` ('first' or 'last'): where records that arrive while the list is read land in its
//   order ('first': newest first, as the SMS list by default and the contact list). With it, and a
//   first page that gives `totalElements`, a reading is a snapshot of the list when it began: each
//   record that existed then is given to `take` once, in the list's order, and records that arrive
//   meanwhile are left out. Each page is placed by its own `totalElements` (on a 'first' list the
//   records read move down a place for each arrival), the next page is the one that holds the
//   next record not yet given, allowing for as many arrivals as the last request saw, and the
//   reading ends when every record of the snapshot was given, whatever the rate of arrivals. Pages
//   with nothing new count towards `repeated` only when the list did not grow.

interface PageMetadata {
	last?: unknown;
	totalPages?: unknown;
	totalElements?: unknown;
}

/** The SMS list puts page metadata under `pagination`, the contact list beside `content`. */
function pageMetadata(data: JsonObject): PageMetadata {
	const nested = data.pagination;
	return nested && typeof nested === 'object' && !Array.isArray(nested)
		? (nested as PageMetadata)
		: (data as PageMetadata);
}

/** A page of a list: its number, and the page size it is asked at. */
export interface PageAt {
	page: number;
	size: number;
}

export type PageRead = (at: PageAt) => Promise<JsonObject>;

/** Takes one page, in order; true when no later page is wanted. */
type PageTake = (data: JsonObject, at: PageAt & { last: boolean }) => boolean;

export interface WalkOptions {
	/** The size of the first page (and of every page, without `next`). */
	size: number;
	/** The page after `previous`; default: the next number, at the same size. */
	next?: (previous: PageAt) => PageAt;
	/** Pages in flight at once, once the first page says how many there are (default 1). */
	parallel?: () => number;
	/** The most records wanted: no page past the one that holds them is read ahead. */
	records?: number;
	/** The error when pages repeat what the walk has taken (see the top of this file). */
	repeated: (at: PageAt) => Error;
	/** Where records that arrive during the reading land: a snapshot reading (see the top). */
	arrivals?: 'first' | 'last';
}

/** Pages in a row with no record the walk had not taken that end it: more than any overlap. */
const REPEATS = 3;

/** What a record of a list is known by: its id, or the record itself when it has none. */
export function recordKey(record: unknown): string {
	const id = record !== null && typeof record === 'object' ? (record as JsonObject).id : undefined;
	return id === undefined ? JSON.stringify(record) : String(id);
}

/** A count the API gave, if it gave one. */
const count = (value: unknown) =>
	typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/**
 * The one rule for the last page of a list. `reached`: how many records of the list lie up to
 * the end of this page.
 */
export function isLastPage(data: JsonObject, { page, size }: PageAt, reached: number): boolean {
	const content = data.content as unknown[];
	const { last, totalPages, totalElements } = pageMetadata(data);
	const pages = count(totalPages);
	const elements = count(totalElements);
	return (
		content.length === 0 ||
		last === true ||
		(pages !== undefined && page >= pages) ||
		(elements !== undefined && reached >= elements) ||
		(content.length < size && last !== false)
	);
}

/**
 * How many pages the list has, by a page's `totalPages` or `totalElements`, in pages of `served`
 * records (what the API serves, which may be fewer than asked); undefined when it gave neither.
 */
export function pageCount(data: JsonObject, served: number): number | undefined {
	const { totalPages, totalElements } = pageMetadata(data);
	const pages = count(totalPages);
	const elements = count(totalElements);
	if (pages === undefined && elements === undefined) return undefined;
	return Math.min(
		pages ?? Infinity,
		elements === undefined ? Infinity : Math.ceil(elements / Math.max(1, served)),
	);
}

/**
 * How a walk takes each page (true when it ends the walk), which page it reads next, and whether
 * the list has moved since the reading began (pages read ahead by number would miss it).
 */
interface Reading {
	taken(data: JsonObject, at: PageAt): boolean;
	following(at: PageAt): PageAt;
	moved(): boolean;
}

/** The walk page by page: every page at `size` (or as `next` says), each record key once. */
function pageByPage(take: PageTake, { next, repeated }: WalkOptions): Reading {
	// Records of the list up to the end of the pages taken: by count for pages of one size (a
	// server may serve fewer than asked), by position for pages of several sizes.
	let seen = 0;
	const keys = new Set<string>();
	let repeats = 0;
	return {
		taken(data, at) {
			const content = data.content as unknown[];
			const before = keys.size;
			for (const record of content) keys.add(recordKey(record));
			repeats = content.length > 0 && keys.size === before ? repeats + 1 : 0;
			if (repeats >= REPEATS) throw repeated(at);
			seen = next ? (at.page - 1) * at.size + content.length : seen + content.length;
			const last = isLastPage(data, at, seen);
			return take(data, { ...at, last }) || last;
		},
		following: next ?? (({ page, size }) => ({ page: page + 1, size })),
		moved: () => false,
	};
}

/**
 * Where the records not given yet begin on a page of a snapshot reading: after the last record it
 * has given already (records only move down on a 'first' list, and arrivals on a 'last' list come
 * after the snapshot's records), or, on a page with none of them, where the page's place in the
 * snapshot (`start`, from the totals) puts the next record. Undefined when the page lies past it.
 */
function firstNewRecordAt(known: boolean[], start: number, given: number): number | undefined {
	const anchor = known.lastIndexOf(true);
	if (anchor >= 0) return anchor + 1;
	return start <= given ? given - start : undefined;
}

/**
 * The snapshot reading (`arrivals`, see the top of this file). `total`: the records of the list
 * when it began; `span`: how many records a page holds, as the server serves them.
 */
function snapshot(total: number, span: number, take: PageTake, options: WalkOptions): Reading {
	let given = 0;
	let growth = 0;
	let rate = 0;
	let lastTotal = total;
	let repeats = 0;
	const keys = new Set<string>();
	return {
		taken(data, at) {
			const now = count(pageMetadata(data).totalElements) ?? lastTotal;
			const grew = now !== lastTotal;
			lastTotal = now;
			if (options.arrivals === 'first') {
				rate = Math.max(0, now - total - growth);
				growth = Math.max(0, now - total);
			}
			const content = data.content as unknown[];
			// The page's place in the snapshot: on a 'first' list, arrivals stand above it.
			const start = (at.page - 1) * span - growth;
			const from = firstNewRecordAt(
				content.map((record) => keys.has(recordKey(record))),
				start,
				given,
			);
			const newRecords: unknown[] = [];
			for (const record of from === undefined ? [] : content.slice(from)) {
				const key = recordKey(record);
				if (given >= total || keys.has(key)) continue;
				keys.add(key);
				newRecords.push(record);
				given++;
			}
			repeats = newRecords.length === 0 && content.length > 0 && !grew ? repeats + 1 : 0;
			if (repeats >= REPEATS) throw options.repeated(at);
			const reached = (at.page - 1) * span + content.length;
			const last = given >= total || (from !== undefined && isLastPage(data, at, reached));
			return take({ ...data, content: newRecords } as JsonObject, { ...at, last }) || last;
		},
		// The page that holds the next record, allowing for as many arrivals as the last request saw.
		following: ({ size }) => ({ page: Math.floor((given + growth + rate) / span) + 1, size }),
		moved: () => lastTotal !== total,
	};
}

/** How a walk reads, from its first page: a snapshot where it can be one, else page by page. */
function readingOf(first: JsonObject, take: PageTake, options: WalkOptions): Reading {
	const total = count(pageMetadata(first).totalElements);
	if (options.arrivals === undefined || options.next || total === undefined) {
		return pageByPage(take, options);
	}
	const served = (first.content as unknown[]).length;
	const short = served > 0 && served < options.size && total > served;
	return snapshot(total, short ? served : options.size, take, options);
}

/** A page read ahead of its turn: its data or its error, kept until its turn comes. */
type Settled = { data: JsonObject } | { error: unknown };

/**
 * Reads pages `from` to `to`, `parallel()` at a time, and has `reading` take them in order; true
 * when one ended the walk. Once the list has moved, it asks no further page: the walk goes on
 * from the next record it needs. No page is left running behind it.
 */
async function readAhead(
	read: PageRead,
	reading: Reading,
	{ from, to, size, parallel }: { from: number; to: number; size: number; parallel: () => number },
): Promise<boolean> {
	const ahead = new Map<number, Promise<Settled>>();
	let asked = from;
	try {
		for (let page = from; page <= to; page++) {
			if (reading.moved() && !ahead.has(page)) return false;
			for (; asked <= to && ahead.size < parallel() && !reading.moved(); asked++) {
				ahead.set(
					asked,
					read({ page: asked, size }).then(
						(data) => ({ data }),
						(error: unknown) => ({ error }),
					),
				);
			}
			const settled = await ahead.get(page)!;
			ahead.delete(page);
			if ('error' in settled) throw settled.error;
			if (reading.taken(settled.data, { page, size })) return true;
		}
		return false;
	} finally {
		// Pages read past the end are not used, but nothing is left running behind the walk.
		await Promise.all(ahead.values());
	}
}

/** The one page walker (see the top of this file). */
export async function walkPages(
	read: PageRead,
	take: PageTake,
	options: WalkOptions,
): Promise<void> {
	const { size, next, parallel = () => 1, records = Infinity } = options;
	let at: PageAt = { page: 1, size };
	const first = await read(at);
	const reading = readingOf(first, take, options);
	if (reading.taken(first, at)) return;
	const served = (first.content as unknown[]).length;
	const counted = next === undefined && parallel() > 1 ? pageCount(first, served) : undefined;
	const planned =
		counted === undefined ? undefined : Math.min(counted, Math.ceil(records / Math.max(1, served)));
	if (planned !== undefined && planned >= 2) {
		if (await readAhead(read, reading, { from: 2, to: planned, size, parallel })) return;
		at = { page: planned, size };
	}
	for (;;) {
		at = reading.following(at);
		if (reading.taken(await read(at), at)) return;
	}
}
