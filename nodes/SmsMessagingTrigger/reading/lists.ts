// The SMS lists as a poll reads them: any page of any list, each list's count, within the budget.
import type { IDataObject, JsonObject } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import { isLastPage, pageFrom, type RepeatedPages } from '../../shared/lists/pages';
import { DeadlinePassed } from '../../shared/requests/deadline';
import type { ListName } from '../state/picture';

/** One page of a list as the API served it. */
export interface Page {
	list: ListName;
	/** Where it starts in the list (0 for the first record). */
	offset: number;
	/** Its records with an id the trigger can follow (a whole number above 0), in the list's order. */
	records: IDataObject[];
	/** How many records it held, with an id or not. */
	served: number;
	/** The list's `totalElements`, when the page gives a whole number. */
	total?: number;
	/** The list's `totalPages` at this page's size, when the page gives a whole number. */
	pages?: number;
	/** No record comes after this page, by the one rule for the last page (pageWalker.ts). */
	last: boolean;
}

/** Reads one page of the SMS list with a query (`status`, `sort`, `page`, `records`). */
export type PageReader = (query: IDataObject) => Promise<JsonObject>;

/** Where a poll's lists come from. */
export interface ListSource {
	read: PageReader;
	/** When the poll's budget ends (ms since the epoch): no request starts after it. */
	deadline: number;
	/**
	 * The error when pages past the first of a list hold exactly its first page, three times: an
	 * API, or a cache in front of it, that ignores the page asked for (list.ts).
	 */
	repeated: RepeatedPages;
}

/** What `withinBudget` gives for a reading the poll's budget ended. */
export const OUT_OF_TIME = Symbol('out of time');

/**
 * Runs a reading; OUT_OF_TIME when the poll's budget ended it before it was done (no request
 * starts after it, and no wait that would end after it begins: what it read is in the picture).
 */
export async function withinBudget<T>(reading: () => Promise<T>): Promise<T | typeof OUT_OF_TIME> {
	// Any other failure is the request loop's own (NodeApiError, NodeOperationError): it passes on
	// as it is.
	return await reading().then(
		(result) => result,
		(error: unknown) => (error instanceof DeadlinePassed ? OUT_OF_TIME : Promise.reject(error)),
	);
}

/**
 * Whether a record of the list has an id the trigger can follow it by (a whole number above 0);
 * one without is passed over: it could neither be followed nor emitted once.
 */
function hasId(record: unknown): record is IDataObject {
	if (record === null || typeof record !== 'object') return false;
	const id = Number((record as IDataObject).id);
	return Number.isSafeInteger(id) && id > 0;
}

