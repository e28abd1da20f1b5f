// The following walk of a newest-first list: each page asked from the record given last.
import type { JsonObject } from 'n8n-workflow';

import {
	count,
	firstPageEcho,
	isLastPage,
	pageMetadata,
	recordKey,
	REPEATS,
	type PageAt,
	type PageTake,
	type WalkOptions,
	type WalkStrategy,
} from './pages';

/** The smallest page a following walk asks for when it goes on from a place in the list. */
const MIN_PAGE_SIZE = 50;

/**
 * The page that starts at or before `from` and reaches furthest, at a size from MIN_PAGE_SIZE (or
 * half of `size` when smaller) to `size`: pages are numbered by the size asked for, so a reading
 * that goes on from any place still reads at least half a page more.
 */
function pageFrom(from: number, size: number): PageAt {
	let best = { page: 1, size, reach: size };
	const smallest = Math.min(MIN_PAGE_SIZE, Math.ceil(size / 2));
	for (let pageSize = size; pageSize >= smallest; pageSize--) {
		const page = Math.floor(from / pageSize) + 1;
		if (page * pageSize > best.reach) best = { page, size: pageSize, reach: page * pageSize };
	}
	return { page: best.page, size: best.size };
}

/** Records a reading that lost its place asks again, back from where it was (doubled each time). */
const BACK_OFF = 25;

/** A record's id as a number, when it has one. */
function numericId(record: unknown): number | undefined {
	const id = Number((record as JsonObject | null)?.id);
	return Number.isFinite(id) ? id : undefined;
}

/** Pages in a row that give no record and place none that end a following walk. */
const IDLE = 24;

/**
 * The walk of a list whose new records land first (`arrivals: 'first'`: newest first, as the
 * SMS list by id or sentAt descending and the contact list): each record of the list as it was at
 * the first page given once, in its order, however many arrive per request, with records listed
 * late meanwhile, with or without totals. Nothing is inferred from a count: a page is asked to
 * start at the record given last (where the last pages put it: its place, and the arrivals per
 * request that the totals or its moves showed), and the records on it after the first one given
 * before are the next ones (one listed late among them too). A page that holds none given before
 * lies among the arrivals (every id newer than those given: the next is asked past it, by the ids
 * between) or past the records given (asked again from further back, doubling). Pages follow
 * each other without overlap only where nothing can have moved: the count as the first page gave
 * it and no record moved (pages read ahead by number, `parallel`), a short page that says it is
 * not the last, and on a server that serves pages of its own size whatever is asked (fixed
 * windows), the window after the one that ends at the record given last when no arrival is
 * expected: arrivals would show on it, fewer arrivals than guessed would skip records. A server
 * that serves at most `span` records is asked pages of that size or smaller, which overlap.
 */
export class FollowingWalk implements WalkStrategy {
	/** Each record given, by key: its rank in the order given. */
	private readonly rank = new Map<string, number>();
	private newestId = -Infinity;
	private requests = 0;
	/** Where the record given last stood, as the page of which request showed it. */
	private anchor = { at: -1, request: 0 };
	/** Records that arrive above it per request, by the totals or by its moves. */
	private rate = 0;
	private lastTotal: number | undefined;
	/** Whether any record was seen to move since the first page. */
	private hasMoved = false;
	/** Records back from the estimate the next page starts (doubling while pages miss). */
	private backOff = 0;
	/** Where a page asked without overlap starts: it continues the record given last. */
	private adjoiningAt: number | undefined;
	private idle = 0;
	private readonly echoes = firstPageEcho();
	private repeats = 0;
	/** The most records the server serves per page: fewer than asked when it caps its pages. */
	private span: number;
	/**
	 * Whether the server serves `span` records per page whatever size is asked (it numbers its
	 * pages by that size): a page then starts only where its windows do.
	 */
	private fixedWindows = false;
	/** Whether the page asked last is the window where the record given last stands, at its end. */
	private atWindowEnd = false;

