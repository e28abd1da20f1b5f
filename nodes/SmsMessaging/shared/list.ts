import type { IDataObject, INode, JsonObject } from 'n8n-workflow';

import { unexpectedBodyError, type ApiErrorContext } from './errors';

/** The largest page the API serves (spec section 8). */
export const MAX_PAGE_SIZE = 100;

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

/**
 * Collects a list's records page by page, up to `limit` (Infinity for all). Every page is asked at
 * the same size, the largest (or the Limit when smaller), because the API numbers pages by the
 * size asked for; the last page is trimmed to the Limit. It stops at whichever comes first: the
 * API says `last`, the page number reaches `totalPages`, the records reach `totalElements`, a page
 * is empty, a page is shorter than asked (unless the API says it is not the last), or the Limit.
 * So a server that never says `last` cannot keep it going.
 */
export async function collectPages(readPage: PageReader, limit: number): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	const pageSize = Math.min(MAX_PAGE_SIZE, limit);
	for (let page = 1; ; page++) {
		const data = await readPage(page, pageSize);
		const content = data.content as IDataObject[];
		records.push(...content.slice(0, limit - records.length));

		const { last, totalPages, totalElements } = pageMetadata(data);
		const lastPage =
			content.length === 0 ||
			last === true ||
			(typeof totalPages === 'number' && page >= totalPages) ||
			(typeof totalElements === 'number' && records.length >= totalElements) ||
			(content.length < pageSize && last !== false);
		if (lastPage || records.length >= limit) return records;
	}
}
