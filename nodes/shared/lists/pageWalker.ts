// Reads any list of the API page by page: the last page, read-ahead, snapshots, repeated pages.
import type { JsonObject } from 'n8n-workflow';

// The one page walker: every reading of a list (Get Many of SMS and contacts, the SMS list lookups
// of Get Delivery Status and Send, the trigger's polls) goes page by page through `walkPages`.
//
//   walkPages(read, take, { size, next, parallel, records, repeated, arrivals }) → Promise<void>
//
// - `read({ page, size })` reads one page and gives the answer's `data` (its `content` a list).
// - `take(data, { page, size, last })` is given every page in order; it returns true when no later
//   page is wanted. `last` is the one rule for the last page (`isLastPage`): the API says `last`,
//   the page number reaches `totalPages`, the records reach `totalElements`, or the page is empty,
//   or shorter than asked (unless the API says it is not the last). The walk ends at the first
//   page that is last or taken as enough, so a server that never says `last` cannot keep it going.
// - Pages are page 1, 2, 3… at `size`, or what `next(previous)` says (pages of other sizes, as the
//   trigger's overlapping pages).
// - `parallel()` (default 1; a limiter's window): when above 1, and the first page gives
//   `totalPages` or `totalElements`, the pages after it up to the last those totals (and
//   `records`, the most records wanted) call for are read that many at a time, and still taken in
//   order; no page is ever left running behind the walk, and no more than `parallel() - 1` are
//   asked past the one that ends it. Read-ahead is for pages of one size (without `next`).
// - `repeated(at)`: the error the walk ends with when REPEATS pages in a row hold only records it
//   has already taken (by id): an API, or a cache in front of it, that ignores the page asked
//   for would otherwise keep a walk going for ever.
// - `arrivals` ('first' or 'last'): where records that arrive while the list is read land in its
//   order ('first': newest first, as the SMS list by default and the contact list). Each record
//   that was listed when the reading began is given to `take` once, in the list's order, and the
//   reading ends, whatever the rate of arrivals:
//   - 'first' (FollowingWalk): with or without totals, nothing is inferred from a count (a
//     record listed late anywhere raises it as an arrival would). Each page is asked to start just
//     before the record given last, where the pages so far put it, and the records after it are
//     the next ones (see FollowingWalk).
//   - 'last', with `totalElements` on the first page (snapshot): the reading ends when as many
//     records as the first page counted were given; pages with nothing new count towards
//     `repeated` only when the count did not change. Without totals: page by page.

interface PageMetadata {
	last?: unknown;
	totalPages?: unknown;
	totalElements?: unknown;
}

/** The SMS list puts page metadata under `pagination`, the contact list beside `content`. */
function pageMetadata(data: JsonObject): PageMetadata {
	const nested = data.pagination;
	return nested && typeof nested === 'object' && !Array.isArray(nested)
		? (nested as PageMetadata)
		: (data as PageMetadata);
}

/** A page of a list: its number, and the page size it is asked at. */
export interface PageAt {
	page: number;
	size: number;
}

export type PageRead = (at: PageAt) => Promise<JsonObject>;

/** Takes one page, in order; true when no later page is wanted. */
type PageTake = (data: JsonObject, at: PageAt & { last: boolean }) => boolean;

export interface WalkOptions {
	/** The size of the first page (and of every page, without `next`). */
	size: number;
	/** The page after `previous`; default: the next number, at the same size. */
	next?: (previous: PageAt) => PageAt;
	/** Pages in flight at once, once the first page says how many there are (default 1). */
	parallel?: () => number;
	/** The most records wanted: no page past the one that holds them is read ahead. */
	records?: number;
	/** The error when pages repeat what the walk has taken (see the top of this file). */
	repeated: (at: PageAt) => Error;
	/** Where records that arrive during the reading land: a snapshot walk (see the top). */
	arrivals?: 'first' | 'last';
}

/** Pages in a row with no record the walk had not taken that end it: more than any overlap. */
const REPEATS = 3;

/** What a record of a list is known by: its id, or the record itself when it has none. */
export function recordKey(record: unknown): string {
	const id = record !== null && typeof record === 'object' ? (record as JsonObject).id : undefined;
	return id === undefined ? JSON.stringify(record) : String(id);
}

