// Requests in Parallel = Auto: how many requests a credential and host may have in flight at once,
// and how close together they may start.
//
// An AIMD window with slow start, as in TCP's congestion control, and a pace learnt from refusals
// that too many at once does not explain (docs/scale.md says why). The limiter (limiter.ts) asks
// it for the window and the spacing, and tells it when each request went out and what each
// attempt said about the API.

/**
 * Where Auto's window starts: 4, the old fixed default of Requests in Parallel (and the least that
 * slower answers alone take it down to).
 */
const AUTO_START = 4;
/** The most requests Auto ever keeps in flight for one credential and host. */
export const AUTO_CAP = 64;
/** After a 429 or 503: the window shrinks to this share of what was in flight. */
const REFUSED_FACTOR = 0.7;
/**
 * Refused at a level accepted before (others took the room: n8n workers share no memory), the
 * window shrinks no lower than this: a share of a limit is regained by probing, and from one
 * request at a time probing is slow.
 */
const SHARED_LIMIT_FLOOR = 2;
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
 * ...once probing is due: a refusal holds every request of the credential and host for its
 * Retry-After, many round trips, so after one the window probes past the level refused only once
 * this many times the hold went by (a refused probe then costs at most about a ninth of the time),
 * and twice as long after each refused probe.
 */
const PROBE_HOLDS = 8;
/** The longest wait before probing again. */
const MAX_PROBE_WAIT_MS = 10 * 60_000;
/**
 * Refused at a level accepted before (or with one request in flight): the requests came too close
 * together, not too many at once. The pace goes to this share of the rate the API accepted over
 * the second before.
 */
const PACE_FACTOR = 0.95;
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

/**
 * What one attempt said about the API: `accepted` (any answer but a refusal), `refused` (a 429 or
 * 503) or `failed` (no answer).
 */
export type Signal = 'accepted' | 'refused' | 'failed';

/** What the control needs to know of an attempt. */
export interface Attempt {
	/** When its request went out (after any hold; the limiter's monotonic clock). */
	startedAt: number;
	/** The control's `epoch` when it went out: one decrease per window, as TCP does. */
	epoch: number;
	/** Requests in flight with this one when it was given room. */
	inFlight: number;
	/** The window when it was given room. */
	window: number;
}

export class AutoControl {
	/** The window before it is rounded down: it grows and shrinks by fractions of a request. */
	private limit = AUTO_START;
	/** The slow-start threshold: below it the window grows fast, at or above it only by probing. */
	private threshold = Infinity;
	/**
	 * Counts the window's decreases. An answer to a request sent before the last one (in an earlier
	 * epoch) takes the window down no further, and up only to the level it was accepted at: one
	 * decrease per window of requests, as TCP does.
	 */
	epoch = 0;
	private fastestMs = Infinity;
	/** The fastest refusal seen (0 before the first). */
	private refusedMs = 0;
	private holdMs = DEFAULT_HOLD_MS;
	/** Before this time the window does not grow past the threshold. */
	private probeAt = 0;
	private probeWaitMs = 0;
	/**
	 * The most requests in flight when one was accepted, since the last overshoot. A refusal because
	 * others took the room leaves it: the requests given room before it and held by its Retry-After
	 * go out at the level they were given, and a refusal of one of them is still others' doing, not
	 * an overshoot of the new window (which would keep a worker at one request for the long probing
	 * wait).
	 */
	private mostAccepted = 0;
	/**
	 * Requests the window grows by per round trip while probing. It grows itself by a 1 / window share
	 * of itself per answer (×2 to ×2.7 per round trip) until a refusal; past the cap it only keeps
	 * the window there.
	 */
	private growth = 1 / PROBE_ROUNDS;
	/** The requests a second the pace allows (Infinity until a refusal said the rate was too high). */
	private rate = Infinity;
	/** When the requests of about the last second went out, those refused left out. */
	private recent: number[] = [];
	/**
	 * Since when the pool has had requests to send without a break. A wait the API asked for is no
	 * break: a limit of requests a second saves no more room while it is waited out than its burst,
	 * so the second before a refusal, wait or no wait, measures what the limit let through (a
	 * sequential reader's pace, measured so, may start low; it probes up).
	 */
	private busySince = 0;
	/** Before this time the pace does not grow; probing it waits as the window's does. */
	private paceProbeAt = 0;
	private paceWaitMs = 0;

