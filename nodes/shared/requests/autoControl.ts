// Requests in Parallel = Auto: how many requests one credential and host keep in flight at once,
// an AIMD window with slow start, as TCP's congestion control (docs/scale.md says why). The
// limiter (limiter.ts) asks it for the window and tells it what each attempt said about the API.

/** Where Auto starts: the fixed default it replaces. */
export const AUTO_START = 4;
/** The most requests Auto ever keeps in flight for one credential and host. */
export const AUTO_CAP = 32;
/** After a 429 or 503: the window shrinks to this share of what was in flight. */
const REFUSED_FACTOR = 0.7;
/**
 * Refused at a level accepted before (others took the room: n8n workers share no memory), a
 * window shrinks no lower than this: a share of a limit is regained by probing, and from one
 * request at a time probing is slow.
 */
const CROWDED_FLOOR = 2;
/**
 * Below the threshold the window grows by this much per answer (×1.75 per round trip): the
 * doubling of TCP's slow start overshoots a limit by up to a whole window at once.
 */
const START_STEP = 0.75;
/**
 * After a refusal the window climbs back quickly to this share of the level refused: the count in
 * flight here includes answers on their way back, so the API's own count was lower.
 */
const RECOVER_FACTOR = 0.9;
/** At or above the threshold the window grows by one every this many round trips at first... */
const PROBE_ROUNDS = 4;
/**
 * ...once probing is due: a refusal holds every request of the credential for its Retry-After,
 * many round trips, so after one the window probes past the level refused only once this many
 * times the hold went by (a refused probe then costs at most about a ninth of the time), and twice
 * as long after each refused probe.
 */
const PROBE_HOLDS = 8;
/** The longest wait before probing again. */
const MAX_PROBE_WAIT_MS = 10 * 60_000;
/** The hold a refusal is reckoned to cost until one has said (Retry-After's usual 1 s). */
const DEFAULT_HOLD_MS = 1000;
/** After an answer much slower than the fastest seen: the window shrinks to this share. */
const SLOW_FACTOR = 0.9;
/** An answer counts as slow when it takes more than twice the fastest one plus this. */
const SLOW_MARGIN_MS = 100;
/**
 * The fastest answer moves up by this share of every slower one's excess: after a few hundred
 * answers it follows an API that moved further away, not a queue that builds up in a few.
 */
const FASTEST_DRIFT = 0.005;

/** What one attempt said about the API. */
export type Signal = 'accepted' | 'refused' | 'failed';

/** What the control needs to know of an attempt. */
export interface Attempt {
	/** When its request went out (after any hold; the limiter's monotonic clock). */
	startedAt: number;
	/** The control's epoch when it went out: one decrease per window, as TCP does. */
	epoch: number;
	/** Requests in flight with this one when it was given room. */
	inFlight: number;
	/** The window when it was given room. */
	window: number;
}

export class AutoControl {
	/** The window, fractional while it grows in congestion avoidance. */
	private limit = AUTO_START;
	private threshold = Infinity;
	epoch = 0;
	private fastestMs = Infinity;
	/** The fastest refusal seen (0 before the first). */
	private refusedMs = 0;
	private holdMs = DEFAULT_HOLD_MS;
	/** Before this time the window does not grow past the threshold. */
	private probeAt = 0;
	private probeWaitMs = 0;
	/**
	 * The most requests accepted together since the last overshoot. A refusal by crowding leaves
	 * it: the requests given room before it and held by its Retry-After go out at the level they
	 * were given, and a refusal of one of them is crowding still, not an overshoot of the new
	 * window (which would keep a worker at one request for the long probing wait).
	 */
	private proven = 0;
	/**
	 * Windows added per round trip while probing; doubles every round trip until a refusal (past
	 * the cap it only keeps the window at the cap).
	 */
	private growth = 1 / PROBE_ROUNDS;

	/** The requests that may be in flight now. */
	get window(): number {
		return Math.max(1, Math.min(AUTO_CAP, Math.floor(this.limit)));
	}

	/**
	 * The least time between two requests' starts once a refusal was seen: as long as the fastest
	 * refusal took, so that when a limit is reached one request learns it, not every one sent before
	 * its refusal came back (a window of a rate that lets a whole second through at once, then
	 * refuses a burst of answers' successors together). Never more than the window spread over the
	 * fastest answer: the window's own pace is kept.
	 */
	get spacingMs(): number {
		return Math.min(this.refusedMs, this.fastestMs / this.window);
	}

