// Reads any list of the API page by page: the last page, read-ahead, arrivals, repeated pages.
import type { JsonObject } from 'n8n-workflow';

import { FollowingWalk } from './followingWalk';
import {
	count,
	firstPageEcho,
	isLastPage,
	pageCount,
	pageMetadata,
	recordKey,
	REPEATS,
	type AscendingArrivals,
	type PageAt,
	type PageRead,
	type PageTake,
	type WalkOptions,
	type WalkStrategy,
} from './pages';

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
//   for would otherwise keep a walk going for ever. A page past the first that holds just the
//   first page's records is never taken for the last (`firstPageEcho`): with page 1's totals,
//   such a cache would otherwise end the walk at page 1's records.
// - `arrivals`: where records that arrive while the list is read land in its order: 'first'
//   (newest first, as the SMS list by default and the contact list), or `{ last }` (oldest first),
//   with `last` reading the list in the reverse order. Each record that was listed when the
//   reading began is given to `take` once, in the list's order, and the reading ends, whatever the
//   rate of arrivals, with records listed late anywhere, with or without totals:
//   - 'first' (FollowingWalk): nothing is inferred from a count (a record listed late raises it
//     as an arrival would). Each page is asked to start just before the record given last, where
//     the pages so far put it, and the records after it are the next ones.
//   - `{ last }` (ascending): one request of `last` before the first page names the record that
//     was last then; pages are read by number, one at a time, each record once, up to that one. A walk for no
//     more `records` than the first page holds needs none: it is read page by page. With `order`
//     (records that can share a place, as messages their Sent At), that request is a page, which
//     names every record that shared the last place, and the walk ends once they all came out (or
//     at the first record of another place after one of them).
//   - none (an order arrivals can land anywhere in, as by status): page by page, each record once
//     (one that a record arriving above it moved onto the next page is not given again); records
//     that arrive below the pages read come out too.

/** The walk page by page: every page at `size` (or as `next` says), each record key once. */
function pageByPage(take: PageTake, { next, repeated }: WalkOptions): WalkStrategy {
	// Records of the list up to the end of the pages taken: by count for pages of one size (a
	// server may serve fewer than asked), by position for pages of several sizes.
	let seen = 0;
	const keys = new Set<string>();
	let repeats = 0;
	const echoes = firstPageEcho();
	let firstTotal: number | undefined;
	return {
		taken(data, at) {
			const content = data.content as unknown[];
			const total = count(pageMetadata(data).totalElements);
			if (at.page === 1) firstTotal ??= total;
			const before = keys.size;
			// Pages of one size give each record once: one that a record arriving above it moved
			// onto the next page is not given again. Pages of several sizes (`next`) overlap on
			// purpose, and are given whole.
			const given = next ? content : content.filter((record) => !keys.has(recordKey(record)));
			for (const record of content) keys.add(recordKey(record));
			repeats = content.length > 0 && keys.size === before ? repeats + 1 : 0;
			// Pages that repeat while the count grew, or a count that grew by as many records as the
			// pages read hold: records arrive faster than pages of this size can follow (the end
			// moves away as fast as the reading goes).
			const grown = total === undefined || firstTotal === undefined ? 0 : total - firstTotal;
			const outpaced = !next && at.page > REPEATS && grown >= (at.page - 1) * at.size;
			if (repeats >= REPEATS || outpaced) throw repeated(at, grown > 0 ? at.size : undefined);
			seen = next ? (at.page - 1) * at.size + content.length : seen + content.length;
			const last = !echoes(content, at.page > 1) && isLastPage(data, at, seen);
			return take({ ...data, content: given } as JsonObject, { ...at, last }) || last;
		},
		following: next ?? (({ page, size }) => ({ page: page + 1, size })),
		moved: () => false,
	};
}

/** The record that was last when the reading began (none: the list was empty), and its place. */
interface LastAtStart {
	lastKey?: string;
	/**
	 * Where records share places (`order`): the last record's place, and the records that shared
	 * it at the start (all of them when `complete`: the reverse order's first page showed the place
	 * before theirs, or the list's start).
	 */
	ties?: { place: number; keys: Set<string>; complete: boolean };
}

/**
 * Whether `record`, next in the list, lies past the last at the start, where records share places
 * (`ties`): once a record of the last place was seen, any record of another place or none (an
 * arrival without a time); once every record that shared it was taken (`complete`), any record.
 */
function pastTies(
	ties: NonNullable<LastAtStart['ties']>,
	order: (record: unknown) => number | undefined,
	taken: Set<string>,
): (record: unknown) => boolean {
	let reached = false;
	return (record) => {
		if (reached && order(record) !== ties.place) return true;
		if (ties.complete && [...ties.keys].every((key) => taken.has(key))) return true;
		reached ||= ties.keys.has(recordKey(record));
		return false;
	};
}

/**
 * The walk of a list whose new records land last (`arrivals: { last }`, oldest first): page by
 * page, one at a time, each record once (one listed late moves those after it down a place, so a
 * page may repeat the one before's last), up to the record that was last when the reading began,
 * or, where records share places (`ties`), up to the last of those that shared its place; or to
 * the list's last page.
 */