/** A count the API gave, if it gave one. */
const count = (value: unknown) =>
	typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/**
 * The one rule for the last page of a list. `reached`: how many records of the list lie up to
 * the end of this page.
 */
export function isLastPage(data: JsonObject, { page, size }: PageAt, reached: number): boolean {
	const content = data.content as unknown[];
	const { last, totalPages, totalElements } = pageMetadata(data);
	const pages = count(totalPages);
	const elements = count(totalElements);
	return (
		content.length === 0 ||
		last === true ||
		(pages !== undefined && page >= pages) ||
		(elements !== undefined && reached >= elements) ||
		(content.length < size && last !== false)
	);
}

/**
 * How many pages the list has, by a page's `totalPages` or `totalElements`, in pages of `served`
 * records (what the API serves, which may be fewer than asked); undefined when it gave neither.
 */
export function pageCount(data: JsonObject, served: number): number | undefined {
	const { totalPages, totalElements } = pageMetadata(data);
	const pages = count(totalPages);
	const elements = count(totalElements);
	if (pages === undefined && elements === undefined) return undefined;
	return Math.min(
		pages ?? Infinity,
		elements === undefined ? Infinity : Math.ceil(elements / Math.max(1, served)),
	);
}

/**
 * How a walk takes each page (true when it ends the walk), which page it reads next, and whether
 * the list has moved since the reading began (pages read ahead by number would miss it).
 */
interface WalkStrategy {
	taken(data: JsonObject, at: PageAt): boolean;
	following(at: PageAt): PageAt;
	moved(): boolean;
}

/** The walk page by page: every page at `size` (or as `next` says), each record key once. */
function pageByPage(take: PageTake, { next, repeated }: WalkOptions): WalkStrategy {
	// Records of the list up to the end of the pages taken: by count for pages of one size (a
	// server may serve fewer than asked), by position for pages of several sizes.
	let seen = 0;
	const keys = new Set<string>();
	let repeats = 0;
	return {
		taken(data, at) {
			const content = data.content as unknown[];
			const before = keys.size;
			for (const record of content) keys.add(recordKey(record));
			repeats = content.length > 0 && keys.size === before ? repeats + 1 : 0;
			if (repeats >= REPEATS) throw repeated(at);
			seen = next ? (at.page - 1) * at.size + content.length : seen + content.length;
			const last = isLastPage(data, at, seen);
			return take(data, { ...at, last }) || last;
		},
		following: next ?? (({ page, size }) => ({ page: page + 1, size })),
		moved: () => false,
	};
}

/**
 * Where the records not given yet begin on a page of a snapshot walk: after the last record it
 * has given already (arrivals on a 'last' list come after the snapshot's records), or, on a page
 * with none of them, where the page's place in the snapshot (`start`) puts the next record.
 * Undefined when the page lies past it.
 */
function firstNewRecordAt(known: boolean[], start: number, given: number): number | undefined {
	const anchor = known.lastIndexOf(true);
	if (anchor >= 0) return anchor + 1;
	return start <= given ? given - start : undefined;
}

/**
 * The snapshot walk of a list whose new records land last (`arrivals: 'last'`, see the top of
 * this file). `total`: the records of the list when it began; `span`: how many records a page
 * holds, as the server serves them.
 */
function snapshot(total: number, span: number, take: PageTake, options: WalkOptions): WalkStrategy {
	let given = 0;
	let lastTotal = total;
	let repeats = 0;
	const keys = new Set<string>();
	return {
		taken(data, at) {
			const now = count(pageMetadata(data).totalElements) ?? lastTotal;
			const grew = now !== lastTotal;
			lastTotal = now;
			const content = data.content as unknown[];
			const from = firstNewRecordAt(
				content.map((record) => keys.has(recordKey(record))),
				(at.page - 1) * span,
				given,
			);
			const newRecords: unknown[] = [];
			for (const record of from === undefined ? [] : content.slice(from)) {
				const key = recordKey(record);
				if (given >= total || keys.has(key)) continue;
				keys.add(key);
				newRecords.push(record);
				given++;
			}
			repeats = newRecords.length === 0 && content.length > 0 && !grew ? repeats + 1 : 0;
			if (repeats >= REPEATS) throw options.repeated(at);
			const reached = (at.page - 1) * span + content.length;
			const last = given >= total || (from !== undefined && isLastPage(data, at, reached));
			return take({ ...data, content: newRecords } as JsonObject, { ...at, last }) || last;
		},
		following: ({ size }) => ({ page: Math.floor(given / span) + 1, size }),
		moved: () => lastTotal !== total,
	};
}

