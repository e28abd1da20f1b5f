// The first pages a poll reads, asked before anything else: they tell a poll with nothing to read.
import type { IDataObject, JsonObject } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import { hasId, type ListReader } from './listReading';

/** The lists every poll reads from their first page: the in-flight lists, then every status. */
const FIRST_LISTS: IDataObject[] = [{ status: 'PENDING' }, { status: 'SENT' }, {}];
const EVERY_STATUS = JSON.stringify({});

export interface FirstPages {
	/**
	 * Each list's `totalElements` and newest id, in order; undefined when a page gives no total.
	 * Equal to the last clean poll's, no message moved into or out of flight and none was listed
	 * since (unless moves in opposite directions cancel out, which the full reading catches).
	 */
	signature?: string;
	/** The `totalElements` of a list asked first (by its query), when its page gave one. */
	total(query: IDataObject): number | undefined;
	/** The records with an id on the first page of a list asked first (by its query). */
	content(query: IDataObject): IDataObject[];
	/**
	 * The reader, serving each of those first pages from what was asked, once; the first page of
	 * every status only until it asks a page itself, so that the list of every status is read
	 * after the lists a poll reads before it, as if it had not been asked early (it says where the
	 * messages that left them went).
	 */
	reader: ListReader;
}

/** A page's `totalElements`, when it gives a whole number. */
function totalOf(data: JsonObject): number | undefined {
	const total = (data.pagination as IDataObject | undefined)?.totalElements;
	return Number.isSafeInteger(total) && (total as number) >= 0 ? (total as number) : undefined;
}

/** A page's `totalElements` and its first record's id, as one word; undefined without a total. */
function pageSignature(data: JsonObject): string | undefined {
	const total = totalOf(data);
	if (total === undefined) return undefined;
	const [newest] = data.content as IDataObject[];
	return `${total}:${String(newest?.id ?? '')}`;
}

/** Asks the first page of each list a poll reads, at the size its reading starts with. */
export async function readFirstPages(reader: ListReader): Promise<FirstPages> {
	const asked = new Map<string, JsonObject>();
	const totals = new Map<string, number | undefined>();
	const contents = new Map<string, IDataObject[]>();
	const words: Array<string | undefined> = [];
	for (const query of FIRST_LISTS) {
		const data = await reader(query).read({ page: 1, size: MAX_PAGE_SIZE });
		asked.set(JSON.stringify(query), data);
		totals.set(JSON.stringify(query), totalOf(data));
		contents.set(JSON.stringify(query), (data.content as unknown[]).filter(hasId));
		words.push(pageSignature(data));
	}
	return {
		signature: words.every((word) => word !== undefined) ? words.join(' ') : undefined,
		total: (query) => totals.get(JSON.stringify(query)),
		content: (query) => contents.get(JSON.stringify(query)) ?? [],
		reader: (query) => {
			const source = reader(query);
			const key = JSON.stringify(query);
			return {
				...source,
				read: async (at) => {
					const served = at.page === 1 && at.size === MAX_PAGE_SIZE ? asked.get(key) : undefined;
					if (served) {
						asked.delete(key);
						return served;
					}
					asked.delete(EVERY_STATUS);
					return await source.read(at);
				},
			};
		},
	};
}