function ascending(
	{ lastKey, ties }: LastAtStart,
	order: ((record: unknown) => number | undefined) | undefined,
	take: PageTake,
	options: WalkOptions,
): WalkStrategy {
	const keys = new Set<string>();
	let seen = 0;
	let repeats = 0;
	const byPlace = order !== undefined && ties !== undefined;
	const pastLast = byPlace ? pastTies(ties, order, keys) : () => false;
	const echoes = firstPageEcho();
	return {
		taken(data, at) {
			const content = data.content as unknown[];
			const echo = echoes(content, at.page > 1);
			const fresh: unknown[] = [];
			let reachedLast = lastKey === undefined;
			for (const record of reachedLast ? [] : content) {
				if (pastLast(record)) {
					reachedLast = true;
					break;
				}
				const key = recordKey(record);
				if (keys.has(key)) continue;
				keys.add(key);
				fresh.push(record);
				if (key === lastKey && !byPlace) {
					reachedLast = true;
					break;
				}
			}
			repeats = content.length > 0 && fresh.length === 0 ? repeats + 1 : 0;
			if (repeats >= REPEATS) throw options.repeated(at);
			seen += content.length;
			const last = reachedLast || (!echo && isLastPage(data, at, seen));
			return take({ ...data, content: fresh } as JsonObject, { ...at, last }) || last;
		},
		following: ({ page, size }) => ({ page: page + 1, size }),
		moved: () => false,
	};
}

/**
 * How a walk reads: following the list where new records land first (the default orders),
 * ascending up to the last record at the start where they land last, else page by page.
 */
function strategyOf(
	first: JsonObject,
	take: PageTake,
	options: WalkOptions,
	atStart: LastAtStart | undefined,
): WalkStrategy {
	const { arrivals, next } = options;
	if (arrivals === 'first' && !next) {
		return new FollowingWalk(take, options, count(pageMetadata(first).totalElements));
	}
	if (atStart && typeof arrivals === 'object' && !next) {
		return ascending(atStart, arrivals.order, take, options);
	}
	return pageByPage(take, options);
}

/**
 * The first record of a list read in the reverse order: the last at the start; where records share
 * places (`order`), the first page of `size` in that order, which names those that shared its place.
 */
async function lastAtStart({ last, order }: AscendingArrivals, size: number): Promise<LastAtStart> {
	const data = await last({ page: 1, size: order ? size : 1 });
	const content = data.content as unknown[];
	if (content.length === 0) return {};
	const lastKey = recordKey(content[0]);
	const place = order?.(content[0]);
	if (order === undefined || place === undefined) return { lastKey };
	const shared = content.findIndex((record) => order(record) !== place);
	const group = shared < 0 ? content : content.slice(0, shared);
	const complete = shared >= 0 || isLastPage(data, { page: 1, size }, content.length);
	return { lastKey, ties: { place, keys: new Set(group.map(recordKey)), complete } };
}

/** A page read ahead of its turn: its data or its error, kept until its turn comes. */
type Settled = { data: JsonObject } | { error: unknown };

/**
 * Reads pages `from` to `to`, `parallel()` at a time, and has `strategy` take them in order; true
 * when one ended the walk. Once the list has moved, it asks no further page: the walk goes on
 * from the next record it needs. No page is left running behind it.
 */
async function readAhead(
	read: PageRead,
	strategy: WalkStrategy,
	{ from, to, size, parallel }: { from: number; to: number; size: number; parallel: () => number },
): Promise<boolean> {
	const ahead = new Map<number, Promise<Settled>>();
	let asked = from;
	try {
		for (let page = from; page <= to; page++) {
			if (strategy.moved() && !ahead.has(page)) return false;
			for (; asked <= to && ahead.size < parallel() && !strategy.moved(); asked++) {
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
			if (strategy.taken(settled.data, { page, size })) return true;
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
	const { arrivals } = options;
	// Read before the first page: every record after it in this order arrived during the reading.
	// Records that one page holds need none: arrivals land past them.
	const atStart =
		typeof arrivals === 'object' && records > size ? await lastAtStart(arrivals, size) : undefined;
	let at: PageAt = { page: 1, size };
	const first = await read(at);
	const strategy = strategyOf(first, take, options, atStart);
	if (strategy.taken(first, at)) return;
	const served = (first.content as unknown[]).length;
	// Oldest first, one page at a time: with pages read at once, a record listed late between
	// their answers could push a record of one into another already answered.
	const ahead = next === undefined && atStart === undefined && parallel() > 1;
	const counted = ahead ? pageCount(first, served) : undefined;
	const planned =
		counted === undefined ? undefined : Math.min(counted, Math.ceil(records / Math.max(1, served)));
	if (planned !== undefined && planned >= 2) {
		if (await readAhead(read, strategy, { from: 2, to: planned, size, parallel })) return;
		at = { page: planned, size };
	}
	for (;;) {
		at = strategy.following(at);
		if (strategy.taken(await read(at), at)) return;
	}
}