	constructor(
		private readonly take: PageTake,
		private readonly options: WalkOptions,
		private readonly firstTotal?: number,
	) {
		this.span = options.size;
		this.lastTotal = firstTotal;
	}

	taken(data: JsonObject, at: PageAt): boolean {
		const { size } = this.options;
		this.requests++;
		const content = data.content as unknown[];
		if (at.page === 1 && this.requests === 1 && content.length > 0 && content.length < size) {
			if (!isLastPage(data, at, content.length)) this.span = content.length;
		}
		if (content.length > at.size) [this.fixedWindows, this.span] = [true, content.length];
		const start = (at.page - 1) * (this.fixedWindows ? this.span : Math.min(at.size, this.span));
		const total = count(pageMetadata(data).totalElements);
		if (total !== undefined && this.lastTotal !== undefined) {
			this.rate = Math.max(0, total - this.lastTotal);
		}
		this.lastTotal = total ?? this.lastTotal;
		const ranks = content.map((record) => this.rank.get(recordKey(record)));
		let lastGiven = ranks.length - 1;
		while (lastGiven >= 0 && ranks[lastGiven] === undefined) lastGiven--;
		const adjoining = lastGiven < 0 && this.adjoins(content, start, total);
		this.adjoiningAt = undefined;
		if (lastGiven < 0 && !adjoining) return this.placed(content, start, at, total);
		if (lastGiven >= 0)
			this.anchorAt(start + lastGiven + (this.rank.size - 1 - ranks[lastGiven]!), total);
		const firstGiven = lastGiven < 0 ? -1 : ranks.findIndex((key) => key !== undefined);
		const taking = this.given(content, firstGiven, start);
		this.backOff = 0;
		const echo = this.checkProgress(content, start, taking.length, at);
		const last =
			this.rank.size >= (this.options.records ?? Infinity) ||
			(!echo && isLastPage(data, at, start + content.length));
		// A short page that says it is not the last: the page after it, as the API numbers it.
		if (!last && content.length < Math.min(at.size, this.span)) this.adjoiningAt = start + at.size;
		return this.take({ ...data, content: taking } as JsonObject, { ...at, last }) || last;
	}

	/**
	 * Whether a page with no record given before continues the record given last: never one with a
	 * record newer than every record given (an arrival; the list moved past the page asked for).
	 */
	private adjoins(content: unknown[], start: number, total: number | undefined): boolean {
		if (this.requests === 1) return true;
		if (content.some((record) => (numericId(record) ?? -Infinity) > this.newestId)) return false;
		const steady = this.firstTotal !== undefined && total === this.firstTotal && !this.hasMoved;
		return start === this.adjoiningAt || (steady && start === this.anchor.at + 1);
	}

	/**
	 * A page that holds no record given before and does not continue them: among the arrivals
	 * (every id newer than those given: the records given stand below it, past the arrivals whose
	 * ids lie between, as many as the rate allows), or past the records given (missed).
	 */
	private placed(content: unknown[], start: number, at: PageAt, total: number | undefined): false {
		const ids = content.map(numericId);
		if (content.length === 0 || !ids.every((id) => id !== undefined && id > this.newestId)) {
			this.backOff = Math.max(BACK_OFF, this.backOff * 2);
			this.hasMoved = true;
			if (++this.idle >= IDLE) throw this.stopped(at);
			return false;
		}
		// Ids may count up by more than one: never more between than the arrivals the rate allows.
		const idGap = Math.max(0, Math.min(...(ids as number[])) - this.newestId - 1);
		const arrived = this.rate > 0 ? this.rate * (this.requests - this.anchor.request + 1) : idGap;
		const between = Math.min(idGap, arrived);
		// Pages of arrivals only count as pages that give nothing: an API that serves its live
		// first page for every page asked would otherwise keep the walk going for ever.
		if (++this.idle >= IDLE) throw this.stopped(at);
		this.anchorAt(start + content.length + between + this.rank.size - 1, total);
		this.hasMoved = true;
		this.backOff = 0;
		return false;
	}

