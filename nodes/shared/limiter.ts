import { createHash } from 'node:crypto';
import { sleep } from 'n8n-workflow';

// How many requests an operation keeps in flight at once: Requests in Parallel = Auto (an AIMD
// limiter with slow start, as TCP's congestion control: docs/scale.md says why), or a fixed number.
// Every request of a run takes a permit before each attempt and gives it back with what the
// attempt said about the API: accepted, refused (429, 503) or failed (no answer). Nothing here
// starts a timer: waiting for a permit is a promise resolved by the permit given back, and the
// Retry-After hold is n8n-workflow's `sleep`.

/** Where Auto starts: the fixed default it replaces. */
export const AUTO_START = 4;
/** The most requests Auto ever keeps in flight for one credential and host. */
export const AUTO_CAP = 32;
/** After a 429 or 503: the window shrinks to this share of what was in flight. */
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
/** At or above the threshold the window grows by one every this many round trips. */
const PROBE_ROUNDS = 4;
/** After an answer much slower than the fastest seen: the window shrinks to this share. */
const SLOW_FACTOR = 0.9;
/** An answer counts as slow when it takes more than twice the fastest one plus this. */
const SLOW_MARGIN_MS = 100;
/**
 * The fastest answer moves up by this share of every slower one's excess: after a few hundred
 * answers it follows an API that moved further away, not a queue that builds up in a few.
 */
const FASTEST_DRIFT = 0.005;
/** An Auto limiter unused for this long starts again from AUTO_START. */
const IDLE_RESET_MS = 10 * 60_000;
/** Shared limiters kept at most (the least recently used goes first). */
const MAX_SHARED = 64;

/** What one attempt said about the API. */
export type Signal = 'accepted' | 'refused' | 'failed';

export interface Permit {
	/** When the attempt's request went out (after any hold). */
	startedAt: number;
	/** The limiter's epoch when it was given: one decrease per window, as TCP does. */
	epoch: number;
	/** Requests in flight with this one when it was given. */
	inFlight: number;
}

export class Limiter {
	/** The window, fractional while it grows in congestion avoidance. */
	private limit: number;
	private threshold = Infinity;
	private inFlight = 0;
	private readonly waiting: Array<() => void> = [];
	private readonly outstanding = new Set<Permit>();
	private readonly settling: Array<{ left: Set<Permit>; resolve: () => void }> = [];
	private openAt = 0;
	private epoch = 0;
	private fastestMs = Infinity;
	private lastUsed = Date.now();
	/** The most requests this limiter ever had in flight at once. */
	peak = 0;

	constructor(
		/** Whether the window adapts (Auto) or stays at `start` (a fixed number). */
		readonly adaptive: boolean,
		private readonly start: number,
		/** The most requests in flight at once. */
		readonly cap: number,
	) {
		this.limit = start;
	}

	/** The requests that may be in flight now. */
	get window(): number {
		return Math.max(1, Math.min(this.cap, Math.floor(this.limit)));
	}

	/** Holds every request of this limiter back for `ms` from now (a longer hold stays). */
	holdFor(ms: number): void {
		this.openAt = Math.max(this.openAt, Date.now() + ms);
	}

	/** Resolves once no hold is left. */
	async pass(): Promise<void> {
		for (let left = this.openAt - Date.now(); left > 0; left = this.openAt - Date.now()) {
			await sleep(left);
		}
	}

	/** Waits for room in the window (first come, first served), then for any hold to end. */
	async acquire(): Promise<Permit> {
		if (
			this.adaptive &&
			this.inFlight === 0 &&
			this.waiting.length === 0 &&
			Date.now() - this.lastUsed > IDLE_RESET_MS
		) {
			this.limit = this.start;
			this.threshold = Infinity;
			this.fastestMs = Infinity;
		}
		this.lastUsed = Date.now();
		if (this.inFlight < this.window && this.waiting.length === 0) this.inFlight++;
		else await new Promise<void>((resolve) => this.waiting.push(resolve));
		this.peak = Math.max(this.peak, this.inFlight);
		const permit: Permit = { startedAt: 0, epoch: this.epoch, inFlight: this.inFlight };
		this.outstanding.add(permit);
		await this.pass();
		permit.startedAt = Date.now();
		permit.epoch = this.epoch;
		return permit;
	}

