// The one reader of the API's lists: Get Many of SMS and contacts, and the SMS list lookups of Get
// Delivery Status and Send. docs/operations.md ("Pagination") tells its states and guarantee.
import type { JsonObject } from 'n8n-workflow';

import { Place, type ReadingEnd } from './place';
import {
	count,
	firstPageEcho,
	isLastPage,
	pageCount,
	pageMetadata,
	recordKey,
	REPEATS,
	type PageAt,
	type PageRead,
	type PageTake,
	type RepeatedPages,
} from './pages';

//   walkPages(read, take, { size, order, parallel, records, repeated }) → Promise<void>
//
// `read({ page, size })` reads a page; `take(data, { page, size, last })` is given each page's
// records that are new, in the list's order, and returns true when no later page is wanted.
//
// An ordered list (`order.arrivals` 'first' or 'last') is read by place (place.ts): after the
// first page, a page is taken only where it shows its place, by a record already given or, on a
// list sorted by id, by its first id following the last one given. So every record listed from
// the start to the end of the reading is given once, in order, however records arrive, are listed
// late below the place, or leave. States: `first page` (read alone), `following` (pages planned
// from the place, read `parallel()` at a time while the list is not seen to move), `searching`
// (a page did not show its place: pages are asked back from where it was expected, or on past
// records that arrived above it), `done` (a page that showed its place was the last, or the
// records wanted were given). A list by status (`anywhere`), whose order changes as messages
// change status, is read page by page, each record once.

/** Records that arrive while a list is read land first: newest first, by id or by a time. */
interface NewestFirst {
	arrivals: 'first';
	byId: boolean;
	/** A record's place in the order, newest highest: its id, or its time. */
	orderOf: (record: unknown) => number | undefined;
}

/** Records that arrive land last: oldest first, with `last` reading the reverse order. */
interface OldestFirst {
	arrivals: 'last';
	byId: boolean;
	last: PageRead;
	/**
	 * A record's place where records share one (Sent At: a bulk send's messages share theirs, and
	 * an API may list them in the same order both ways); undefined when it gives none.
	 */
	order?: (record: unknown) => number | undefined;
}

export type ListOrder = NewestFirst | OldestFirst | { arrivals: 'anywhere' };

interface WalkOptions {
	/** The largest page asked for (the Limit when smaller than the API's 100). */
	size: number;
	order: ListOrder;
	/** Pages in flight at once while the list stands still (default 1; a limiter's window). */
	parallel?: () => number;
	/** The most records wanted. */
	records?: number;
	/** The error when the reading cannot go on (pages.ts). */
	repeated: RepeatedPages;
}

/** A record's id as a number (its place in a list by id), when it has one. */
export const idOrder = (record: unknown): number | undefined => {
	const id = Number((record as JsonObject | null)?.id);
	return Number.isFinite(id) ? id : undefined;
};

/**
 * Oldest first: the first page of the list in the reverse order names the record that was last
 * when the reading began (none: the list was empty), and, where records share places (`order`),
 * every record that shared its place then (all of them when that page shows the place before
 * theirs or the list's start); the reading ends once they were given.
 */
async function endOfReading({ last, order }: OldestFirst, size: number) {
	const data = await last({ page: 1, size: order ? size : 1 });
	const content = data.content as unknown[];
	const total = count(pageMetadata(data).totalElements);
	if (content.length === 0) return { total, end: { past: () => true, last: () => true } };
	const lastKey = recordKey(content[0]);
	const place = order?.(content[0]);
	if (order === undefined || place === undefined) {
		return { total, end: { past: () => false, last: (r: unknown) => recordKey(r) === lastKey } };
	}
	const shared = content.findIndex((record) => order(record) !== place);
	const keys = new Set((shared < 0 ? content : content.slice(0, shared)).map(recordKey));
	const complete = shared >= 0 || isLastPage(data, { page: 1, size }, content.length);
	const taken = new Set<string>();
	let reached = false;
	const end: ReadingEnd = {
		// Past the last place once a record of it was given and one of another place (or none:
		// an arrival without a time) follows, or once all that shared it were given.
		past: (record) =>
			(reached && order(record) !== place) ||
			(complete && [...keys].every((key) => taken.has(key))),
		last: (record) => {
			const key = recordKey(record);
			taken.add(key);
			reached ||= keys.has(key);
			return false;
		},
	};
	return { total, end };
}

