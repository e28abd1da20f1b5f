// The limiter: how many requests may be in flight at once, runs served in turn, Retry-After holds.
//
// How many requests an operation keeps in flight at once: Requests in Parallel = Auto (shared by
// every run of a credential and host in this n8n process; autoControl.ts adapts it), or a fixed
// number (the run's own). Every request takes a permit before each attempt and gives it back with
// what the attempt said about the API: accepted (any answer but a refusal), refused (429, 503) or
// failed (no answer); nothing when no request was made. Runs are served in turn: each run waits in
// a queue of its own, and room in the window goes to the next run with a request waiting, so one
// run's many queued requests hold another's back by one at most. Once a refusal was seen, Auto's
// requests start no closer together than autoControl's spacing (and its pace, once learnt). A
// refusal holds back every request of a fixed window; Auto's only when the API let nothing through
// since the refusal before, or others took the room (`Limiter.holdFor`), and otherwise costs only
// the refused request its wait. What Auto learnt stays with the credential and host for the next
// run, until 10 minutes unused (`IDLE_RESET_MS`). Nothing here starts a timer of its
// own: waiting for a permit is a promise resolved by a permit given back, and the Retry-After hold
// and the spacing are n8n-workflow's `sleep`. Times are read from the monotonic clock
// (`performance.now()`): a wall clock set back (or a test's frozen `Date.now`) must not hold
// requests for the difference.

import { createHash } from 'node:crypto';
import { sleep } from 'n8n-workflow';

import { AUTO_CAP, AutoControl, type Attempt, type Signal } from './autoControl';
import { DeadlinePassed, passes } from './deadline';
import { baseUrlOf } from '../input/validation';

/** An Auto limiter unused for this long starts again from Auto's first window (AUTO_START). */
const IDLE_RESET_MS = 10 * 60_000;
/** Shared limiters kept at most (the least recently used goes first). */
const MAX_SHARED = 64;

/** A permit: the attempt it lets go out. */
type Permit = Attempt;

/** The requests of one credential and host (Auto), or of one run (a fixed number). */
class Pool {
	private control?: AutoControl;
	private inFlight = 0;
	/** The queues of the runs with a request waiting, in the order they are served. */
	private readonly turns: Array<Array<() => void>> = [];
	/** When the Retry-After hold ends (the monotonic clock). */
	private holdUntil = 0;
	/** When the last request went out: the next waits for the spacing after it. */
	private lastStartAt = -Infinity;
	private lastUsed = performance.now();
	/**
	 * Until when the pool had something to send: the last answer's return, or the end of a refused
	 * request's own Retry-After.
	 */
	private busyUntil = -Infinity;
	/** When the last refusal came back (the monotonic clock). */
	private refusedAt = -Infinity;
	/** Whether a request that went out after the last refusal came back was accepted. */
	private acceptedSinceRefusal = true;
	/**
	 * Auto: every request waits for the last refusal's Retry-After. It came to a request sent after
	 * the refusal before came back, with nothing sent since accepted (the API lets nothing through),
	 * or autoControl took it for others taking the room (the refused run gives way to them).
	 */
	private closed = false;

	constructor(
		adaptive: boolean,
		private readonly fixed: number,
	) {
		if (adaptive) this.control = new AutoControl();
	}

	get cap(): number {
		return this.control ? AUTO_CAP : this.fixed;
	}

	get window(): number {
		return this.control?.window ?? this.fixed;
	}

	/**
	 * A refusal asked for a wait of `ms`: whether every request waits for it (see `Limiter.holdFor`).
	 */
	holdFor(ms: number): boolean {
		if (this.control && !this.closed) {
			this.busyUntil = Math.max(this.busyUntil, performance.now() + ms);
			return false;
		}
		this.holdUntil = Math.max(this.holdUntil, performance.now() + ms);
		this.control?.held(ms, performance.now());
		return true;
	}

	async acquire(queue: Array<() => void>, deadline?: number): Promise<Permit> {
		if (
			this.control &&
			this.inFlight === 0 &&
			this.turns.length === 0 &&
			performance.now() - this.lastUsed > IDLE_RESET_MS
		) {
			this.control = new AutoControl();
		}
		this.lastUsed = performance.now();
		// How long the pool had nothing to send: nothing in flight, waiting or waiting its Retry-After.
		const quietMs =
			this.inFlight === 0 && this.turns.length === 0 ? this.lastUsed - this.busyUntil : 0;
		if (this.inFlight < this.window && this.turns.length === 0) this.inFlight++;
		else await this.turn(queue, deadline);
		const permit: Permit = { startedAt: 0, epoch: 0, inFlight: this.inFlight, window: this.window };
		for (;;) {
			const now = performance.now();
			const at = Math.max(this.holdUntil, this.lastStartAt + (this.control?.spacingMs ?? 0));
			if (at <= now) break;
			// A wait past the run's deadline is not begun (transport.ts).
			if (passes(deadline, at - now)) {
				this.release(permit);
				throw new DeadlinePassed();
			}
			await sleep(at - now);
		}
		permit.startedAt = this.lastStartAt = performance.now();
		permit.epoch = this.control?.epoch ?? 0;
		this.control?.started(permit.startedAt, quietMs);
		return permit;
	}