	/** Resolves once every permit given so far is back: what was in flight has been answered. */
	async settled(): Promise<void> {
		if (this.outstanding.size === 0) return;
		const left = new Set(this.outstanding);
		await new Promise<void>((resolve) => this.settling.push({ left, resolve }));
	}

	/** Gives a permit back with what its attempt said; `undefined` when no request was made. */
	release(permit: Permit, signal?: Signal): void {
		this.inFlight--;
		this.outstanding.delete(permit);
		this.lastUsed = Date.now();
		if (this.adaptive && signal) this.adapt(permit, signal);
		while (this.waiting.length > 0 && this.inFlight < this.window) {
			this.inFlight++;
			this.waiting.shift()!();
		}
		for (let k = this.settling.length - 1; k >= 0; k--) {
			const { left, resolve } = this.settling[k];
			left.delete(permit);
			if (left.size > 0) continue;
			this.settling.splice(k, 1);
			resolve();
		}
	}

	private adapt(permit: Permit, signal: Signal): void {
		if (signal === 'failed') return;
		const current = permit.epoch === this.epoch;
		if (signal === 'refused') {
			// Any refusal says its level was too many, even one of a round already counted.
			const below = Math.max(1, Math.floor((permit.inFlight - 1) * RECOVER_FACTOR));
			this.threshold = Math.min(this.threshold, below);
			if (!current) return;
			// What was in flight was too much: back to a share of it, quickly up again to just
			// below it (as CUBIC returns to the window of its last loss), then slowly past it.
			this.limit = Math.max(1, Math.min(this.limit, permit.inFlight) * REFUSED_FACTOR);
			this.threshold = below;
			this.epoch++;
			return;
		}
		const tookMs = Date.now() - permit.startedAt;
		// The fastest answer, drifting up a little with every slower one, so that an API that
		// moved further away is not taken for one that queues forever.
		this.fastestMs =
			tookMs < this.fastestMs ? tookMs : this.fastestMs + (tookMs - this.fastestMs) * FASTEST_DRIFT;
		if (tookMs > 2 * this.fastestMs + SLOW_MARGIN_MS) {
			// Answers slow down: the API queues what it is given (or n8n's own process is busy,
			// so slower answers alone never take the window below where it started).
			if (current && this.limit > this.start) {
				this.limit = Math.max(this.start, this.limit * SLOW_FACTOR);
				this.threshold = this.limit;
				this.epoch++;
			}
			return;
		}
		if (!current) {
			// Sent before the last decrease: it proves only the level it was accepted at, which
			// the window may regain (and no more) while it recovers.
			const proven = Math.min(this.threshold, permit.inFlight);
			if (this.limit < proven) this.limit = Math.min(proven, this.limit + START_STEP);
			return;
		}
		// Only a window in use grows: a run with few requests left learns nothing about more.
		if (permit.inFlight * 2 < this.window) return;
		// Up to the threshold ×1.75 per round trip, then one more every PROBE_ROUNDS round trips.
		this.limit =
			this.limit < this.threshold
				? Math.min(this.threshold, this.limit + START_STEP)
				: this.limit + 1 / (this.limit * PROBE_ROUNDS);
		this.limit = Math.min(this.limit, this.cap);
	}
}

const shared = new Map<string, Limiter>();

/**
 * The Auto limiter of one credential and host, shared by every execution of this n8n process
 * that uses them. Known by a hash of the base URL and the token: the token itself is kept nowhere.
 */
export function sharedLimiter(baseUrl: string, apiToken: string): Limiter {
	const key = createHash('sha256')
		.update(`${String(baseUrl).replace(/\/+$/, '')}\n${apiToken}`)
		.digest('hex');
	let limiter = shared.get(key);
	if (limiter) shared.delete(key);
	else limiter = new Limiter(true, AUTO_START, AUTO_CAP);
	// Most recently used last; the first is dropped past MAX_SHARED (runs using it keep it).
	shared.set(key, limiter);
	if (shared.size > MAX_SHARED) shared.delete(shared.keys().next().value!);
	return limiter;
}

/** Requests in Parallel: 0 is Auto (shared), a number fixes the run's own window. */
export function runLimiter(parallelRequests: number, baseUrl: string, apiToken: string): Limiter {
	return parallelRequests > 0
		? new Limiter(false, parallelRequests, parallelRequests)
		: sharedLimiter(baseUrl, apiToken);
}
