// A list page's shape checked, and the pages of a Get Many collected into items.
import { NodeOperationError, type IDataObject, type INode, type JsonObject } from 'n8n-workflow';

import { unexpectedBodyError, type ApiErrorContext } from '../requests/errors';
import { walkPages } from './pageWalker';
import type { PageAt, PageRead, RepeatedPages, WalkOptions } from './pages';

/** The largest page the API serves (spec section 8). */
export const MAX_PAGE_SIZE = 100;

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
 * The error of a list whose pages repeat earlier ones (pageWalker.ts): `again` says when it is read
 * again (a run, the next poll).
 */
export function repeatedPagesError(node: INode, again: string, itemIndex?: number): RepeatedPages {
	return ({ page }: PageAt, outpacedBy?: number) =>
		outpacedBy !== undefined
			? new NodeOperationError(
					node,
					`Page ${page} of the list: records arrived faster than pages of ${outpacedBy} (what the API serves per page) can follow, so no page could be shown to follow the records read`,
					{
						itemIndex,
						description: `The reading stopped there rather than skip records: the list moved by whole pages between requests. Reading a list changes nothing; ${again}.`,
					},
				)
			: new NodeOperationError(
					node,
					`Page ${page} of the list and the two before it hold only records of earlier pages: the API, or a cache in front of it, does not serve the pages asked for`,
					{
						itemIndex,
						description: `The reading stopped there, as it would never reach the end. Reading a list changes nothing; ${again}.`,
					},
				);
}

/**
 * Collects a list's records, up to `limit` (Infinity for all), through the one page walker
 * (pageWalker.ts): every page asked at the same size, the largest (or the Limit when smaller),
 * because the API numbers pages by the size asked for; the last page is trimmed to the Limit.
 * `parallel`: pages read at once when the first page says how many there are (a limiter's window).
 * `arrivals`: where records that arrive meanwhile land, so that each record listed at the start comes out once.
 */
export async function collectPages(
	read: PageRead,
	limit: number,
	repeated: RepeatedPages,
	{ parallel, arrivals }: Pick<WalkOptions, 'parallel' | 'arrivals'> = {},
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	await walkPages(
		read,
		(data) => {
			records.push(...(data.content as IDataObject[]).slice(0, limit - records.length));
			return records.length >= limit;
		},
		{ size: Math.min(MAX_PAGE_SIZE, limit), parallel, records: limit, repeated, arrivals },
	);
	return records;
}