	/** A refusal asked every request to wait `ms`: what the next refusal will cost. */
	held(ms: number, now: number): void {
		this.holdMs = ms;
		if (this.probeAt > now) this.probeAt = now + ms + this.probeWaitMs;
	}

	answered(attempt: Attempt, signal: Signal, now: number): void {
		if (signal === 'failed') return;
		const current = attempt.epoch === this.epoch;
		if (signal === 'refused') {
			const tookMs = now - attempt.startedAt;
			this.refusedMs = this.refusedMs === 0 ? tookMs : Math.min(this.refusedMs, tookMs);
			// Refused at a level accepted since the last overshoot, after slow start and
			// with more than one in flight: others (n8n workers share none of this memory) took
			// the room. Otherwise this window overshot the limit.
			const crowded =
				attempt.inFlight <= this.proven && attempt.window > 1 && this.threshold < Infinity;
			if (!crowded) {
				// Any overshoot says its level was too many, even one of a round already counted.
				const below = Math.max(1, Math.floor((attempt.inFlight - 1) * RECOVER_FACTOR));
				this.threshold = Math.min(this.threshold, below);
			}
			if (!current) return;
			this.epoch++;
			if (crowded) {
				// Shares of a limit converge as AIMD's do: a share of the window it was sent in, then
				// probing again at once, from one more per round trip (room the others leave when
				// they finish is taken within a few round trips).
				this.limit = Math.max(CROWDED_FLOOR, Math.min(this.limit, attempt.window) * REFUSED_FACTOR);
				this.growth = 1;
				this.threshold = this.limit;
				this.probeAt = now;
				return;
			}
			// What was in flight was too much: back to a share of it (no more than the threshold,
			// so the level just refused is not tried again at once), quickly up again to just
			// below it (as CUBIC returns to the window of its last loss), then slowly past it.
			this.limit = Math.max(
				1,
				Math.min(this.threshold, Math.min(this.limit, attempt.inFlight) * REFUSED_FACTOR),
			);
			this.growth = 1 / PROBE_ROUNDS;
			// Levels above the new window are proven again only by being accepted again.
			this.proven = Math.min(this.proven, Math.floor(this.limit));
			// A refusal once probing was due is a refused probe: the next waits twice as long.
			this.probeWaitMs =
				this.probeAt > 0 && now >= this.probeAt
					? Math.min(MAX_PROBE_WAIT_MS, 2 * this.probeWaitMs)
					: Math.max(this.probeWaitMs, PROBE_HOLDS * this.holdMs);
			this.probeAt = now + this.holdMs + this.probeWaitMs;
			return;
		}
		const tookMs = now - attempt.startedAt;
		// The fastest answer, drifting up a little with every slower one, so that an API that
		// moved further away is not taken for one that queues forever.
		this.fastestMs =
			tookMs < this.fastestMs ? tookMs : this.fastestMs + (tookMs - this.fastestMs) * FASTEST_DRIFT;
		if (tookMs > 2 * this.fastestMs + SLOW_MARGIN_MS) {
			// Answers slow down: the API queues what it is given (or n8n's own process is busy,
			// so slower answers alone never take the window below where it started).
			if (current && this.limit > AUTO_START) {
				this.limit = Math.max(AUTO_START, this.limit * SLOW_FACTOR);
				this.threshold = this.limit;
				this.growth = 1 / PROBE_ROUNDS;
				this.epoch++;
			}
			return;
		}
		this.proven = Math.max(this.proven, attempt.inFlight);
		if (!current) {
			// Sent before the last decrease: it proves only the level it was accepted at, which
			// the window may regain (and no more) while it recovers.
			const proven = Math.min(this.threshold, attempt.inFlight);
			if (this.limit < proven) this.limit = Math.min(proven, this.limit + START_STEP);
			return;
		}
		// Only a window in use grows: a run with few requests left learns nothing about more.
		if (attempt.inFlight * 2 < this.window) return;
		// Up to the threshold ×1.75 per round trip, then, once probing is due, by 1 / PROBE_ROUNDS
		// in the first round trip, twice as much in each next one until a refusal: slow near the
		// level refused, fast when room was made (a worker sharing the limit finished).
		if (this.limit < this.threshold) this.limit = Math.min(this.threshold, this.limit + START_STEP);
		else if (now >= this.probeAt) {
			this.limit += this.growth / this.limit;
			this.growth *= 1 + 1 / this.limit;
		}
		this.limit = Math.min(this.limit, AUTO_CAP);
	}
}
