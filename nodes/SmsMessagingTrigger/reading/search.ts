// The readings that find what a count shows changed: a list's top, a list down, one message.
import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import { BACK_OFF } from '../../shared/lists/pages';
import { TRACKED_LISTS, type Counts, type ListName } from '../state/picture';
import type { Findings } from './findings';
import type { Lists, Page } from './lists';

/**
 * How many records two pages read one after the other share, when they must (see `readDown`): the
 * next starts on the last record of the one before.
 */
export const OVERLAP = 1;

/** What a poll's searches share. */
export interface Search {
	lists: Lists;
	findings: Findings;
	/** Each list's count as the API said it at the start of the poll. */
	observed: Counts;
	/** Where the list of every status reaches the mark, once a reading read every message above it. */
	topOffset?: number;
}

/** Where a reading of a list down from its top got to. */
export interface Cursor {
	/** Where the next page starts at the latest. */
	offset: number;
	/** The list ended (a page that was the last, or shorter than asked). */
	ended: boolean;
	/** The id of the last record read, which the next page must reach back to. */
	lastId?: number;
	/** Every page reached back to the one before: no record was skipped between two pages. */
	met: boolean;
	/** The list's count as the last page gave it (the baseline's pages follow while it stays). */
	total?: number;
}

/**
 * Where the reading goes on after `page`: one record back (OVERLAP), so that the next page shows
 * it reaches back to this one (a count that stayed the same proves nothing: one record may have
 * left the list above while another joined it); right after it with `follow` (the baseline, whose
 * lists must add up to their counts or it is taken again).
 */
export function after(page: Page, met = true, follow = false): Cursor {
	const ended = page.last;
	const lastId = page.records.length ? Number(page.records.at(-1)!.id) : undefined;
	const next = page.offset + page.served - (follow ? 0 : OVERLAP);
	return { offset: Math.max(page.offset + 1, next), ended, lastId, met, total: page.total };
}

/** Whether a page (newest first) reaches back to the record with `lastId`, or above it. */
const meets = (page: Page, lastId: number | undefined) =>
	lastId === undefined || page.records.some((record) => Number(record.id) >= lastId);

/**
 * Reads a list down from `from` while `more()` holds after each page, each page taken into the
 * picture (Findings.take). Each page starts on the last record of the one before; one that does
 * not reach back to it (messages left the list above it meanwhile) is asked again from further
 * back, and if it still does not, the reading goes on, not `met` (the ids between the two pages
 * are not judged). The `baseline`'s pages follow each other while the list's count stays: its
 * lists are read whole and must hold as many records as their counts. Gives where it stopped.
 */
export async function readDown(
	search: Search,
	list: ListName,
	from: Cursor,
	more: (changes: number, page: Page) => boolean,
	baseline = false,
): Promise<Cursor> {
	let cursor = from;
	while (!cursor.ended) {
		let page = await search.lists.pageFrom(list, cursor.offset);
		// The baseline's pages follow each other while the list's count stays as it was.
		const steady = baseline && page.total !== undefined && page.total === cursor.total;
		let met = cursor.met;
		if (!steady && !meets(page, cursor.lastId)) {
			page = await search.lists.pageFrom(list, Math.max(0, cursor.offset - BACK_OFF));
			met &&= meets(page, cursor.lastId);
		}
		const changes = search.findings.take(page);
		// An empty page where records were expected proves nothing (a lagging replica's answer).
		if (page.served === 0) return { ...cursor, ended: true, met: false };
		cursor = after(page, met, steady);
		if (!more(changes, page)) break;
	}
	return cursor;
}

/**
 * Reads a list down from its top while `unknownLeft()` (its count shows records the picture does
 * not know in it): page after page while each brings a change; past a page that brings none, it
 * seeks the next page that does (`seek`), so that records new to the list below a stretch already
 * known (a bulk send read over several polls, deliveries of older messages) are found in a few
 * requests. Gives where it stopped.
 */
export async function readTop(
	search: Search,
	list: ListName,
	from: Cursor,
	unknownLeft: () => boolean,
): Promise<Cursor> {
	let cursor = from;
	while (unknownLeft() && !cursor.ended) {
		cursor = await readDown(search, list, cursor, (changes) => changes > 0 && unknownLeft());
		if (!unknownLeft() || cursor.ended) break;
		const found = await seek(search, list, cursor.offset);
		if (found === undefined) break;
		cursor = { ...cursor, offset: found, lastId: undefined };
	}
	return cursor;
}

