// Messages the API listed late, below the high-water mark: found by where known ones moved to.
import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import type { Search } from './search';

/**
 * Finds the messages listed late below the high-water mark, whose count the list of every status
 * shows: each one moves the known messages below it one place down. Known are the ids listed
 * above `listedUpTo` (a message listed late below it cannot be told from the baseline's, and
 * counts as recorded); the first page whose last known record sits lower than the picture puts it
 * holds a late one, or the page before does. Halving over the pages finds it in a few requests
 * however deep it is; each late one found is taken into the picture (a new message).
 */
export async function findLate(search: Search): Promise<void> {
	const { findings, lists, observed, topOffset } = search;
	const { picture } = findings;
	if (topOffset === undefined) return;
	const known = [...picture.listed.keys()].sort((a, b) => b - a);
	const rank = new Map(known.map((id, index) => [id, index]));
	const pageOf = (position: number) => Math.floor(position / MAX_PAGE_SIZE);
	/** How many places the last known record of page `index` moved down (undefined: none shown). */
	const shift = async (index: number): Promise<number | undefined> => {
		const page = await lists.page('ALL', index * MAX_PAGE_SIZE);
		findings.take(page);
		for (let i = page.records.length - 1; i >= 0; i--) {
			const place = rank.get(Number(page.records[i].id));
			if (place !== undefined) return page.offset + i - (topOffset + place);
		}
		return undefined;
	};
	const residual = () => findings.residuals(observed).ALL;
	if (known.length === 0 || residual() <= 0) return;
	const shifts = new Map<number, number | undefined>();
	const at = async (index: number) => {
		if (!shifts.has(index)) shifts.set(index, await shift(index));
		return shifts.get(index);
	};
	/** Reads the pages between two whose shifts differ, down to the ones where it grows. */
	const split = async (low: number, lowShift: number, high: number, highShift: number) => {
		if (highShift <= lowShift || high - low <= 1 || residual() <= 0) return;
		const middle = Math.floor((low + high) / 2);
		const moved = await at(middle);
		if (moved === undefined) return;
		await split(low, lowShift, middle, moved);
		await split(middle, moved, high, highShift);
	};
	const high = pageOf(topOffset + known.length - 1 + residual());
	const deepest = await at(high);
	if (deepest !== undefined) await split(pageOf(topOffset) - 1, 0, high, deepest);
}
