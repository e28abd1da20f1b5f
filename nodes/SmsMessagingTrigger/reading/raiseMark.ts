// Raising the high-water mark over the messages a poll has read, so that few stay tracked.
import { withinBudget } from './lists';
import { OVERLAP, type Search } from './search';

/**
 * How long after it was sent a message is usually listed (commits that land out of id order, a
 * lagging replica): the high-water mark goes no higher than the newest message sent this long
 * before a poll, so that one listed that late is found above it, at the top of the list of every
 * status, not by the count below it (late.ts).
 */
export const LISTING_LAG_MS = 10 * 60_000;

/**
 * Raises the high-water mark to the highest message sent a listing lag ago or earlier below which
 * every message above the mark is known: at once when the counts hold no message unread (the
 * poll saw the new ones on the list's first pages), else by reading the list of every status in
 * ascending order from the mark, an order new messages do not disturb (`pages` at most).
 */
export async function raiseMark(search: Search, now: number, pages: number): Promise<void> {
	const { picture } = search.findings;
	if (picture.unknownIn('ALL') > 0)
		await withinBudget(async () => await readUp(search, now, pages));
	else picture.raiseTop(highestReadBy(search, now - LISTING_LAG_MS));
}

/**
 * The highest id among the tracked messages above the mark that this poll read, sent by `by`
 * (every message between it and the mark is tracked: the counts hold none unread).
 */
function highestReadBy(search: Search, by: number): number {
	const { picture, seen } = search.findings;
	const above = [...picture.tracked.keys()]
		.filter((id) => id > picture.marks.top)
		.sort((a, b) => b - a);
	for (const id of above) {
		const record = seen.get(id);
		if (record && search.findings.sentAt(record) <= by) return id;
	}
	return picture.marks.top;
}

/**
 * Reads the list of every status oldest first from the mark: pages that share OVERLAP records with
 * what is known below it, and with each other, so that nothing slips between two. Each page's
 * records are taken in (the unknown ones become known), and the mark rises over each run of them
 * sent a listing lag ago.
 */
async function readUp(search: Search, now: number, pages: number): Promise<void> {
	const { lists, findings } = search;
	const { picture } = findings;
	const by = now - LISTING_LAG_MS;
	for (let read = 0; read < pages && picture.unknownIn('ALL') > 0; read++) {
		const page = await lists.pageFrom('ALL', Math.max(0, picture.marks.belowTop - OVERLAP), true);
		const ids = page.records.map((record) => Number(record.id));
		// The page must start at or below the mark: else the list below it moved, and what lies
		// between is not known.
		if (ids.length === 0 || (picture.marks.belowTop > 0 && ids[0] > picture.marks.top)) return;
		findings.take(page);
		let top = picture.marks.top;
		for (const record of page.records) {
			const id = Number(record.id);
			if (id <= top) continue;
			if (!(findings.sentAt(record) <= by)) break;
			top = id;
		}
		if (top === picture.marks.top) return;
		picture.raiseTop(top);
	}
}
