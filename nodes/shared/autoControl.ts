// Requests in Parallel = Auto: how many requests one credential keeps in flight (a window, as
// TCP's congestion control) and, once the API refuses requests it had already accepted as many of
// at once, how far apart they start (a rate, paced in time). docs/scale.md says why and what it
// measured. A refusal (429, 503) costs every request of the credential its Retry-After, many
// round trips: Auto weighs that cost, and probes past a level the API refused only once enough
// time has gone by for a refusal to cost little of it, twice as long after each refused probe.

/** Where Auto starts: the fixed default it replaces. */
const AUTO_START = 4;
/** The most requests Auto ever keeps in flight for one credential and host. */
export const AUTO_CAP = 32;
/** After a refusal above what was accepted at once: the window shrinks to this share of it. */
const REFUSED_FACTOR = 0.7;
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
/** Past the threshold (once probing is due) the window grows by one every this many round trips. */
const PROBE_ROUNDS = 4;
/**
 * After a refusal at a level already accepted (a rate limit, or other clients of the same
 * limit): the rate at most this share of the rate sent at...
 */
const RATE_FACTOR = 0.75;
/** ...and at most this share of the rate the API accepted since the last hold. */
const ACCEPTED_FACTOR = 0.85;
const RATE_SPAN_MS = 2000;
/** The rates are counted once this long went by since the last hold... */
const MIN_SPAN_MS = 150;
/** ...else the rate goes to this share of the rate sent at, never lower. */
const UNKNOWN_FACTOR = 0.5;
/**
 * Once probing is due, a paced rate grows by the highest rate it was refused at in this many
 * holds: by as much for every client of one limit, whatever its rate, so that they converge.
 */
const RATE_PROBE_HOLDS = 2;
/**
 * Probing past a refused level waits this many times the refusal's hold: a refusal then costs at
 * most about a fifth of the time. Each refusal of a probe doubles the wait.
 */
const PROBE_HOLDS = 4;
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
/** The round trip is smoothed over about this many answers. */
const RTT_WEIGHT = 1 / 8;

/** What one attempt said about the API. */
export type Signal = 'accepted' | 'refused' | 'failed';

/** What the control needs to know of an attempt. */
export interface Attempt {
	/** When its request went out (after any hold and pacing). */
	startedAt: number;
	/** The control's epoch when it went out: one decrease per epoch, as TCP does. */
	epoch: number;
	/** Requests in flight with this one when it was given room. */
	inFlight: number;
}

export class AutoControl {
	/** The window, fractional while it grows. */
	private limit = AUTO_START;
	private threshold = Infinity;
	/** The most in flight at once that an answer of this epoch proved accepted. */
	private proven = 0;
	/** Requests a second when paced; Infinity: not paced. */
	private rate = Infinity;
	epoch = 0;
	private fastestMs = Infinity;
	private rttMs = 0;
	/** When the requests of the last RATE_SPAN_MS went out, and the answers to them. */
	private readonly startedAt: number[] = [];
	private readonly answers: Array<{ at: number; accepted: boolean }> = [];
	private holdMs = DEFAULT_HOLD_MS;
	private holdEndsAt = 0;
	private probeAt = 0;
	private probeWaitMs = 0;
	private grownAt = 0;
	/** The highest rate a refusal came at. */
	private refusedRate = 0;

	constructor(readonly cap: number) {}

	/** The requests that may be in flight now. */
	get window(): number {
		return Math.max(1, Math.min(this.cap, Math.floor(this.limit)));
	}

	/** The least time between two starts (ms), 0 when not paced. */
	get gapMs(): number {
		return Number.isFinite(this.rate) ? 1000 / this.rate : 0;
	}

	/** A refusal asked every request to wait `ms`: that is what the next refusal will cost. */
	held(ms: number): void {
		this.holdMs = Math.max(ms, this.rttMs);
		this.holdEndsAt = Math.max(this.holdEndsAt, Date.now() + ms);
		if (this.probeAt > Date.now()) this.probeAt = Date.now() + this.probeWaitMs + ms;
	}

	/** A request goes out now. */
	started(): void {
		const now = Date.now();
		this.startedAt.push(now);
		while (this.startedAt[0] < now - RATE_SPAN_MS) this.startedAt.shift();
	}

	answered(attempt: Attempt, signal: Signal): void {
		if (signal === 'failed') return;
		this.answers.push({ at: attempt.startedAt, accepted: signal === 'accepted' });
		while (this.answers[0].at < Date.now() - RATE_SPAN_MS) this.answers.shift();
		if (signal === 'refused') this.refused(attempt);
		else this.accepted(attempt);
	}