	/**
	 * Waits in `queue` for room in the window; throws DeadlinePassed, out of the queue, when the
	 * run's deadline comes first.
	 */
	private async turn(queue: Array<() => void>, deadline?: number): Promise<void> {
		let granted!: () => void;
		const turn = new Promise<void>((resolve) => {
			granted = resolve;
			if (queue.length === 0) this.turns.push(queue);
			queue.push(resolve);
		});
		if (deadline === undefined) return await turn;
		const late = sleep(Math.max(0, deadline - Date.now())).then(() => 'late' as const);
		if ((await Promise.race([turn.then(() => 'granted' as const), late])) === 'granted') return;
		const place = queue.indexOf(granted);
		// Given a place as the deadline came: the permit is this run's.
		if (place < 0) return;
		queue.splice(place, 1);
		if (queue.length === 0) this.turns.splice(this.turns.indexOf(queue), 1);
		throw new DeadlinePassed();
	}

	release(permit: Permit, signal?: Signal): void {
		this.inFlight--;
		this.lastUsed = performance.now();
		this.busyUntil = Math.max(this.busyUntil, this.lastUsed);
		if (signal === 'accepted' && permit.startedAt >= this.refusedAt)
			this.acceptedSinceRefusal = true;
		if (signal === 'refused') {
			this.closed = permit.startedAt >= this.refusedAt && !this.acceptedSinceRefusal;
			this.refusedAt = this.lastUsed;
			this.acceptedSinceRefusal = false;
		}
		const crowded = this.control && signal && this.control.answered(permit, signal, this.lastUsed);
		if (crowded) this.closed = true;
		while (this.turns.length > 0 && this.inFlight < this.window) {
			// The next run in turn; it goes to the back of the line if it has more waiting.
			const queue = this.turns.shift()!;
			const next = queue.shift()!;
			if (queue.length > 0) this.turns.push(queue);
			this.inFlight++;
			next();
		}
	}
}

/**
 * One run's side of a limiter: its requests wait in their own queue, served in turn with the
 * other runs' of the same credential and host (Auto), which share the window, the Retry-After
 * hold and the pacing.
 */
export class Limiter {
	private readonly queue: Array<() => void> = [];
	private readonly pool: Pool;

	/**
	 * A run's side of `pool`, or a limiter of its own: Auto (`adaptive`, from AUTO_START up to
	 * AUTO_CAP) or `parallel` requests at a time.
	 */
	constructor(adaptive: boolean, parallel: number, pool?: Pool) {
		this.pool = pool ?? new Pool(adaptive, parallel);
	}

	/** The most requests in flight at once. */
	get cap(): number {
		return this.pool.cap;
	}

	/** The requests that may be in flight now. */
	get window(): number {
		return this.pool.window;
	}

	/**
	 * A refusal just given back asked for a wait of `ms`. A fixed window holds back for it every
	 * request of its run (a longer hold already set stays). Auto holds back every request of the
	 * runs that share its pool only when the API let nothing through since the refusal before (the
	 * refused request went out after that one came back, and nothing sent since was accepted), or
	 * others took the room: otherwise only the refused request waits, and Auto's window and pace
	 * take the others down. Returns whether the hold is every request's (the refused one then waits
	 * at its next `acquire`).
	 */
	holdFor(ms: number): boolean {
		return this.pool.holdFor(ms);
	}

	/**
	 * Waits for room in the window (runs in turn), then for any hold to end and its spacing; throws
	 * DeadlinePassed instead of a hold or spacing that would end after `deadline`.
	 */
	async acquire(deadline?: number): Promise<Permit> {
		return await this.pool.acquire(this.queue, deadline);
	}

	/** Gives a permit back with what its attempt said; `undefined` when no request was made. */
	release(permit: Permit, signal?: Signal): void {
		this.pool.release(permit, signal);
	}
}

const shared = new Map<string, Pool>();

/**
 * A run's side of the Auto limiter of one credential and host, shared by every execution of this
 * n8n process that uses them. Known by a hash of the base URL and the token: the token itself is
 * kept nowhere. Each call is a run of its own, served in turn with the others.
 */
export function sharedLimiter(baseUrl: string, apiToken: string): Limiter {
	const key = createHash('sha256')
		.update(`${baseUrlOf(baseUrl)}\n${apiToken}`)
		.digest('hex');
	let pool = shared.get(key);
	if (pool) shared.delete(key);
	else pool = new Pool(true, AUTO_CAP);
	// Most recently used last; the first is dropped past MAX_SHARED (runs using it keep it).
	shared.set(key, pool);
	if (shared.size > MAX_SHARED) shared.delete(shared.keys().next().value!);
	return new Limiter(true, AUTO_CAP, pool);
}

/** Requests in Parallel: 0 is Auto (shared), a number fixes the run's own window. */
export function runLimiter(parallelRequests: number, baseUrl: string, apiToken: string): Limiter {
	return parallelRequests > 0
		? new Limiter(false, parallelRequests)
		: sharedLimiter(baseUrl, apiToken);
}