	/** Where the record given last stands now; without totals, its moves tell the rate. */
	private anchorAt(place: number, total: number | undefined): void {
		if (place !== this.anchor.at) this.hasMoved = true;
		if (total === undefined && this.requests > this.anchor.request) {
			const moves = (place - this.anchor.at) / (this.requests - this.anchor.request);
			this.rate = Math.max(0, Math.round(moves));
		}
		this.anchor = { at: place, request: this.requests };
	}

	/** The records of the page after the first one given before, not given yet, up to `records`. */
	private given(content: unknown[], firstGiven: number, start: number): unknown[] {
		const fresh = content
			.slice(firstGiven + 1)
			.filter((record) => !this.rank.has(recordKey(record)));
		const taking = fresh.slice(0, Math.max(0, (this.options.records ?? Infinity) - this.rank.size));
		for (const record of taking) {
			this.rank.set(recordKey(record), this.rank.size);
			this.newestId = Math.max(this.newestId, numericId(record) ?? -Infinity);
		}
		if (taking.length > 0) {
			const lastTaken = content.lastIndexOf(taking[taking.length - 1]);
			this.anchor = { at: start + lastTaken, request: this.requests };
		}
		return taking;
	}

	/**
	 * Ends the walk with `repeated` after REPEATS pages in a row past the first that hold just the
	 * first page while the count did not grow (an API that ignores the page asked for: arrivals
	 * would grow it), or after IDLE pages in a row that gave nothing. True on such a page: it is
	 * never the last (`firstPageEcho`).
	 */
	private checkProgress(content: unknown[], start: number, taken: number, at: PageAt): boolean {
		const same = this.echoes(content, start > 0) && this.rate === 0;
		this.repeats = same ? this.repeats + 1 : 0;
		if (this.repeats >= REPEATS) throw this.stopped(at);
		this.idle = taken > 0 ? 0 : this.idle + 1;
		if (this.idle >= IDLE) throw this.stopped(at);
		return same;
	}

	/** The walk's end with `repeated`: outpaced when it waits at a window's end (`window`). */
	private stopped(at: PageAt): Error {
		return this.options.repeated(at, this.atWindowEnd ? this.span : undefined);
	}

	following({ page, size: asked }: PageAt): PageAt {
		this.atWindowEnd = false;
		if (this.adjoiningAt !== undefined) return { page: page + 1, size: asked };
		const at = this.anchor.at + this.rate * (this.requests + 1 - this.anchor.request);
		const from = Math.max(0, at - 1 - this.backOff);
		if (this.fixedWindows) return this.window(from + 1, at === this.anchor.at);
		// Pages of the size the server serves (a server that caps them serves smaller ones as asked).
		const size = Math.min(this.options.size, this.span);
		// While nothing moved, pages of the full size follow each other.
		if (!this.moved() && this.backOff === 0 && (at + 1) % size === 0) {
			this.adjoiningAt = at + 1;
			return { page: (at + 1) / size + 1, size };
		}
		return pageFrom(from, size);
	}

	/**
	 * The server's window that holds `place`, where the record given last is expected; the next
	 * one when it ends there, only if no arrival is expected before the answer (`still`): arrivals
	 * push the record down, which that window then shows, but fewer than expected would let it
	 * start past records not given. Otherwise the window that holds it shows where it stands.
	 */
	private window(place: number, still: boolean): PageAt {
		const { span } = this;
		const { size } = this.options;
		if ((place + 1) % span !== 0 || !still) {
			this.atWindowEnd = (place + 1) % span === 0;
			return { page: Math.floor(place / span) + 1, size };
		}
		this.adjoiningAt = place + 1;
		return { page: (place + 1) / span + 1, size };
	}

	moved(): boolean {
		return this.firstTotal === undefined || this.lastTotal !== this.firstTotal || this.hasMoved;
	}
}