	private refused(attempt: Attempt): void {
		// Any refusal says its level was too many, even one of a round already counted.
		const below = Math.max(1, Math.floor((attempt.inFlight - 1) * RECOVER_FACTOR));
		const rateLimited = attempt.inFlight <= this.proven;
		if (!rateLimited) this.threshold = Math.min(this.threshold, below);
		if (attempt.epoch !== this.epoch) return;
		const now = Date.now();
		// A refusal after probing was due is a refused probe: wait twice as long before the next.
		this.probeWaitMs =
			this.probeAt > 0 && now >= this.probeAt
				? Math.min(MAX_PROBE_WAIT_MS, this.probeWaitMs * 2)
				: Math.max(this.probeWaitMs, PROBE_HOLDS * this.holdMs);
		this.probeAt = now + this.holdMs + this.probeWaitMs;
		this.epoch++;
		this.proven = 0;
		if (rateLimited) {
			// As many were accepted at once before: what is too much is how often they start.
			// Counted over the requests started since the last hold (RATE_SPAN_MS at most): paced
			// below the rate they went at and below the rate that got through (other clients of
			// the same limit take the rest), never below half the rate they went at (a client
			// refused by bad luck, others taking the limit just then, is not left behind for good).
			const from = Math.max(this.holdEndsAt, now - RATE_SPAN_MS);
			const since = this.startedAt.find((at) => at >= from) ?? now;
			const spanMs = now - since;
			const answers = this.answers.filter(({ at }) => at >= since);
			// (An answer of this epoch was accepted: the fastest round trip is known.)
			const sentRate =
				spanMs >= MIN_SPAN_MS
					? (this.startedAt.filter((at) => at >= since).length * 1000) / spanMs
					: Math.min(this.rate, (attempt.inFlight * 1000) / this.fastestMs);
			this.rate = Math.max(0.1, sentRate * UNKNOWN_FACTOR);
			if (spanMs >= MIN_SPAN_MS && answers.length > 0) {
				const share = answers.filter(({ accepted }) => accepted).length / answers.length;
				const paced = Math.min(RATE_FACTOR, share * ACCEPTED_FACTOR) * sentRate;
				this.rate = Math.max(this.rate, paced);
			}
			this.refusedRate = Math.max(this.refusedRate, sentRate);
			this.grownAt = now;
			return;
		}
		// What was in flight was too much: back to a share of it, quickly up again to just below
		// it (as CUBIC returns to the window of its last loss), then past it once probing is due.
		this.threshold = below;
		this.limit = Math.max(1, Math.min(this.limit, attempt.inFlight) * REFUSED_FACTOR);
	}

	private accepted(attempt: Attempt): void {
		const now = Date.now();
		const tookMs = now - attempt.startedAt;
		this.rttMs = this.rttMs === 0 ? tookMs : this.rttMs + (tookMs - this.rttMs) * RTT_WEIGHT;
		// The fastest answer, drifting up a little with every slower one, so that an API that
		// moved further away is not taken for one that queues forever.
		this.fastestMs =
			tookMs < this.fastestMs ? tookMs : this.fastestMs + (tookMs - this.fastestMs) * FASTEST_DRIFT;
		const current = attempt.epoch === this.epoch;
		if (current) this.proven = Math.max(this.proven, attempt.inFlight);
		if (tookMs > 2 * this.fastestMs + SLOW_MARGIN_MS) {
			// Answers slow down: the API queues what it is given (or n8n's own process is busy,
			// so slower answers alone never take the window below where it started).
			if (current && this.limit > AUTO_START) {
				this.limit = Math.max(AUTO_START, this.limit * SLOW_FACTOR);
				this.threshold = this.limit;
				this.epoch++;
				this.proven = 0;
			}
			return;
		}
		if (!current) {
			// Sent before the last decrease: it proves only the level it was accepted at, which
			// the window may regain (and no more) while it recovers.
			const proven = Math.min(this.threshold, attempt.inFlight);
			if (this.limit < proven) this.limit = Math.min(proven, this.limit + START_STEP);
			return;
		}
		const probing = now >= this.probeAt;
		if (Number.isFinite(this.rate)) {
			// Paced: the rate grows only once probing is due.
			if (probing) {
				const since = Math.max(this.grownAt, this.probeAt);
				this.rate += (this.refusedRate * (now - since)) / (RATE_PROBE_HOLDS * this.holdMs);
			}
			this.grownAt = now;
		}
		// Only a window in use grows: a run with few requests left learns nothing about more.
		if (attempt.inFlight * 2 < this.window) return;
		if (this.limit < this.threshold) this.limit = Math.min(this.threshold, this.limit + START_STEP);
		else if (probing) this.limit += 1 / (this.limit * PROBE_ROUNDS);
		this.limit = Math.min(this.limit, this.cap);
	}
}