/**
 * The offset of the first page of 100 at or after `from` that holds a record new to the picture
 * (each page read is taken in), by halving: a page's last record, with how many members of the
 * list the picture knows at or above it, tells how many records new to the picture are above the
 * page's end (pages 1, 2, 4… on from `from`, then halving between the last page with none above
 * its end and the first with some). In PENDING, SENT and FAILED the picture knows every member;
 * in DELIVERED only above the high-water mark (below, the rule stands for them), so DELIVERED is
 * sought down to the mark (what moved there from the other lists, they show). Undefined when no
 * page holds one.
 */
async function seek(search: Search, list: ListName, from: number): Promise<number | undefined> {
	const { lists, findings, observed } = search;
	const { picture } = findings;
	const tracked = (TRACKED_LISTS as ListName[]).includes(list);
	const known = picture.membersOf(list);
	const floor = tracked ? 0 : picture.marks.top;
	const aboveFloor = tracked
		? observed[list]
		: known.filter((id) => id > floor).length + Math.max(0, picture.unknownIn(list));
	const start = Math.ceil(from / MAX_PAGE_SIZE);
	const last = Math.max(start, Math.ceil(aboveFloor / MAX_PAGE_SIZE) - 1);
	/** Whether page `index` holds, or has above its end, records new to the picture. */
	const newByThere = async (index: number) => {
		const page = await lists.page(list, index * MAX_PAGE_SIZE);
		if (findings.take(page) > 0) return true;
		if (page.records.length === 0) return false;
		const lastId = Number(page.records.at(-1)!.id);
		if (lastId <= floor) return false;
		const knownAbove = known.filter((id) => id >= lastId).length;
		return page.offset + page.records.length > knownAbove;
	};
	let low = start - 1; // a page with nothing new at or above its end
	let high: number | undefined;
	for (let step = 1; high === undefined; step *= 2) {
		const index = Math.min(low + step, last);
		if (await newByThere(index)) high = index;
		else if (index >= last) return undefined;
		else low = index;
	}
	while (high - low > 1) {
		const middle = Math.floor((low + high) / 2);
		if (await newByThere(middle)) high = middle;
		else low = middle;
	}
	return (low + 1) * MAX_PAGE_SIZE;
}

/**
 * Finds one message in the list of every status: the page whose ids bracket it, galloping from
 * where the picture puts it (`guess`) and then halving. Taken into the picture, the message is
 * seen in its status; a page that brackets it without it shows that it is not listed any more
 * (`forget`). Gives whether the answers told (not: empty pages, a list that moved meanwhile).
 */
async function lookUp(search: Search, id: number, guess: number): Promise<boolean> {
	const { lists, findings } = search;
	let low = 0; // an offset at or above the message
	let high = Infinity; // an offset past it
	let step = MAX_PAGE_SIZE;
	let offset = Math.max(0, guess);
	for (let tries = 0; tries < 40 && low < high; tries++) {
		const page = await lists.page('ALL', offset - (offset % MAX_PAGE_SIZE));
		findings.take(page);
		const ids = page.records.map((record) => Number(record.id));
		if (ids.length === 0) return false;
		const ends = page.last;
		if (ids.includes(id)) return true;
		if (id > ids[0] && page.offset > 0) {
			high = page.offset;
			offset = low > 0 || high - step > 0 ? Math.max(low, high - step) : 0;
		} else if (id < ids[ids.length - 1] && !ends) {
			low = page.offset + page.served;
			offset = high === Infinity ? low + step - MAX_PAGE_SIZE : Math.floor((low + high) / 2);
		} else {
			findings.picture.forget(id);
			findings.gone.delete(id);
			return true;
		}
		if (high !== Infinity && offset >= high) offset = Math.floor((low + high) / 2);
		step *= 2;
	}
	return false;
}

/**
 * Where a message should be in the list of every status (its offset), by what the picture knows:
 * the messages it counts without knowing (all above the mark), those it tracks above the mark and
 * above the message, the listed ones above it up to the mark, and, below `listedUpTo`, one per id
 * (as the simulator numbers them; elsewhere a first guess that galloping mends).
 */
function guessOffset(search: Search, id: number): number {
	const { picture } = search.findings;
	const { top, listedUpTo } = picture.marks;
	let above = picture.unknownIn('ALL');
	for (const known of picture.tracked.keys()) if (known > Math.max(id, top)) above++;
	for (const listed of picture.listed.keys()) if (listed > id) above++;
	return above + Math.max(0, Math.min(listedUpTo, top) - id);
}

/**
 * Looks up each tracked message a page showed gone from its list: in the list of every status,
 * where it now is (the poll sees it there), or that it is listed no more. Gives whether every one
 * was told.
 */
export async function lookUpGone(search: Search): Promise<boolean> {
	let told = true;
	const gone = [...search.findings.gone].sort((a, b) => b - a);
	for (const id of gone) {
		if (!search.findings.gone.has(id)) continue;
		if (!(await lookUp(search, id, guessOffset(search, id)))) told = false;
	}
	return told;
}
