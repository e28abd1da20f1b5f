import type { IDataObject, INode, JsonObject } from 'n8n-workflow';

import { unexpectedBodyError, type ApiErrorContext } from './errors';

/** The largest page the API serves (spec section 8). */
export const MAX_PAGE_SIZE = 100;

export interface PageMetadata {
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

/** The `data` of a list page whose `content` is a list; anything else is an error, never an empty page. */
export function checkedPage(
	node: INode,
	statusCode: number,
	data: JsonObject,
	page: number,
	context: ApiErrorContext,
): JsonObject {
	if (Array.isArray(data.content)) return data;
	throw unexpectedBodyError(node, statusCode, `page ${page} has no "content" list`, context);
}

/**
 * Reads one page of a list: the `data` object of the API's answer, whose `content` has been
 * checked to be a list. Throws when the page cannot be read.
 */
export type PageReader = (page: number, pageSize: number) => Promise<JsonObject>;

export interface CollectOptions {
	/**
	 * Pages read at once after the first, when the first page says how many there are (1, the
	 * default: one page after another), or a function giving it at each page (a limiter's window).
	 */
	parallel?: number | (() => number);
}

/** A count the API gave, if it gave one. */
const count = (value: unknown) =>
	typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/**
 * The last page worth asking for, from the first page's `totalPages` and `totalElements` and the
 * Limit, counted in pages the size the API served (a server may serve fewer than asked, and then
 * numbers its pages by what it serves); undefined when the API gave neither total.
 */
function plannedPages(first: JsonObject, served: number, limit: number): number | undefined {
	const { totalPages, totalElements } = pageMetadata(first);
	const pages = count(totalPages);
	const elements = count(totalElements);
	if (pages === undefined && elements === undefined) return undefined;
	return Math.min(
		pages ?? Infinity,
		elements === undefined ? Infinity : Math.ceil(elements / served),
		Math.ceil(limit / served),
	);
}

/** A page read ahead of its turn: its data or its error, kept until its turn comes. */
type Settled = { data: JsonObject } | { error: unknown };

/**
 * Collects a list's records page by page, up to `limit` (Infinity for all). Every page is asked at
 * the same size, the largest (or the Limit when smaller), because the API numbers pages by the
 * size asked for; the last page is trimmed to the Limit. It stops at whichever comes first: the
 * API says `last`, the page number reaches `totalPages`, the records reach `totalElements`, a page
 * is empty, a page is shorter than asked (unless the API says it is not the last), or the Limit.
 * So a server that never says `last` cannot keep it going.
 *
 * With `parallel` above 1 and a first page that gives `totalPages` or `totalElements`, the pages up
 * to the last one those totals and the Limit call for are read `parallel` at a time, and taken in
 * page order by the same rules: a page after the one that stops is never used (nor its error), and
 * no more than `parallel - 1` pages (at its largest) are ever asked past it. Past the planned pages, or without
 * totals, pages go one after another.
 */
export async function collectPages(
	readPage: PageReader,
	limit: number,
	{ parallel = 1 }: CollectOptions = {},
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	const pageSize = Math.min(MAX_PAGE_SIZE, limit);
	/** Takes a page's records; true when this page is the last to read. */
	const take = (data: JsonObject, page: number): boolean => {
		const content = data.content as IDataObject[];
		records.push(...content.slice(0, limit - records.length));
		const { last, totalPages, totalElements } = pageMetadata(data);
		const lastPage =
			content.length === 0 ||
			last === true ||
			(typeof totalPages === 'number' && page >= totalPages) ||
			(typeof totalElements === 'number' && records.length >= totalElements) ||
			(content.length < pageSize && last !== false);
		return lastPage || records.length >= limit;
	};

	const first = await readPage(1, pageSize);
	if (take(first, 1)) return records;
	let page = 2;
	const inParallel = typeof parallel === 'number' ? () => parallel : parallel;
	const planned =
		inParallel() > 1 ? plannedPages(first, (first.content as unknown[]).length, limit) : undefined;
	if (planned !== undefined && planned >= page) {
		const ahead = new Map<number, Promise<Settled>>();
		let next = page;
		const readAhead = () => {
			for (; next <= planned && ahead.size < inParallel(); next++) {
				ahead.set(
					next,
					readPage(next, pageSize).then(
						(data) => ({ data }),
						(error: unknown) => ({ error }),
					),
				);
			}
		};
		try {
			for (; page <= planned; page++) {
				readAhead();
				const settled = await ahead.get(page)!;
				ahead.delete(page);
				if ('error' in settled) throw settled.error;
				if (take(settled.data, page)) return records;
			}
		} finally {
			// Pages read past the end are not used, but nothing is left running behind the node.
			await Promise.all(ahead.values());
		}
	}
	for (; ; page++) {
		if (take(await readPage(page, pageSize), page)) return records;
	}
}