/** A whole number of the page's metadata (`totalElements`, `totalPages`), when it gives one. */
function metadata(data: JsonObject, field: string): number | undefined {
	const value = (data.pagination as IDataObject | undefined)?.[field];
	return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/** The page number and size that read the list from `offset` at most `size` records. */
function pageAt(offset: number, size: number): { page: number; records: number } {
	for (let records = size; records > 0; records--) {
		if (offset % records === 0) return { page: offset / records + 1, records };
	}
	return { page: offset + 1, records: 1 };
}

/**
 * The lists a poll reads, as pages at any place. Every request first checks the poll's budget
 * (`deadline`): a reading never starts a request after it. A page is asked once per poll: asked
 * again, it is what the first answer said (a change since comes at the next poll).
 */
export class Lists {
	/** The pages this poll read: a page asked again is served from here. */
	private readonly pages = new Map<string, Page>();
	/** Per list: how many pages past the first held exactly what the first held. */
	private readonly repeats = new Map<ListName, number>();

	constructor(
		private readonly source: ListSource,
		private readonly query: IDataObject,
	) {}

	/** The `start-date` the lists are asked with. */
	get startDate(): string {
		return String(this.query['start-date']);
	}

	/**
	 * The records from `offset` on, at most `size` (≤ 100), newest first (or oldest first with
	 * `ascending`). A page that starts elsewhere than a multiple of its size is asked at the
	 * largest size that starts there (`pageAt`).
	 */
	async page(
		list: ListName,
		offset: number,
		size = MAX_PAGE_SIZE,
		ascending = false,
	): Promise<Page> {
		const at = pageAt(offset, size);
		const key = `${list}:${at.page}:${at.records}:${ascending}`;
		const cached = this.pages.get(key);
		if (cached) return cached;
		if (Date.now() >= this.source.deadline) throw new DeadlinePassed();
		const data = await this.source.read({
			...this.query,
			...(list === 'ALL' ? {} : { status: list }),
			// Asked, not left to the API's default (spec 4.4: id, newest first): the readings rely on it.
			sort: ascending ? 'id,asc' : 'id,desc',
			page: at.page,
			records: at.records,
		});
		const content = data.content as unknown[];
		const page: Page = {
			list,
			offset: (at.page - 1) * at.records,
			records: content.filter(hasId),
			served: content.length,
			total: metadata(data, 'totalElements'),
			pages: metadata(data, 'totalPages'),
			last: isLastPage(
				data,
				{ page: at.page, size: at.records },
				(at.page - 1) * at.records + content.length,
			),
		};
		this.pages.set(key, page);
		this.checkRepeats(page, at);
		return page;
	}

	/** Throws `repeated` at the third page past the first that holds exactly the first page. */
	private checkRepeats(page: Page, at: { page: number; records: number }): void {
		const first = this.pages.get(`${page.list}:1:${MAX_PAGE_SIZE}:false`);
		if (!first || page.offset === 0 || page.records.length === 0) return;
		const ids = (records: IDataObject[]) => records.map((record) => String(record.id)).join();
		if (ids(first.records.slice(0, page.records.length)) !== ids(page.records)) return;
		const repeats = (this.repeats.get(page.list) ?? 0) + 1;
		this.repeats.set(page.list, repeats);
		if (repeats >= 3) throw this.source.repeated({ page: at.page, size: at.records });
	}

	/**
	 * A page that starts at or before `from`, read on from there (`pageFrom`), newest first (or
	 * oldest first with `ascending`).
	 */
	async pageFrom(list: ListName, from: number, ascending = false): Promise<Page> {
		const { page, size } = pageFrom(from, MAX_PAGE_SIZE);
		return await this.page(list, (page - 1) * size, size, ascending);
	}

	/** The first page of a list (asked once a poll). */
	async first(list: ListName): Promise<Page> {
		return await this.page(list, 0);
	}

	/** Forgets a first page, so that the next `first` asks it again. */
	askAgain(list: ListName): void {
		this.pages.delete(`${list}:1:${MAX_PAGE_SIZE}:false`);
	}

	/**
	 * How many records a list holds: its first page's `totalElements`; from an API that gives none,
	 * its last page by `totalPages`, or the end of the list found near where `expected` puts it.
	 */
	async count(list: ListName, expected: number): Promise<number> {
		const first = await this.first(list);
		if (first.total !== undefined) return first.total;
		if (first.last) return first.served;
		if (first.pages !== undefined && first.pages > 1) {
			const last = await this.page(list, (first.pages - 1) * MAX_PAGE_SIZE);
			if (last.served > 0 && last.last) return last.offset + last.served;
		}
		return await this.findEnd(list, Math.max(expected, first.served));
	}

	/**
	 * How many records a list holds whose first page is full, from an API that gives no total: the
	 * last page that is not full, at a page size whose page holds both the `guess`-th record and the
	 * one after (so that one request tells a count that did not change), galloping away from it
	 * and halving in between.
	 */
	private async findEnd(list: ListName, guess: number): Promise<number> {
		const size = spanSize(guess);
		/** The count when the page at `index` tells it, else whether the page is full. */
		const look = async (index: number): Promise<number | boolean> => {
			const page = await this.page(list, index * size, size);
			if (page.served === size && !page.last) return true;
			return page.served === 0 ? false : index * size + page.served;
		};
		const start = Math.floor(Math.max(guess - 1, 0) / size);
		let low = -1; // a page known full
		let high = Infinity; // a page known empty
		for (let index = start, step = 1; ; step *= 2) {
			const seen = await look(index);
			if (typeof seen === 'number') return seen;
			if (seen) low = index;
			else high = index;
			if (high !== Infinity && (low !== -1 || index === 0)) break;
			index = high === Infinity ? low + step : Math.max(0, high - step);
		}
		while (high - low > 1) {
			const middle = Math.floor((low + high) / 2);
			const seen = await look(middle);
			if (typeof seen === 'number') return seen;
			if (seen) low = middle;
			else high = middle;
		}
		return (low + 1) * size;
	}
}

/** A page size (51 to 100) whose page holding record `guess - 1` also holds record `guess`. */
function spanSize(guess: number): number {
	for (let size = MAX_PAGE_SIZE; size > MAX_PAGE_SIZE / 2; size--) {
		if (Math.floor(Math.max(guess - 1, 0) / size) === Math.floor(guess / size)) return size;
	}
	return MAX_PAGE_SIZE;
}
