// Messages the API listed late, below the high-water mark: found by where known ones moved to.
import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import type { Page } from './lists';
import type { Search } from './search';

/**
 * Finds the messages listed late below the high-water mark, whose count the list of every status
 * shows. Read oldest first, that list holds `belowTop` records up to the mark, whatever is new
 * above it (read or only counted, a bulk send), and each late one moves the known messages above
 * it one place up. Known are the ids listed above `listedUpTo` (a message listed late below it
 * cannot be told from the baseline's, and counts as recorded): the first page whose last known
 * record sits higher than the picture puts it holds a late one, or the page before does. Halving
 * over the pages finds it in a few requests however deep it is; each late one found is taken into
 * the picture (a new message).
 */
export async function findLate(search: Search): Promise<void> {
	const { findings, lists, observed } = search;
	const { picture } = findings;
	const { belowTop } = picture.marks;
	const known = [...picture.listed.keys()].sort((a, b) => b - a);
	const residual = () => findings.residuals(observed).ALL;
	if (known.length === 0 || residual() <= 0) return;
	// Oldest first, the known message `place` places below the newest known sits here.
	const expected = (place: number) => belowTop - 1 - place;
	const rank = new Map(known.map((id, index) => [id, index]));
	const pageOf = (position: number) => Math.floor(position / MAX_PAGE_SIZE);
	/** How far up a page's last known record moved, its place, its page of 100 (undefined: none). */
	const measure = (page: Page) => {
		findings.take(page);
		for (let i = page.records.length - 1; i >= 0; i--) {
			const place = rank.get(Number(page.records[i].id));
			const position = page.offset + i;
			if (place !== undefined)
				return { moved: position - expected(place), place, index: pageOf(position) };
		}
		return undefined;
	};
	/** The page of 100 at `index`, measured (a page asked again is the poll's first answer). */
	const read = async (index: number) =>
		measure(await lists.page('ALL', index * MAX_PAGE_SIZE, MAX_PAGE_SIZE, true));
	/** Reads the pages between two whose shifts differ, down to the ones where it grows. */
	const split = async (low: number, lowShift: number, high: number, highShift: number) => {
		if (highShift <= lowShift || high - low <= 1 || residual() <= 0) return;
		const middle = Math.floor((low + high) / 2);
		const moved = (await read(middle))?.moved;
		if (moved === undefined) return;
		await split(low, lowShift, middle, moved);
		await split(middle, moved, high, highShift);
	};
	// The newest known message: read from where the picture puts it (the page the mark is raised
	// from, raiseMark.ts), then up while a page shows none, or not the newest (the late ones moved
	// it up), to the list's end.
	const first = await lists.pageFrom('ALL', expected(0), true);
	let newest = measure(first);
	let high = newest?.index ?? pageOf(first.offset + first.served) - 1;
	while ((newest?.place ?? 1) > 0 && residual() > 0 && (high + 1) * MAX_PAGE_SIZE < observed.ALL) {
		const next = await read(high + 1);
		if (!next && newest) break;
		high++;
		newest = next;
	}
	// Moved up: late ones below it, sought by halving down from its whole page of 100.
	if (!newest || newest.moved <= 0) return;
	const top = (await read(high)) ?? newest;
	await split(pageOf(expected(known.length - 1)) - 1, 0, high, top.moved);
}
