// A list page's shape checked, and the pages of a Get Many collected into items.
import { NodeOperationError, type IDataObject, type INode, type JsonObject } from 'n8n-workflow';

import { unexpectedBodyError, type ApiErrorContext } from '../requests/errors';
import { walkPages, type ListOrder } from './pageWalker';
import type { ListStop, PageAt, PageRead, RepeatedPages } from './pages';

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
 * The error a reading of a list ends with (pageWalker.ts): `again` says when it is read again
 * (a run, the next poll).
 */
export function repeatedPagesError(node: INode, again: string, itemIndex?: number): RepeatedPages {
	return ({ page }: PageAt, why?: ListStop) => {
		if (why === undefined) {
			return new NodeOperationError(
				node,
				`Page ${page} of the list and the two before it hold only records of earlier pages: the API, or a cache in front of it, does not serve the pages asked for`,
				{
					itemIndex,
					description: `The reading stopped there, as it would never reach the end. Reading a list changes nothing; ${again}.`,
				},
			);
		}
		const message =
			'outpacedBy' in why
				? `Page ${page} of the list: records arrived faster than pages of ${why.outpacedBy} (what the API serves per page) can follow, so no page could be shown to follow the records read`
				: `Page ${page} of the list: no page of ${why.windowsOf} records (what the API serves per page) could be shown to follow the records read`;
		return new NodeOperationError(node, message, {
			itemIndex,
			description: `The reading stopped there rather than skip records: a page is taken only where it shows the last record read, or the id after it. Reading a list changes nothing; ${again}.`,
		});
	};
}

/**
 * Collects a list's records, up to `limit` (Infinity for all), through the one reader
 * (pageWalker.ts), at pages of the API's largest size, or the Limit when smaller; the last page is
 * trimmed to the Limit. `parallel`: pages read at once while the list stands still (a limiter's
 * window). `order`: how the list is sorted, so that each record listed from start to end comes
 * out once.
 */
export async function collectPages(
	read: PageRead,
	limit: number,
	repeated: RepeatedPages,
	{ parallel, order }: { parallel?: () => number; order: ListOrder },
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	await walkPages(
		read,
		(data) => {
			records.push(...(data.content as IDataObject[]).slice(0, limit - records.length));
			return records.length >= limit;
		},
		{ size: Math.min(MAX_PAGE_SIZE, limit), parallel, records: limit, repeated, order },
	);
	return records;
}
