// What a page of a list says (its last page, its counts, its records' keys), and the types the
// page walker and its strategies share (pageWalker.ts tells how a walk goes).
import type { JsonObject } from 'n8n-workflow';

interface PageMetadata {
	last?: unknown;
	totalPages?: unknown;
	totalElements?: unknown;
}

/** The SMS list puts page metadata under `pagination`, the contact list beside `content`. */
export function pageMetadata(data: JsonObject): PageMetadata {
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

/**
 * The error a walk ends with when its pages repeat what it has taken: `outpacedBy`, the records
 * per page, when the list moved by whole pages between requests (records arriving above the pages
 * read: no page could be shown to follow the records given).
 */
export type RepeatedPages = (at: PageAt, outpacedBy?: number) => Error;

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
	repeated: RepeatedPages;
	/**
	 * Where records that arrive during the reading land (see the top): first, or last, with a
	 * reading of the list in the reverse order, whose first record was the last at the start.
	 */
	arrivals?: 'first' | AscendingArrivals;
}

/** Records that arrive land last: the list is in ascending order of an id or of `order`. */
export interface AscendingArrivals {
	/** Reads the list in the reverse order. */
	last: PageRead;
	/**
	 * A record's place in the order, where records can share one (a time: a bulk send's messages
	 * share their Sent At, and an API may list them in the same order both ways); undefined when
	 * the record gives none.
	 */
	order?: (record: unknown) => number | undefined;
}

/** Pages in a row with no record the walk had not taken that end it: more than any overlap. */
export const REPEATS = 3;

/** What a record of a list is known by: its id, or the record itself when it has none. */
export function recordKey(record: unknown): string {
	const id = record !== null && typeof record === 'object' ? (record as JsonObject).id : undefined;
	return id === undefined ? JSON.stringify(record) : String(id);
}

/**
 * Tells a page past the first that starts as the first page did (its records, in their order, at
 * any page size): what an API, or a cache in front of it, answers when it serves page 1 whatever
 * page is asked, with page 1's own totals. Such a page is never taken for the last (those totals
 * would end the walk with page 1's records alone); REPEATS of them in a row end the walk with
 * `repeated`.
 */
export function firstPageEcho(): (content: unknown[], pastFirst: boolean) => boolean {
	let first: string[] | undefined;
	return (content, pastFirst) => {
		const keys = content.map(recordKey);
		first ??= keys;
		return pastFirst && keys.length > 0 && keys.every((key, k) => key === first![k]);
	};
}

/** A count the API gave, if it gave one. */
export const count = (value: unknown) =>
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
export interface WalkStrategy {
	taken(data: JsonObject, at: PageAt): boolean;
	following(at: PageAt): PageAt;
	moved(): boolean;
}
