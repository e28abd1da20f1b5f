// Reading one SMS list newest first, down to a place, and what such a reading can tell.
import type { IDataObject, JsonObject } from 'n8n-workflow';

import { apiTime } from '../../shared/input/apiTime';
import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import { walkPages, type PageAt, type PageRead } from '../../shared/lists/pageWalker';
import { sentSince } from '../../shared/lists/sentWindow';

/** When a record was sent (ms since the epoch); NaN when its `sentAt` cannot be read. */
export const sentAtOf = (record: IDataObject): number => apiTime(record.sentAt);

/**
 * Whether a record of the list has an id the trigger can follow it by (a whole number above 0); one
 * without (null, or a broken id) is passed over: it could neither be followed nor emitted once.
 */
export function hasId(record: unknown): record is IDataObject {
	if (record === null || typeof record !== 'object') return false;
	const id = Number((record as IDataObject).id);
	return Number.isSafeInteger(id) && id > 0;
}

/** The smallest page asked for when choosing a page size that makes two pages overlap. */
const MIN_OVERLAP_PAGE = 50;

/**
 * The page and page size of the next page to read, when `read` records are behind and the new page
 * must start at least `overlap` records before them: the one that reaches furthest. Without an
 * overlap that is the next page at the largest size.
 */
function nextPage(read: number, overlap: number): { page: number; size: number } {
	const from = Math.max(0, read - overlap);
	let best = { page: 1, size: MAX_PAGE_SIZE, reach: MAX_PAGE_SIZE };
	for (let size = MAX_PAGE_SIZE; size >= (overlap ? MIN_OVERLAP_PAGE : MAX_PAGE_SIZE); size--) {
		const page = Math.floor(from / size) + 1;
		if (page * size > best.reach) best = { page, size, reach: page * size };
	}
	return best;
}

/** One reading of a list, newest first (the API's default order). */
export interface Reading {
	records: IDataObject[];
	/**
	 * Whether a page of this reading looked at the place of `id` in the list: if so, a message with
	 * this id was not in the list when that page was read, unless the reading found it.
	 */
	covers(id: number): boolean;
	/**
	 * Whether the reading saw every record from its newest down to `downTo` and to one sent by
	 * `sentBy`: it reached them, or the list ended on a page with records. An empty page proves
	 * nothing (a lagging replica answers an empty 200), so a reading that ends on one is not
	 * complete.
	 */
	complete: boolean;
	/**
	 * Whether the reading saw the whole list, as far as its answers tell: it is complete and each
	 * page shares a record with the one before (pages that overlap, see `readList`), or its first
	 * page was empty.
	 */
	whole: boolean;
	/** Whether `enough` stopped the reading: what it did not read is taken as unchanged. */
	enough: boolean;
}

/** A list to read: its pages, and the error when they repeat earlier ones (pageWalker.ts). */
interface ListSource {
	read: PageRead;
	repeated: (at: PageAt) => Error;
}

/** The SMS list read with the trigger's query and these parameters (a status). */
export type ListReader = (query: IDataObject) => ListSource;

/** How far `readList` reads. */
interface ReadTo {
	/** Read on to a record with this id or a lower one. */
	downTo?: number;
	/** Read on to a record sent at or before this moment (ms). */
	sentBy?: number;
	/** How many records two consecutive pages share (0: pages of the largest size, in turn). */
	overlap?: number;
	/**
	 * When the window begins (ms): the list is asked from a day earlier (`startDateFor`), so a
	 * page whose messages were all sent before it ends the reading.
	 */
	windowStart?: number;
	/**
	 * Given each page in turn while the pages meet, whether the records read so far account for
	 * the list (its count): true ends the reading there.
	 */
	enough?: (page: IDataObject[]) => boolean;
}

/**
 * Reads a list newest first, through the one page walker, down to the page that reaches `downTo`
 * (an id) and holds a record sent by `sentBy` (ms), or to its end (the walker's last page, or a
 * page sent before the window). With an overlap, consecutive pages share records, so the reading
 * sees every record that stays in the list however many others leave it meanwhile (up to the
 * overlap between two pages); where they do not meet, the ids in between are not covered.
 */
export async function readList({ read, repeated }: ListSource, readTo: ReadTo): Promise<Reading> {
	const soFar = new ReadingSoFar(readTo);
	const overlap = readTo.overlap ?? 0;
	await walkPages(read, (data, { last }) => soFar.take(data, last), {
		size: MAX_PAGE_SIZE,
		next: ({ page, size }) => nextPage(page * size, overlap),
		repeated,
	});
	return soFar.reading();
}

/** What a reading of `readList` has seen, page by page. */
class ReadingSoFar {
	private readonly records = new Map<number, IDataObject>();
	/** The ids each page covered, from its lowest to its highest (see `Reading.covers`). */
	private readonly covered: Array<[number, number]> = [];
	private lowest = Infinity;
	/** Without `downTo` nor `sentBy`, the reading goes to the end of the list. */
	private readonly toTheEnd: boolean;
	private reachedId: boolean;
	private reachedSent: boolean;
	private complete = false;
	/** Whether every page met the one before (shared a record with it, or reached above it). */
	private met = true;
	/** Whether `enough` ended the reading. */
	private stopped = false;

	constructor(private readonly readTo: ReadTo) {
		this.toTheEnd = readTo.downTo === undefined && readTo.sentBy === undefined;
		this.reachedId = readTo.downTo === undefined;
		this.reachedSent = readTo.sentBy === undefined;
	}

	/** Takes the next page; true when no later page is wanted. */
	take(data: JsonObject, last: boolean): boolean {
		const served = data.content as unknown[];
		const content = served.filter(hasId);
		const first = this.covered.length === 0;
		if (served.length === 0) {
			// An empty first page covers the whole list; a later one nothing that is known.
			if (first) this.covered.push([-Infinity, Infinity]);
			else this.met = false;
			return true;
		}
		// A page of records without ids covers nothing, and the reading is not complete.
		if (content.length === 0) {
			this.met = false;
			return last;
		}
		const { downTo, sentBy, windowStart = -Infinity, enough } = this.readTo;
		const ids = content.map((record) => Number(record.id));
		const ended = last || content.every((record) => !sentSince(record, windowStart));
		// A page covers the ids from its lowest to its highest; the first one everything above,
		// the last one everything below. Where two pages do not meet, the ids between are not.
		this.covered.push([ended ? -Infinity : Math.min(...ids), first ? Infinity : Math.max(...ids)]);
		for (const [i, id] of ids.entries())
			if (!this.records.has(id)) this.records.set(id, content[i]);
		if (!first && Math.max(...ids) < this.lowest) this.met = false;
		this.lowest = Math.min(this.lowest, ...ids);
		this.reachedId ||= this.lowest <= downTo!;
		this.reachedSent ||= content.some((record) => sentAtOf(record) <= sentBy!);
		this.complete = ended || (!this.toTheEnd && this.reachedId && this.reachedSent);
		this.stopped = !this.complete && this.met && enough !== undefined && enough(content);
		return this.complete || this.stopped;
	}

	/** The reading, once the walk has ended. */
	reading(): Reading {
		const covered = this.covered;
		return {
			records: [...this.records.values()],
			covers: (id) => covered.some(([low, high]) => id >= low && id <= high),
			complete: this.complete,
			whole: this.met && (this.complete || this.records.size === 0),
			enough: this.stopped,
		};
	}
}