/** The smallest page a following walk asks for when it goes on from a place in the list. */
const MIN_PAGE_SIZE = 50;

/**
 * The page that starts at or before `from` and reaches furthest, at a size from MIN_PAGE_SIZE (or
 * `size` when smaller) to `size`: pages are numbered by the size asked for, so a reading that goes
 * on from any place still reads at least half a page more.
 */
function pageFrom(from: number, size: number): PageAt {
	let best = { page: 1, size, reach: size };
	for (let pageSize = size; pageSize >= Math.min(MIN_PAGE_SIZE, size); pageSize--) {
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
 * it and no record moved (pages read ahead by number, `parallel`), a server that serves fewer
 * records than asked at the end of its page, a short page that says it is not the last.
 */
class FollowingWalk implements WalkStrategy {
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
	private firstSignature = '';
	private repeats = 0;
	/** Records per page as the server numbers them: fewer than asked when it caps its pages. */
	private span: number;

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
		const start = (at.page - 1) * (this.span < size ? this.span : at.size);
		const total = count(pageMetadata(data).totalElements);
		if (total !== undefined && this.lastTotal !== undefined) {
			this.rate = Math.max(0, total - this.lastTotal);
		}
		this.lastTotal = total ?? this.lastTotal;
		const ranks = content.map((record) => this.rank.get(recordKey(record)));
		let lastGiven = ranks.length - 1;
		while (lastGiven >= 0 && ranks[lastGiven] === undefined) lastGiven--;
		const adjoining = lastGiven < 0 && this.adjoins(start, total);
		this.adjoiningAt = undefined;
		if (lastGiven < 0 && !adjoining) return this.placed(content, start, at);
		if (lastGiven >= 0)
			this.anchorAt(start + lastGiven + (this.rank.size - 1 - ranks[lastGiven]!), total);
		const firstGiven = lastGiven < 0 ? -1 : ranks.findIndex((key) => key !== undefined);
		const taking = this.given(content, firstGiven, start);
		this.backOff = 0;
		this.checkProgress(content, start, taking.length, at);
		const last =
			this.rank.size >= (this.options.records ?? Infinity) ||
			isLastPage(data, at, start + content.length);
		// A short page that says it is not the last: the page after it, as the API numbers it.
		if (!last && content.length < at.size && this.span === size) this.adjoiningAt = start + at.size;
		return this.take({ ...data, content: taking } as JsonObject, { ...at, last }) || last;
	}

	/** Whether a page with no record given before continues the record given last. */
	private adjoins(start: number, total: number | undefined): boolean {
		const steady = this.firstTotal !== undefined && total === this.firstTotal && !this.hasMoved;
		return (
			start === this.adjoiningAt || (steady && start === this.anchor.at + 1) || this.requests === 1
		);
	}

	/**
	 * A page that holds no record given before and does not continue them: among the arrivals
	 * (every id newer than those given: the records given stand below it, past the arrivals whose
	 * ids lie between, when ids count up one by one), or past the records given (missed).
	 */
	private placed(content: unknown[], start: number, at: PageAt): false {
		const ids = content.map(numericId);
		if (content.length === 0 || !ids.every((id) => id !== undefined && id > this.newestId)) {
			this.backOff = Math.max(BACK_OFF, this.backOff * 2);
			this.hasMoved = true;
			if (++this.idle >= IDLE) throw this.options.repeated(at);
			return false;
		}
		const between = Math.max(0, Math.min(...(ids as number[])) - this.newestId - 1);
		this.anchor = {
			at: start + content.length + between + this.rank.size - 1,
			request: this.requests,
		};
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
	 * Ends the walk with `repeated` on a page past the first that holds just the first page while
	 * the count did not grow (an API that ignores the page asked for: arrivals would grow it), or
	 * after IDLE pages in a row that gave nothing.
	 */
	private checkProgress(content: unknown[], start: number, taken: number, at: PageAt): void {
		const signature = content.map(recordKey).join();
		if (this.requests === 1) this.firstSignature = signature;
		const same = start > 0 && signature === this.firstSignature && this.rate === 0;
		this.repeats = same ? this.repeats + 1 : 0;
		if (this.repeats >= REPEATS) throw this.options.repeated(at);
		this.idle = taken > 0 ? 0 : this.idle + 1;
		if (this.idle >= IDLE) throw this.options.repeated(at);
	}

	following({ page, size: asked }: PageAt): PageAt {
		const { size } = this.options;
		if (this.adjoiningAt !== undefined) return { page: page + 1, size: asked };
		const at = this.anchor.at + this.rate * (this.requests + 1 - this.anchor.request);
		const from = Math.max(0, at - 1 - this.backOff);
		// A server that caps its pages numbers them by its own size: the page that holds the
		// record given last, or the next one when it ends there.
		if (this.span < size) {
			const { span } = this;
			const place = from + 1;
			if ((place + 1) % span !== 0) return { page: Math.floor(place / span) + 1, size };
			this.adjoiningAt = place + 1;
			return { page: (place + 1) / span + 1, size };
		}
		// While nothing moved, pages of the full size follow each other.
		if (!this.moved() && this.backOff === 0 && (at + 1) % size === 0) {
			this.adjoiningAt = at + 1;
			return { page: (at + 1) / size + 1, size };
		}
		return pageFrom(from, size);
	}

	moved(): boolean {
		return this.firstTotal === undefined || this.lastTotal !== this.firstTotal || this.hasMoved;
	}
}

/**
 * How a walk reads, from its first page: following the list where new records land first (the
 * default orders); a snapshot by the first page's total where they land last; else page by page.
 */
function strategyOf(first: JsonObject, take: PageTake, options: WalkOptions): WalkStrategy {
	const total = count(pageMetadata(first).totalElements);
	if (options.arrivals === 'first' && !options.next) {
		return new FollowingWalk(take, options, total);
	}
	if (options.arrivals === undefined || options.next || total === undefined) {
		return pageByPage(take, options);
	}
	const served = (first.content as unknown[]).length;
	const short = served > 0 && served < options.size && total > served;
	return snapshot(total, short ? served : options.size, take, options);
}

/** A page read ahead of its turn: its data or its error, kept until its turn comes. */
type Settled = { data: JsonObject } | { error: unknown };

/**
 * Reads pages `from` to `to`, `parallel()` at a time, and has `strategy` take them in order; true
 * when one ended the walk. Once the list has moved, it asks no further page: the walk goes on
 * from the next record it needs. No page is left running behind it.
 */
async function readAhead(
	read: PageRead,
	strategy: WalkStrategy,
	{ from, to, size, parallel }: { from: number; to: number; size: number; parallel: () => number },
): Promise<boolean> {
	const ahead = new Map<number, Promise<Settled>>();
	let asked = from;
	try {
		for (let page = from; page <= to; page++) {
			if (strategy.moved() && !ahead.has(page)) return false;
			for (; asked <= to && ahead.size < parallel() && !strategy.moved(); asked++) {
				ahead.set(
					asked,
					read({ page: asked, size }).then(
						(data) => ({ data }),
						(error: unknown) => ({ error }),
					),
				);
			}
			const settled = await ahead.get(page)!;
			ahead.delete(page);
			if ('error' in settled) throw settled.error;
			if (strategy.taken(settled.data, { page, size })) return true;
		}
		return false;
	} finally {
		// Pages read past the end are not used, but nothing is left running behind the walk.
		await Promise.all(ahead.values());
	}
}

/** The one page walker (see the top of this file). */
export async function walkPages(
	read: PageRead,
	take: PageTake,
	options: WalkOptions,
): Promise<void> {
	const { size, next, parallel = () => 1, records = Infinity } = options;
	let at: PageAt = { page: 1, size };
	const first = await read(at);
	const strategy = strategyOf(first, take, options);
	if (strategy.taken(first, at)) return;
	const served = (first.content as unknown[]).length;
	const counted = next === undefined && parallel() > 1 ? pageCount(first, served) : undefined;
	const planned =
		counted === undefined ? undefined : Math.min(counted, Math.ceil(records / Math.max(1, served)));
	if (planned !== undefined && planned >= 2) {
		if (await readAhead(read, strategy, { from: 2, to: planned, size, parallel })) return;
		at = { page: planned, size };
	}
	for (;;) {
		at = strategy.following(at);
		if (strategy.taken(await read(at), at)) return;
	}
}