/** A page read ahead of its turn: its data or its error, kept until its turn comes. */
type Settled = { data: JsonObject } | { error: unknown };

/**
 * Reads the `planned` pages `parallel()` at a time, each given to `taken` in order; true when one
 * ended the reading. Once the list is seen to move, no further page is asked (those in flight are
 * still taken, each where it shows its place). No page is left running behind the reading.
 */
async function readAhead(
	read: PageRead,
	planned: Iterator<PageAt>,
	taken: (data: JsonObject, at: PageAt) => boolean,
	{ parallel, place }: { parallel: () => number; place: Place },
): Promise<boolean> {
	const ahead: Array<{ at: PageAt; settled: Promise<Settled> }> = [];
	try {
		for (;;) {
			while (ahead.length < parallel() && !place.moved) {
				const next = planned.next();
				if (next.done) break;
				const settled = read(next.value).then(
					(data): Settled => ({ data }),
					(error: unknown): Settled => ({ error }),
				);
				ahead.push({ at: next.value, settled });
			}
			const turn = ahead.shift();
			if (turn === undefined) return false;
			const settled = await turn.settled;
			if ('error' in settled) throw settled.error;
			if (taken(settled.data, turn.at)) return true;
		}
	} finally {
		await Promise.all(ahead.map(({ settled }) => settled));
	}
}

/** An ordered list, read by place (see the top of this file). */
async function byPlace(
	read: PageRead,
	take: PageTake,
	options: WalkOptions,
	order: NewestFirst | OldestFirst,
): Promise<void> {
	const { size, parallel = () => 1, records = Infinity, repeated } = options;
	const ending =
		order.arrivals === 'last' && records > size ? await endOfReading(order, size) : undefined;
	const place = new Place({
		size,
		records,
		repeated,
		newestFirst: order.arrivals === 'first',
		byId: order.byId,
		orderOf: order.arrivals === 'first' ? order.orderOf : idOrder,
		end: ending?.end,
	});
	const taken = (data: JsonObject, at: PageAt) => {
		const { records: given, last } = place.take(data, at);
		return take({ ...data, content: given } as JsonObject, { ...at, last }) || last;
	};
	const first = await read({ page: 1, size });
	if (taken(first, { page: 1, size })) return;
	const served = (first.content as unknown[]).length;
	const total = ending?.total ?? count(pageMetadata(first).totalElements);
	const counted = total ?? (pageCount(first, served) ?? 0) * served;
	if (parallel() > 1 && counted > 0 && !place.moved) {
		if (await readAhead(read, place.plan(counted), taken, { parallel, place })) return;
	}
	for (;;) {
		const at = place.next();
		if (taken(await read(at), at)) return;
	}
}

/**
 * A list whose order changes while it is read (by status): page by page, each record once (one
 * that a record arriving above it moved onto the next page is not given again). Pages that repeat
 * what was given, or a count that grew by as many records as the pages read hold, end the reading.
 */
async function byPage(read: PageRead, take: PageTake, options: WalkOptions): Promise<void> {
	const { size, repeated } = options;
	const keys = new Set<string>();
	const echoes = firstPageEcho();
	let [repeats, seen] = [0, 0];
	let firstTotal: number | undefined;
	for (let page = 1; ; page++) {
		const at = { page, size };
		const data = await read(at);
		const content = data.content as unknown[];
		const total = count(pageMetadata(data).totalElements);
		if (page === 1) firstTotal = total;
		const given = content.filter((record) => !keys.has(recordKey(record)));
		for (const record of given) keys.add(recordKey(record));
		repeats = content.length > 0 && given.length === 0 ? repeats + 1 : 0;
		const grown = total === undefined || firstTotal === undefined ? 0 : total - firstTotal;
		const outpaced = page > REPEATS && grown >= (page - 1) * size;
		if (repeats >= REPEATS || outpaced) {
			throw repeated(at, grown > 0 ? { outpacedBy: size } : undefined);
		}
		seen += content.length;
		const last = !echoes(content, page > 1) && isLastPage(data, at, seen);
		if (take({ ...data, content: given } as JsonObject, { ...at, last }) || last) return;
	}
}

/** The one reader of a list (see the top of this file). */
export async function walkPages(
	read: PageRead,
	take: PageTake,
	options: WalkOptions,
): Promise<void> {
	const { order } = options;
	if (order.arrivals === 'anywhere') await byPage(read, take, options);
	else await byPlace(read, take, options, order);
}
