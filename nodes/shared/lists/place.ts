// Where a reading of an ordered list stands, the one rule by which it takes a page, and the page
// it asks next (pageWalker.ts tells how a reading goes).
import type { JsonObject } from 'n8n-workflow';

import {
	BACK_OFF,
	count,
	firstPageEcho,
	isLastPage,
	pageFrom,
	pageMetadata,
	recordKey,
	REPEATS,
	type PageAt,
	type RepeatedPages,
} from './pages';

/** How an ordered list is read (pageWalker.ts). */
interface PlaceOptions {
	/** The largest page asked for. */
	size: number;
	/** The most records wanted. */
	records: number;
	repeated: RepeatedPages;
	/** New records land first (newest first) or last (oldest first). */
	newestFirst: boolean;
	/** The list is sorted by id: a page whose first id follows the last one given shows its place. */
	byId: boolean;
	/**
	 * A record's place in the list's order, as a number (its id, its time), when it gives one:
	 * only to tell a page of records that arrived above the place from one past it.
	 */
	orderOf: (record: unknown) => number | undefined;
	/** Where the records to give end (oldest first: the last record when the reading began). */
	end?: ReadingEnd;
}

/** Where a reading ends before the list does: before `past` records, or after a `last` one. */
export interface ReadingEnd {
	past(record: unknown): boolean;
	last(record: unknown): boolean;
}

/**
 * A page as it was read: on a server of fixed windows, the window after the place, held until a
 * read of the window that ends at the place shows that nothing moved.
 */
interface HeldPage {
	data: JsonObject;
	at: PageAt;
	start: number;
}

/** Pages in a row that give no record before the reading ends with `repeated`. */
const IDLE = 24;

/** A record's id as a whole number, when it has one. */
function idOf(record: unknown): number | undefined {
	const id = Number((record as JsonObject | null)?.id);
	return Number.isSafeInteger(id) ? id : undefined;
}

/**
 * The records of a page past a place: in a list whose order does not change, a page that holds a
 * record already given shows the place (the records after the last such one are the next ones,
 * or records listed late below the place); so does, in a list sorted by id, a page whose first id
 * is the one after the last id given (no record can stand between them). Nothing else places a
 * page: not a count, not a guess of the arrivals. The state is the record given last and where
 * the pages put it (`at`), which decides what is asked next, never what is taken.
 */
export class Place {
	/** Each record given, by key: its rank in the order given. */
	private readonly given = new Map<string, number>();
	/** The id the reading reached (the lowest given newest first, the highest oldest first). */
	private reachedId: number | undefined;
	/** The furthest order value given towards the arrivals (newest first: the newest). */
	private newest: number | undefined;
	/** Whether every record given so far had the id after the one before (pages may then adjoin). */
	private dense: boolean;
	/** Where the record given last stands, by the answer that showed it, and the count then. */
	private at = -1;
	private shownAt = 0;
	private totalAtShown: number | undefined;
	private answers = 0;
	private lastTotal: number | undefined;
	/** Records arriving above the place per answer, by the counts or by its moves. */
	private rate = 0;
	/** Searching: records back from where the place was expected (doubled while pages miss). */
	private backOff = 0;
	/** Searching on past arrivals: how far below a page of them the place is guessed (doubling). */
	private ahead = 0;
	private idle = 0;
	private repeats = 0;
	private readonly echoes = firstPageEcho();
	/** The most records the server serves per page (fewer than asked when it caps them). */
	private span: number;
	/** The size of a server's fixed windows, when it serves them whatever size is asked. */
	private windows: number | undefined;
	/** Fixed windows, a list not by id: the window after the place, until confirmed. */
	private held: HeldPage | undefined;
	/** Whether the page that showed the place last held fewer records than asked (not the last). */
	private short = false;
	/** Whether records were seen to arrive above the place. */
	private arrived = false;
	/** Whether the list was seen to move (then no page is read ahead). */
	moved = false;
	private ended = false;

	constructor(private readonly options: PlaceOptions) {
		this.span = options.size;
		this.dense = options.byId;
	}

	/** The records of this page to give, in order (none when it does not show its place). */
	take(data: JsonObject, at: PageAt): { records: unknown[]; last: boolean } {
		this.answers++;
		const content = data.content as unknown[];
		this.learnServer(data, at);
		const start = (at.page - 1) * (this.windows ?? Math.min(at.size, this.span));
		this.noteTotal(count(pageMetadata(data).totalElements));
		// A page past the first that shows page 1 again places nothing: a cache in front of the
		// API that ignores the page asked for (with arrivals seen, a list moved that far).
		const echo = this.echoes(content, at.page > 1) && !this.arrived;
		this.repeats = echo ? this.repeats + 1 : 0;
		if (this.repeats >= REPEATS) throw this.options.repeated(at);
		if (echo) return { records: [], last: this.stillIdle(at) };
		// An empty page just after the place, or past a short one, ends a list that never says
		// `last` and gives no count.
		if (content.length === 0 && this.given.size > 0) {
			if (start === this.at + 1 || (this.short && start > this.at))
				return { records: [], last: true };
		}
		const shown = this.lastGiven(content);
		const held = this.held;
		this.held = undefined;
		if (held && this.confirms(content, start, shown, held)) return this.taken(held);
		if (this.given.size > 0 && shown < 0 && !this.adjoins(content)) {
			if (this.windows !== undefined && !held && start === this.at + 1 && content.length > 0) {
				this.held = { data, at, start };
				return { records: [], last: false };
			}
			this.search(content, start);
			return { records: [], last: this.stillIdle(at) };
		}
		return this.taken({ data, at, start }, shown);
	}