	/** The requests that may be in flight now. */
	get window(): number {
		return Math.max(1, Math.min(AUTO_CAP, Math.floor(this.limit)));
	}

	/**
	 * The least time between two requests' starts once a refusal was seen: as long as the fastest
	 * refusal took, so that when a limit is reached one request learns it, not every one sent before
	 * the first refusal came back (a limit that lets a second's worth through at once, a sliding
	 * window, refuses all of those together). Never more than the window spread over the fastest
	 * answer: the window's own pace is kept. Once a pace was learnt, never less than its interval.
	 */
	get spacingMs(): number {
		return Math.max(Math.min(this.refusedMs, this.fastestMs / this.window), 1000 / this.rate);
	}

	/**
	 * A request went out at `at`, after the pool had nothing to send for `quietMs`: from idle when
	 * that was as long as the fastest answer at least (a reader that sends its next request as an
	 * answer comes is busy).
	 */
	started(at: number, quietMs: number): void {
		if (quietMs >= this.fastestMs) this.busySince = at;
		while (this.recent.length > 0 && this.recent[0] < at - 1000) this.recent.shift();
		this.recent.push(at);
	}

	/**
	 * A refusal asked every request to wait `ms`: what the next refusal will cost. A probe not yet
	 * due waits for this wait to end too.
	 */
	held(ms: number, now: number): void {
		this.holdMs = ms;
		if (this.probeAt > now) this.probeAt = now + ms + this.probeWaitMs;
	}

	/** What an attempt said about the API; one that got no answer (`failed`) says nothing. */
	answered(attempt: Attempt, signal: Signal, now: number): boolean {
		if (signal === 'refused') return this.afterRefusal(attempt, now);
		if (signal === 'accepted') this.afterAnswer(attempt, now);
		return false;
	}

	private afterRefusal(attempt: Attempt, now: number): boolean {
		const tookMs = now - attempt.startedAt;
		this.refusedMs = this.refusedMs === 0 ? tookMs : Math.min(this.refusedMs, tookMs);
		const at = this.recent.indexOf(attempt.startedAt);
		if (at >= 0) this.recent.splice(at, 1);
		// Refused at a level accepted since the last overshoot, or with nothing else in flight: not
		// too many at once. After slow start, with more than one in flight and no pace learnt yet,
		// others (n8n workers share none of this memory) took the room; otherwise the requests came
		// too close together (a limit of requests a second), and the pace slows. A refusal at a
		// level never accepted: this window overshot the limit.
		const tooClose = attempt.inFlight <= Math.max(1, this.mostAccepted);
		const othersTookRoom =
			tooClose && attempt.window > 1 && this.threshold < Infinity && this.rate === Infinity;
		if (!othersTookRoom) {
			// Any overshoot says its level was too many, even one of a round already counted.
			const below = Math.floor((attempt.inFlight - 1) * RECOVER_FACTOR);
			this.threshold = Math.min(this.threshold, Math.max(1, below));
		}
		if (attempt.epoch === this.epoch) {
			this.epoch++;
			if (tooClose && !othersTookRoom) this.slowPace(attempt, now);
			if (othersTookRoom) this.shareLimit(attempt, now);
			else this.backOff(attempt, now);
		}
		return othersTookRoom;
	}

	/**
	 * The pace goes to a share of the rate accepted over the second before the refused request went
	 * out (over less when the requests began within it, from idle: a second partly idle says nothing
	 * of the rate), and never up. It probes up again once PROBE_HOLDS holds went by, twice as long
	 * after each refused probe.
	 */
	private slowPace(attempt: Attempt, now: number): void {
		const spanMs = Math.min(1000, attempt.startedAt - this.busySince);
		const since = attempt.startedAt - spanMs;
		const accepted = this.recent.filter((at) => at >= since && at < attempt.startedAt).length;
		// One accepted request is no rate.
		if (accepted < 2) return;
		const probed = this.paceProbeAt > 0 && now >= this.paceProbeAt;
		this.rate = Math.min(this.rate, (PACE_FACTOR * accepted * 1000) / spanMs);
		this.paceWaitMs = probed
			? Math.min(MAX_PROBE_WAIT_MS, 2 * this.paceWaitMs)
			: Math.max(this.paceWaitMs, PROBE_HOLDS * this.holdMs);
		this.paceProbeAt = now + this.paceWaitMs;
	}

