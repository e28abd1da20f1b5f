// A poll's readings after its first pages: read where a count shows a change no page showed yet.
import { TRACKED_LISTS, type ListName, type Status, type StatusList } from '../state/picture';
import { findLate } from './late';
import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import { OUT_OF_TIME, withinBudget, type Page } from './lists';
import { after, lookUpGone, readDown, readTop, type Cursor, type Search } from './search';

/** New messages are read while they fit in this many pages; more (a bulk send) are counted. */
const NEW_PAGES = 3;

/** The lists read down from their top when their count shows more records than known. */
const TOP_FIRST: StatusList[] = ['DELIVERED', 'FAILED', 'SENT', 'PENDING'];

type Residuals = ReturnType<Search['findings']['residuals']>;

/**
 * Reads, after the first pages, until every count is what the picture expects (a clean poll), or
 * nothing more can be read: each step reads where a count shows a change (search.ts), cheapest
 * first. `whole`: the in-flight lists and FAILED are read to their end whatever the counts say
 * (a full reading). Gives whether the poll is clean, or was ended by its budget.
 */
export async function resolve(
	search: Search,
	watched: Set<Status>,
	whole: boolean,
): Promise<'clean' | 'unclean' | 'out of time'> {
	const resolver = new Resolver(search, watched);
	const clean = await withinBudget(async () => {
		if (whole) await resolver.readWhole();
		return await resolver.run();
	});
	return clean === OUT_OF_TIME ? 'out of time' : clean ? 'clean' : 'unclean';
}

class Resolver {
	/** Where each list's reading from its top got to (after its first page). */
	private readonly cursors = new Map<ListName, Cursor>();
	private readonly toppedUp = new Set<ListName>();
	private lateSearched = false;

	constructor(
		private readonly search: Search,
		private readonly watched: Set<Status>,
	) {}

	private residuals(): Residuals {
		return this.search.findings.residuals(this.search.observed);
	}

	private async cursor(list: ListName): Promise<Cursor> {
		const cursor = this.cursors.get(list);
		return cursor ?? after(await this.search.lists.first(list));
	}

	private async read(
		list: ListName,
		more: (changes: number, page: Page) => boolean,
	): Promise<number> {
		const from = await this.cursor(list);
		const { cursor, changes } = await readDown(this.search, list, from, more);
		this.cursors.set(list, cursor);
		return changes;
	}

	/**
	 * The full reading: PENDING, SENT and FAILED to their end, from where the messages the picture
	 * knows begin in them (a bulk send it counts without reading sits above them, and is not read
	 * for it), and the list of every status down to the mark when the new messages fit.
	 */
	async readWhole(): Promise<void> {
		const { picture } = this.search.findings;
		for (const list of TRACKED_LISTS) {
			const above = picture.membersOf(list).filter((id) => id > picture.marks.top).length;
			const known = picture.unknownIn(list) + above - 1;
			if (known > MAX_PAGE_SIZE)
				this.cursors.set(list, { offset: known, ended: false, met: false });
			await this.read(list, () => true);
		}
		if (this.newFits()) await this.readAllToTop();
		await lookUpGone(this.search);
	}

	async run(): Promise<boolean> {
		await lookUpGone(this.search);
		for (let round = 0; round < 12; round++) {
			const residuals = this.residuals();
			if (isZero(residuals)) return true;
			if (!(await this.step(residuals))) return this.absorb(residuals);
		}
		return isZero(this.residuals());
	}

	/** One reading where the counts show a change; false when none is left to try. */
	private async step(residuals: Residuals): Promise<boolean> {
		const { picture } = this.search.findings;
		if (residuals.ALL > 0 && !this.cursors.has('ALL') && this.newFits()) {
			await this.readAllToTop();
			return true;
		}
		for (const list of TOP_FIRST) {
			if (residuals[list] <= 0 || !this.watched.has(list) || this.toppedUp.has(list)) continue;
			this.toppedUp.add(list);
			const unknownLeft = () => this.residuals()[list] > 0;
			this.cursors.set(
				list,
				await readTop(this.search, list, await this.cursor(list), unknownLeft),
			);
			return true;
		}
		for (const list of TRACKED_LISTS) {
			const r = residuals[list];
			const unread = residuals.ALL > 0 && !this.cursors.has('ALL');
			const needed = r < -picture.unknownIn(list) || (r > 0 && (this.watched.has(list) || !unread));
			if (!needed || (await this.cursor(list)).ended) continue;
			await this.read(list, () => this.residuals()[list] !== 0);
			await lookUpGone(this.search);
			return true;
		}
		if (residuals.ALL > 0 && this.search.topOffset !== undefined && !this.lateSearched) {
			this.lateSearched = true;
			await findLate(this.search);
			return true;
		}
		return false;
	}

	/** Whether the messages above the mark fit in NEW_PAGES pages. */
	private newFits(): boolean {
		const { picture } = this.search.findings;
		return this.search.observed.ALL - picture.marks.belowTop <= NEW_PAGES * 100;
	}

	/** Reads the list of every status down to the high-water mark: every message above it. */
	private async readAllToTop(): Promise<void> {
		const { top } = this.search.findings.picture.marks;
		const reachesTop = (page: Page) => {
			const index = page.records.findIndex((record) => Number(record.id) <= top);
			if (index >= 0) this.search.topOffset ??= page.offset + index;
			return index >= 0 || page.last;
		};
		const first = await this.search.lists.first('ALL');
		this.cursors.set('ALL', after(first));
		if (!reachesTop(first)) await this.read('ALL', (_, page) => !reachesTop(page));
	}

	/**
	 * What no reading found, taken into the counts when it cannot hide an emission: records more in
	 * lists not watched, from new messages not read (a bulk send) or from messages the counts held
	 * without knowing them; and fewer in lists that held that many unknown ones.
	 */
	private absorb(residuals: Residuals): boolean {
		const { picture } = this.search.findings;
		const statuses: StatusList[] = ['PENDING', 'SENT', 'DELIVERED', 'FAILED'];
		const safe = statuses.every((list) => {
			const r = residuals[list];
			if (r > 0) return !this.watched.has(list);
			return r === 0 || -r <= picture.unknownIn(list);
		});
		if (!safe || residuals.OTHER !== 0 || residuals.ALL < 0) return false;
		for (const list of [...statuses, 'ALL' as const]) picture.counts[list] += residuals[list];
		return true;
	}
}

function isZero(residuals: Residuals): boolean {
	return Object.values(residuals).every((value) => value === 0);
}