	/** The records of a page that shows its place, after the last given one (`shown`). */
	private taken({ data, at, start }: HeldPage, shown = -1): { records: unknown[]; last: boolean } {
		const content = data.content as unknown[];
		const records = this.give(content.slice(shown + 1), content, start, shown);
		const full = this.given.size >= this.options.records || this.ended;
		const last = full || isLastPage(data, at, start + content.length);
		this.short = content.length < Math.min(at.size, this.span);
		if (records.length === 0 && !last) this.stillIdle(at);
		return { records, last };
	}

	/**
	 * Whether a page read after the `held` window shows the record given last still just above it:
	 * then nothing moved between, and the held window follows it.
	 */
	private confirms(content: unknown[], start: number, shown: number, held: HeldPage): boolean {
		if (shown < 0 || shown !== content.length - 1) return false;
		const rank = this.given.get(recordKey(content[shown]));
		return rank === this.given.size - 1 && start + shown === this.at && held.start === this.at + 1;
	}

	/**
	 * A server that serves fewer records than asked on its first page that is not the last (it caps
	 * its pages), or its own windows whatever is asked.
	 */
	private learnServer(data: JsonObject, at: PageAt): void {
		const served = (data.content as unknown[]).length;
		if (served > at.size) [this.windows, this.span] = [served, served];
		else if (this.answers === 1 && served < at.size && !isLastPage(data, at, served)) {
			this.span = served;
		}
	}

	/** The arrivals per answer the counts show (a count decides what is asked, never what is taken). */
	private noteTotal(total: number | undefined): void {
		// Oldest first, records arrive past the place: a count says nothing of where it stands.
		if (total === undefined || !this.options.newestFirst) return;
		if (this.lastTotal !== undefined) {
			this.rate = Math.max(0, total - this.lastTotal);
			if (total !== this.lastTotal) this.moved = true;
			if (total > this.lastTotal) this.arrived = true;
		}
		this.lastTotal = total;
	}

	/** The index of the last record of the page that was given already, or -1. */
	private lastGiven(content: unknown[]): number {
		for (let k = content.length - 1; k >= 0; k--) {
			if (this.given.has(recordKey(content[k]))) return k;
		}
		return -1;
	}

	/** Whether, sorted by id, the page's ids run on from the id the reading reached. */
	private adjoins(content: unknown[]): boolean {
		if (!this.options.byId || this.reachedId === undefined || content.length === 0) return false;
		const step = this.options.newestFirst ? -1 : 1;
		let previous = this.reachedId;
		for (const record of content) {
			const id = idOf(record);
			if (id === undefined || (id - previous) * step <= 0) return false;
			if (previous === this.reachedId && id !== previous + step) return false;
			previous = id;
		}
		return true;
	}

	/**
	 * Gives the page's records after the last one given before (`shown`; -1: the page adjoins),
	 * up to where the reading ends, and puts the place at the record given last.
	 */
	private give(after: unknown[], content: unknown[], start: number, shown: number): unknown[] {
		// Where the record given last stands now: as far below the last one shown as it was given
		// after it (or just above a page that adjoins it).
		const rank = shown < 0 ? undefined : this.given.get(recordKey(content[shown]));
		this.placedAt(rank === undefined ? start - 1 : start + shown + (this.given.size - 1 - rank));
		const taking: unknown[] = [];
		for (const record of after) {
			if (this.given.size >= this.options.records) break;
			if (this.options.end?.past(record)) {
				this.ended = true;
				break;
			}
			if (this.given.has(recordKey(record))) continue;
			taking.push(record);
			this.record(record);
			if (this.options.end?.last(record)) {
				this.ended = true;
				break;
			}
		}
		if (taking.length > 0) {
			this.at = start + content.lastIndexOf(taking[taking.length - 1]);
			this.idle = 0;
		}
		[this.backOff, this.ahead] = [0, 0];
		return taking;
	}