	/**
	 * Others took the room: shares of a limit converge as AIMD's do. A share of the window the
	 * request was sent in, then probing again at once, from one more per round trip (room the others
	 * leave when they finish is taken within a few round trips).
	 */
	private shareLimit(attempt: Attempt, now: number): void {
		this.limit = Math.max(
			SHARED_LIMIT_FLOOR,
			Math.min(this.limit, attempt.window) * REFUSED_FACTOR,
		);
		this.growth = 1;
		this.threshold = this.limit;
		this.probeAt = now;
	}

	/**
	 * What was in flight was too much: back to a share of it (no more than the threshold, so the
	 * level just refused is not tried again at once), quickly up again to just below it (as CUBIC
	 * returns to the window of its last loss), then slowly past it once probing is due.
	 */
	private backOff(attempt: Attempt, now: number): void {
		this.limit = Math.max(
			1,
			Math.min(this.threshold, Math.min(this.limit, attempt.inFlight) * REFUSED_FACTOR),
		);
		this.growth = 1 / PROBE_ROUNDS;
		// Levels above the new window count as accepted again only once accepted again.
		this.mostAccepted = Math.min(this.mostAccepted, Math.floor(this.limit));
		// A refusal once probing was due is a refused probe: the next waits twice as long.
		this.probeWaitMs =
			this.probeAt > 0 && now >= this.probeAt
				? Math.min(MAX_PROBE_WAIT_MS, 2 * this.probeWaitMs)
				: Math.max(this.probeWaitMs, PROBE_HOLDS * this.holdMs);
		this.probeAt = now + this.holdMs + this.probeWaitMs;
	}

	private afterAnswer(attempt: Attempt, now: number): void {
		const current = attempt.epoch === this.epoch;
		const tookMs = now - attempt.startedAt;
		// The fastest answer, drifting up a little with every slower one, so that an API that
		// moved further away is not taken for one that queues forever.
		this.fastestMs =
			tookMs < this.fastestMs ? tookMs : this.fastestMs + (tookMs - this.fastestMs) * FASTEST_DRIFT;
		if (tookMs > 2 * this.fastestMs + SLOW_MARGIN_MS) {
			if (current) this.slowDown();
			return;
		}
		this.mostAccepted = Math.max(this.mostAccepted, attempt.inFlight);
		if (current) this.grow(attempt, now);
		else {
			// Sent before the last decrease: it shows only the level it was accepted at, which the
			// window may regain (and no more) while it recovers.
			const level = Math.min(this.threshold, attempt.inFlight);
			if (this.limit < level) this.limit = Math.min(level, this.limit + START_STEP);
		}
	}

	/**
	 * Answers slow down: the API queues what it is given (or n8n's own process is busy, so slower
	 * answers alone never take the window below where it started).
	 */
	private slowDown(): void {
		if (this.limit <= AUTO_START) return;
		this.limit = Math.max(AUTO_START, this.limit * SLOW_FACTOR);
		this.threshold = this.limit;
		this.growth = 1 / PROBE_ROUNDS;
		this.epoch++;
	}

	/**
	 * Up to the threshold ×1.75 per round trip; then, once probing is due, by `growth` requests per
	 * round trip, `growth` itself at least doubling each round trip until a refusal: slow near the
	 * level refused, fast when room was made (a worker sharing the limit finished).
	 */
	private grow(attempt: Attempt, now: number): void {
		// A pace probes up by one request a second every second (a 1 / rate share per answer): a
		// limit that saved room (a token bucket's burst) refuses only once that room is used up, so
		// a pace that grew faster would overshoot it by more, and its next refusal would measure more.
		if (now >= this.paceProbeAt && this.rate < Infinity) this.rate += 1 / this.rate;
		// Only a window in use grows: a run with few requests left learns nothing about more.
		if (attempt.inFlight * 2 < this.window) return;
		if (this.limit < this.threshold) this.limit = Math.min(this.threshold, this.limit + START_STEP);
		else if (now >= this.probeAt) {
			this.limit += this.growth / this.limit;
			this.growth *= 1 + 1 / this.limit;
		}
		this.limit = Math.min(this.limit, AUTO_CAP);
	}
}
