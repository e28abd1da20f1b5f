// What a page of a list says (its last page, its counts, its records' keys), which page to ask
// from a place in the list, and the types the reader shares (pageWalker.ts tells how it reads).
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
 * Why a reading of a list stopped before its end: its pages repeat the first page (an API, or a
 * cache in front of it, that ignores the page asked for), records arrived faster than pages of
 * `outpacedBy` records could follow, or the pages the API serves (`windowsOf` records whatever
 * is asked) cannot be shown to follow the records read.
 */
export type ListStop = { outpacedBy: number } | { windowsOf: number };

/** The error a reading ends with when it cannot go on (see `ListStop`; none: repeated pages). */
export type RepeatedPages = (at: PageAt, why?: ListStop) => Error;

/** Takes one page, in order; true when no later page is wanted. */
export type PageTake = (data: JsonObject, at: PageAt & { last: boolean }) => boolean;

/** The smallest page asked for when a reading goes on from a place in the list. */
const MIN_PAGE_SIZE = 50;

/** Records a reading that lost its place asks again, back from where it was (doubled each time). */
export const BACK_OFF = 25;

/**
 * The page that starts at or before `from` (0 for the first record) and reaches furthest (of two,
 * the one that starts later), at a size from MIN_PAGE_SIZE (or half of `size` when smaller) to
 * `size`: pages are numbered by the size asked for, so a reading that goes on from any place
 * still reads at least half a page more.
 */
export function pageFrom(from: number, size: number): PageAt {
	let best = { page: 1, size, reach: size };
	const smallest = Math.min(MIN_PAGE_SIZE, Math.ceil(size / 2));
	for (let pageSize = size; pageSize >= smallest; pageSize--) {
		const page = Math.floor(Math.max(0, from) / pageSize) + 1;
		if (page * pageSize >= best.reach) best = { page, size: pageSize, reach: page * pageSize };
	}
	return { page: best.page, size: best.size };
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