	/**
	 * The record given last shown at `place`: the list moved when that is not where it was
	 * expected; without counts, how far it moved tells the arrivals per answer.
	 */
	private placedAt(place: number): void {
		if (this.given.size > 0) {
			if (place !== this.at + this.arrivals(this.answers)) this.moved = true;
			if (this.lastTotal === undefined && this.answers > this.shownAt) {
				this.rate = Math.max(0, Math.round((place - this.at) / (this.answers - this.shownAt)));
			}
			if (place > this.at) this.arrived = true;
		}
		this.at = place;
		this.shownAt = this.answers;
		this.totalAtShown = this.lastTotal;
	}

	/** Keeps a record given: its rank, the id reached, whether ids run on, the newest order value. */
	private record(record: unknown): void {
		const id = idOf(record);
		const step = this.options.newestFirst ? -1 : 1;
		if (this.dense && this.reachedId !== undefined && id !== this.reachedId + step) {
			this.dense = false;
		}
		if (id !== undefined && (this.reachedId === undefined || (id - this.reachedId) * step > 0)) {
			this.reachedId = id;
		}
		if (id === undefined) this.dense = false;
		const order = this.options.orderOf(record);
		if (order !== undefined) this.newest = Math.max(this.newest ?? -Infinity, order);
		this.given.set(recordKey(record), this.given.size);
	}

	/**
	 * A page that does not show its place: newest first, one whose records all stand above every
	 * record given (arrivals) puts the place below it, past the records whose order lies between;
	 * any other page lies past the place, which is looked for further back (doubling).
	 */
	private search(content: unknown[], start: number): void {
		this.moved = true;
		const orders = content.map((record) => this.options.orderOf(record));
		const newest = this.newest;
		const above =
			this.options.newestFirst &&
			newest !== undefined &&
			content.length > 0 &&
			orders.every((order) => order !== undefined && order > newest);
		if (!above) {
			// Past the place: without counts, fewer arrived than the rate guessed (records come in
			// bursts); the place is looked for back from where it was last shown.
			if (this.lastTotal === undefined) this.rate = 0;
			this.backOff = Math.max(BACK_OFF, this.backOff * 2);
			return;
		}
		// The records given stand below the page, past those that arrived after the ones on it:
		// sorted by id, at most as many as the ids between; else as many as the counts grew, or,
		// without counts, a guess that doubles.
		const below = start + content.length + this.given.size - 1;
		const lowest = Math.min(...(orders as number[]));
		this.ahead = Math.max(this.options.size, this.ahead * 2);
		let gap =
			this.lastTotal === undefined ? this.ahead : this.at + this.arrivals(this.answers) - below;
		if (this.options.byId) gap = Math.min(lowest - newest - 1, this.rate || Infinity);
		this.placedAt(below + Math.max(0, gap));
		this.backOff = 0;
	}

	/** Counts a page that gave nothing; IDLE in a row end the reading. Never the last page. */
	private stillIdle(at: PageAt): false {
		if (++this.idle < IDLE) return false;
		const size = this.windows ?? Math.min(at.size, this.span);
		throw this.options.repeated(at, this.arrived ? { outpacedBy: size } : { windowsOf: size });
	}

	/** Records expected to arrive above the place from the answer that showed it to `answer`. */
	private arrivals(answer: number): number {
		if (!this.options.newestFirst) return 0;
		if (this.lastTotal !== undefined && this.totalAtShown !== undefined) {
			return this.lastTotal - this.totalAtShown + this.rate * (answer - this.answers);
		}
		return this.rate * (answer - this.shownAt);
	}

	/**
	 * The page to ask next: one that overlaps the place, or on a dense list sorted by id adjoins it;
	 * with a window held, the window that ends at the place, read again.
	 */
	next(): PageAt {
		if (this.held && this.windows !== undefined) {
			return { page: Math.floor(this.at / this.windows) + 1, size: this.options.size };
		}
		const expected = this.at + this.arrivals(this.answers + 1);
		return this.pageFrom(expected, this.backOff);
	}

	/**
	 * The page that starts at or before the record after `place`: at `place` (overlapping it), or
	 * on a dense list sorted by id, after a short page or on a server of fixed windows, just after
	 * it.
	 */
	private pageFrom(place: number, backOff: number): PageAt {
		// A window that starts just after the place is held until the place is shown unchanged.
		const adjoin = (this.dense || this.short || this.windows !== undefined) && backOff === 0;
		const from = Math.max(0, place + (adjoin ? 1 : 0) - backOff);
		if (this.windows !== undefined) {
			return { page: Math.floor(from / this.windows) + 1, size: this.options.size };
		}
		return pageFrom(from, Math.min(this.options.size, this.span));
	}

	/**
	 * The pages after the place up to the `total`th record, or the records wanted, as a list that
	 * stands still puts them: pages read ahead, each still taken only where it shows its place.
	 */
	*plan(total: number): Generator<PageAt> {
		const to = Math.min(total, this.options.records);
		for (let place = this.at; place + 1 < to; ) {
			const at = this.pageFrom(place, 0);
			const reach = at.page * (this.windows ?? at.size) - 1;
			if (reach <= place) return;
			yield at;
			place = reach;
		}
	}
}
