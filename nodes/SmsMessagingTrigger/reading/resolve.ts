// A poll's readings after its first pages: read where a count shows a change no page showed yet.
import { TRACKED_LISTS, type ListName, type Status, type StatusList } from '../state/picture';
import type { FullReadingFrom } from '../state/storedState';
import { findLate } from './late';
import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import { OUT_OF_TIME, withinBudget, type Page } from './lists';
import { after, lookUpGone, readDown, readTop, type Cursor, type Search } from './search';

/** New messages are read while they fit in this many pages; more (a bulk send) are counted. */
const NEW_PAGES = 3;

/**
 * The in-flight lists are read to their end at every poll while they hold this many records
 * together (twenty pages): every move into or out of them is then seen at the next poll, whatever
 * the counts say. Past it (a bulk send in flight), the counts decide what is read, and the full
 * reading catches what they cannot show.
 */
const IN_FLIGHT_WHOLE = 2_000;

/** The lists read down from their top when their count shows more records than known. */
const TOP_FIRST: StatusList[] = ['DELIVERED', 'FAILED', 'SENT', 'PENDING'];

type Residuals = ReturnType<Search['findings']['residuals']>;

/**
 * A full reading reads at most this many pages a poll and goes on at the next: a quiet poll never
 * reads a bulk send in flight whole, and a full reading of N pages ends within N / 20 polls.
 */
const FULL_READING_PAGES = 20;

/**
 * How a poll's readings ended: clean, not, or cut by the budget; and where a full reading that did
 * not end goes on (its pages for this poll read, or the budget spent).
 */
interface Ended {
	end: 'clean' | 'unclean' | 'out of time';
	fullReadingFrom?: FullReadingFrom;
}

/**
 * Reads, after the first pages, until every count is what the picture expects (a clean poll), or
 * nothing more can be read: each step reads where a count shows a change (search.ts), cheapest
 * first. `full`: a full reading, the in-flight lists and FAILED read to their end whatever the
 * counts say, going on from where one stopped (`from`).
 */
export async function resolve(
	search: Search,
	watched: Set<Status>,
	full: { from?: FullReadingFrom } | undefined,
): Promise<Ended> {
	const resolver = new Resolver(search, watched);
	const { PENDING, SENT } = search.observed;
	const clean = await withinBudget(async () => {
		if (PENDING + SENT <= IN_FLIGHT_WHOLE) await resolver.readInFlight();
		if (full) await resolver.readWhole(full.from);
		return await resolver.run();
	});
	const end = clean === OUT_OF_TIME ? 'out of time' : clean ? 'clean' : 'unclean';
	return { end, fullReadingFrom: resolver.fullReadingAt };
}

class Resolver {
	/** Where each list's reading from its top got to (after its first page). */
	private readonly cursors = new Map<ListName, Cursor>();
	private readonly toppedUp = new Set<ListName>();
	private lateSearched = false;
	/** Where the full reading is in its lists (undefined: not reading them). */
	fullReadingAt?: FullReadingFrom;

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

	private async read(list: ListName, more: (changes: number, page: Page) => boolean) {
		this.cursors.set(list, await readDown(this.search, list, await this.cursor(list), more));
	}

	/**
	 * The full reading: PENDING, SENT and FAILED to their end, from where the messages the picture
	 * knows begin in them (a bulk send it counts without reading sits above them, and is not read
	 * for it), or from where one that a poll's budget ended stopped; then the list of every status
	 * down to the mark when the new messages fit.
	 */
	async readWhole(from?: FullReadingFrom): Promise<void> {
		const lists = TRACKED_LISTS.slice(from ? TRACKED_LISTS.indexOf(from.list) : 0);
		let pages = 0;
		for (const list of lists) {
			const resumed = list === from?.list ? from.id : undefined;
			this.fullReadingAt = { list, id: resumed };
			// A list this poll read whole already (the in-flight lists, 2,000 or fewer).
			const read = this.cursors.get(list);
			if (read?.ended && read.met) continue;
			if (pages >= FULL_READING_PAGES) return;
			const start = this.fullReadingStart(list, resumed);
			// Within the first page, the reading goes on after it (asked already).
			if (start.offset > MAX_PAGE_SIZE || resumed !== undefined) this.cursors.set(list, start);
			await this.read(list, (_, page) => {
				const last = page.records.at(-1);
				if (last) this.fullReadingAt = { list, id: Number(last.id) };
				return ++pages < FULL_READING_PAGES;
			});
			const cursor = await this.cursor(list);
			// Two pages that did not meet (records left the list faster than the reading went back),
			// or an empty page: the list is read again from its start at the next poll.
			if (!cursor.met) this.fullReadingAt = { list };
			if (!cursor.met || !cursor.ended) return;
		}
		this.fullReadingAt = undefined;
		if (this.newFits()) await this.readAllToTop();
		await lookUpGone(this.search);
	}

	/**
	 * Where the full reading of `list` begins: where the members below the mark begin (after the
	 * ones above it and the records the picture does not know: a bulk send counted, not read, as
	 * the API counts them now, since n8n may not have stored the poll that counted them), or after
	 * the record `after` where a poll before stopped.
	 */
	private fullReadingStart(list: StatusList, after?: number): Cursor {
		const { picture } = this.search.findings;
		const above = picture.membersOf(list).filter((id) => id > (after ?? picture.marks.top));
		const unknown = Math.max(0, this.search.observed[list] - picture.knownIn(list));
		const offset = Math.max(0, unknown + above.length - (after === undefined ? 1 : 0));
		return { offset, ended: false, met: true, lastId: after };
	}

	/** PENDING and SENT to their end, and where each message that left them went. */
	async readInFlight(): Promise<void> {
		for (const list of ['PENDING', 'SENT'] as const) await this.read(list, () => true);
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
		if (residuals.ALL > 0 && !this.lateSearched) {
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
