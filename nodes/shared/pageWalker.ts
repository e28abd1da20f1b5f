import type { JsonObject } from 'n8n-workflow';

// The one page walker: every reading of a list (Get Many of SMS and contacts, the SMS list lookups
// of Get Delivery Status and Send, the trigger's polls) goes page by page through `walkPages`.
//
//   walkPages(read, take, { size, next, parallel, records }) → Promise<void>
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
export type PageTake = (data: JsonObject, at: PageAt & { last: boolean }) => boolean;

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
}

/** Pages in a row with no record the walk had not taken that end it: more than any overlap. */
const REPEATS = 3;

/** What a record is known by in a walk: its id, or the record itself when it has none. */
function recordKey(record: unknown): string {
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
function isLastPage(data: JsonObject, { page, size }: PageAt, reached: number): boolean {
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

/** A page read ahead of its turn: its data or its error, kept until its turn comes. */
type Settled = { data: JsonObject } | { error: unknown };

/** The one page walker (see the top of this file). */
export async function walkPages(
	read: PageRead,
	take: PageTake,
	{ size, next, parallel = () => 1, records = Infinity, repeated }: WalkOptions,
): Promise<void> {
	const following =
		next ?? (({ page, size: pageSize }: PageAt) => ({ page: page + 1, size: pageSize }));
	// Records of the list up to the end of the pages taken: by count for pages of one size (a
	// server may serve fewer than asked), by position for pages of several sizes.
	let seen = 0;
	const keys = new Set<string>();
	let repeats = 0;
	/** Takes a page: true when the walk ends with it. */
	const taken = (data: JsonObject, at: PageAt): boolean => {
		const content = data.content as unknown[];
		const before = keys.size;
		for (const record of content) keys.add(recordKey(record));
		repeats = content.length > 0 && keys.size === before ? repeats + 1 : 0;
		if (repeats >= REPEATS) throw repeated(at);
		const served = content.length;
		seen = next ? (at.page - 1) * at.size + served : seen + served;
		const last = isLastPage(data, at, seen);
		return take(data, { ...at, last }) || last;
	};
	let at: PageAt = { page: 1, size };
	const first = await read(at);
	if (taken(first, at)) return;
	at = following(at);
	const served = (first.content as unknown[]).length;
	const counted = next === undefined && parallel() > 1 ? pageCount(first, served) : undefined;
	const planned =
		counted === undefined ? undefined : Math.min(counted, Math.ceil(records / Math.max(1, served)));
	if (planned !== undefined && planned >= at.page) {
		const ahead = new Map<number, Promise<Settled>>();
		let asked = at.page;
		try {
			for (; at.page <= planned; at = following(at)) {
				for (; asked <= planned && ahead.size < parallel(); asked++) {
					ahead.set(
						asked,
						read({ page: asked, size }).then(
							(data) => ({ data }),
							(error: unknown) => ({ error }),
						),
					);
				}
				const settled = await ahead.get(at.page)!;
				ahead.delete(at.page);
				if ('error' in settled) throw settled.error;
				if (taken(settled.data, at)) return;
			}
		} finally {
			// Pages read past the end are not used, but nothing is left running behind the walk.
			await Promise.all(ahead.values());
		}
	}
	for (; ; at = following(at)) {
		if (taken(await read(at), at)) return;
	}
}
