// SMS Messaging Trigger against a model: random histories of messages sent, moving between
// statuses, listed late, while polls read through n8n-core's poll machinery in each of n8n's three
// poll modes (test/helpers/poll.ts), against an API with and without page totals.
import {
	activateTrigger,
	type ActiveTrigger,
	type PollMode,
	type PollOutcome,
} from './helpers/poll';
import { hold, useSimulator } from './helpers/simulator';
import { seeded } from './helpers/seeded';
import { useVirtualClock } from './helpers/virtual-clock';

// n8n's clock, the node's waits and the simulator's on a clock the test controls: a Retry-After
// costs no real seconds.
useVirtualClock();
const ctx = useSimulator({ smsRecords: 0 });

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const SLOT_MS = 15 * MINUTE_MS;
const IN_FLIGHT = ['PENDING', 'SENT'];

const emittedPairs = (outcome: PollOutcome) =>
	(outcome.items ?? []).map(({ json }) => `${String(json.id)}:${String(json.status)}`);

/**
 * Runs `run` from `time` on n8n's (wall) clock, which moves on from there as the run waits. Time
 * between polls passes on every clock (the limiter's monotonic one sees n8n idle, as a real process
 * does) and fires the timers due in it; with `onlyN8nClock`, the monotonic clock and the timers
 * set before keep their course (a poll still hanging when the next begins).
 */
async function at<T>(
	time: number,
	run: () => Promise<T>,
	{ onlyN8nClock = false } = {},
): Promise<T> {
	if (!onlyN8nClock && time > Date.now()) jest.advanceTimersByTime(time - Date.now());
	jest.setSystemTime(time);
	return await run();
}

/**
 * One history: what to watch, how n8n polls, whether new messages are listed late (up to this
 * many polls, 3 minutes apart) and whether pages give totals.
 */
interface History {
	seed: number;
	statuses: string[];
	mode: PollMode;
	late?: number;
	noTotals?: boolean;
	/**
	 * Polls as n8n makes them in the field: at a random second of the minute (n8n's Every Minute
	 * picks one per activation), 1 to 3 minutes apart, n8n stopped now and then for 16 to 40
	 * minutes, a 503 whose Retry-After does not fit in the poll's budget (1 s), and on n8n's
	 * default path a poll that hangs past its lease while the next takes over. Moves between
	 * outcome statuses must come by the first clean poll of a later Full Reading slot.
	 */
	field?: boolean;
}

const WATCH_SETS = [
	['DELIVERED', 'FAILED'],
	['FAILED'],
	['SENT', 'DELIVERED'],
	['PENDING', 'SENT', 'DELIVERED', 'FAILED'],
	['PENDING', 'SENT'],
	['SENT'],
];
const MODES: PollMode[] = ['memory', 'scheduler', 'durable'];

/** Every watch set in every mode, four times over (different seeds). */
function histories(first: number, extra: Partial<History> = {}): History[] {
	return Array.from({ length: WATCH_SETS.length * MODES.length * 2 }, (_, i) => ({
		seed: first + i,
		statuses: WATCH_SETS[i % WATCH_SETS.length],
		mode: MODES[Math.floor(i / WATCH_SETS.length) % MODES.length],
		...extra,
	}));
}

/**
 * Runs one random history: messages sent, moving on, moving back, failing, sent again; while
 * polls read, the list changes, answers come back empty (a 200 with no records), pages fail (500)
 * or are retried (503), and n8n restarts. Checked against a model of each message's statuses:
 * nothing emitted twice, nothing emitted that did not happen, and after every clean poll (no fault,
 * no change while it read) every status a message reached since the activation has been emitted,
 * but for a move between two outcome statuses (DELIVERED to FAILED), which may wait for the next
 * full reading. Not checked, but that none is emitted twice (docs/trigger.md): the in-flight
 * statuses of a message sent again from an outcome status that no poll had seen in flight.
 */
async function runHistory({
	seed,
	statuses,
	mode,
	late = 0,
	noTotals = false,
	field = false,
}: History) {
	const random = seeded(seed);
	const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
	// The clock: 30 s into a Full Reading slot, so that the polls 15 minutes apart are full readings;
	// in the field, at this history's second of the minute, a few seconds late at times.
	const second = field ? Math.floor(random() * 60) * 1000 : 0;
	const start = Math.floor(Date.now() / SLOT_MS) * SLOT_MS + (field ? second : 30_000);
	let minutes = 0;
	let lateBy = 0;
	const now = () => start + minutes * MINUTE_MS + lateBy;
	const message = (status: string, sentAt: number) =>
		ctx.sim.addSms({
			recipient: `2547${String(10_000_000 + ctx.sim.sms.length)}`,
			content: `Your code is ${1000 + ctx.sim.sms.length}`,
			status,
			sentAt: new Date(sentAt).toISOString(),
			campaignId: undefined,
		});
	ctx.sim.omitTotals = noTotals;
	for (let i = 0; i < 150; i++) {
		const roll = random();
		const status =
			roll < 0.6 ? 'DELIVERED' : roll < 0.7 ? 'FAILED' : roll < 0.95 ? 'SENT' : 'PENDING';
		message(status, start - (36 - (36 * i) / 150) * HOUR_MS);
	}
	const parameters = { statuses };
	const budgetMs = field ? 1_000 : undefined;
	let trigger: ActiveTrigger = await at(now(), () =>
		activateTrigger({ parameters, credentials: ctx.credentials, mode, budgetMs }),
	);
	expect(trigger.atActivation.items).toBeNull();
	const model = new Model(statuses);
	const emitted: string[] = [];
	const problems: string[] = [];
	/** Messages the lists leave out for now, each with the round it is listed again at. */
	const unlisted = new Map<number, number>();
	let round = 0;
	const change = (time: number) =>
		model.change(random, pick, time, () => {
			const status = random() < 0.9 ? pick(['PENDING', 'SENT']) : pick(['DELIVERED', 'FAILED']);
			const { id } = message(status, time + MINUTE_MS);
			if (late && random() < 0.4) {
				ctx.sim.setListed(id, false);
				unlisted.set(id, round + 1 + Math.floor(random() * late));
			}
			return { id, status };
		});
	for (; round < 30; round++) {
		for (const [id, when] of unlisted) {
			if (when > round) continue;
			ctx.sim.setListed(id, true);
			unlisted.delete(id);
		}
		const changes = Math.floor(random() * 6);
		for (let i = 0; i < changes; i++) change(now());
		let clean = injectFaults(random, () => change(now()), field);
		if (clean) model.pollSees(unlisted);
		if (field) {
			minutes += 1 + Math.floor(random() * 3);
			// n8n stopped for 16 to 40 minutes now and then; a poll a few seconds late.
			if (random() < 0.08) minutes += 16 + Math.floor(random() * 25);
			lateBy = random() < 0.2 ? Math.floor(random() * 4000) : 0;
		} else minutes += 3;
		let outcome: PollOutcome;
		if (field && mode === 'memory' && clean && random() < 0.08) {
			// A poll that hangs on one request past its lease (10 minutes), and the next that takes
			// over: the one that took over is the clean poll.
			// Its answer comes 300 ms after the poll that takes over began: during that poll or after
			// it. (Held until that poll ends, it would hold the shared limiter's only room after
			// refusals, and the poll that takes over would wait out its budget of 1 s for it: a starved
			// poll, not a fault.)
			const hung = hold();
			ctx.sim.inject({
				path: '/sms',
				skip: Math.floor(random() * 5),
				beforeAnswer: hung.arrived,
				heldUntil: hung.released,
			});
			const hanging = at(now(), () => trigger.poll());
			await Promise.race([hung.arrival, hanging]);
			minutes += 11;
			setTimeout(hung.release, 300);
			outcome = await at(now(), () => trigger.poll(), { onlyN8nClock: true });
			const late = await hanging;
			if (late.items !== null) problems.push(`round ${round}: a poll that lost its lease emitted`);
		} else outcome = await at(now(), () => trigger.poll());
		emitted.push(...emittedPairs(outcome));
		if (outcome.error) clean = false;
		if (process.env.HISTORY_DEBUG) {
			const watchIds = process.env.HISTORY_DEBUG.split(',').map(Number);
			const state = (id: number) =>
				`${id}:${ctx.sim.sms.find((m) => m.id === id)?.status}${unlisted.has(id) ? '(unlisted)' : ''}`;
			console.log(
				round,
				clean ? 'clean' : 'fault',
				emittedPairs(outcome).join(' '),
				outcome.error?.message ?? '',
				watchIds.map(state).join(' '),
				ctx.sim.requests
					.filter((r) => r.path === '/sms')
					.map(
						(r) =>
							`${r.query.status ?? '*'}:${r.query.page}:${r.query.records}${r.query.sort === 'id,asc' ? 'asc' : ''}`,
					)
					.join(' '),
				JSON.stringify(trigger.staticData['node:SMS Messaging Trigger']),
			);
			ctx.sim.requests = [];
		}
		ctx.sim.faults = [];
		if (clean) {
			const missed = model
				.due(unlisted)
				.filter(
					(pair) => !model.mayWait(pair, field ? now() : undefined) && !emitted.includes(pair),
				);
			if (missed.length)
				problems.push(`after the clean poll of round ${round}: ${missed.join(' ')} not emitted`);
		}
		if (round % 13 === 12) {
			// n8n restarts: the same workflow, its static data as n8n saved it.
			trigger = await at(now(), () =>
				activateTrigger({
					parameters,
					credentials: ctx.credentials,
					staticData: trigger.savedStaticData,
					activation: 'init',
					mode,
					budgetMs,
					restart: true,
				}),
			);
			emitted.push(...emittedPairs(trigger.atActivation));
		}
	}
	// Every message listed; the next full reading, then one more poll, with nothing going wrong.
	for (const id of unlisted.keys()) ctx.sim.setListed(id, true);
	unlisted.clear();
	model.pollSees(unlisted);
	minutes = Math.ceil((minutes * MINUTE_MS) / SLOT_MS) * (SLOT_MS / MINUTE_MS) + 15;
	emitted.push(...emittedPairs(await at(now(), () => trigger.poll())));
	minutes += 1;
	emitted.push(...emittedPairs(await at(now(), () => trigger.poll())));
	if (process.env.HISTORY_DEBUG)
		console.log(
			'end',
			emitted.slice(-10).join(' '),
			JSON.stringify(trigger.staticData['node:SMS Messaging Trigger']),
		);
	problems.push(...model.check(emitted, unlisted));
	return { problems, gained: model.gainedWatched() };
}

/** Things that happen while a poll reads the list; true when none does (a clean poll). */
function injectFaults(random: () => number, change: () => void, field: boolean): boolean {
	const roll = random();
	const skip = Math.floor(random() * 5);
	if (field && roll >= 0.6 && roll < 0.65) {
		// A Retry-After that does not fit in the poll's budget (1 s): the poll ends there.
		ctx.sim.inject({ path: '/sms', skip, status: 503, retryAfter: 2 });
		return false;
	}
	if (roll < 0.3) {
		const during = 1 + Math.floor(random() * 4);
		ctx.sim.inject({
			path: '/sms',
			skip,
			beforeAnswer: () => {
				for (let i = 0; i < during; i++) change();
			},
		});
	} else if (roll < 0.5) {
		ctx.sim.inject({ path: '/sms', skip, empty: true, count: 1 + Math.floor(random() * 3) });
	} else if (roll < 0.55) {
		ctx.sim.inject({ path: '/sms', skip, status: 500 });
	} else if (roll < 0.6) {
		ctx.sim.inject({
			path: '/sms',
			skip,
			status: 503,
			retryAfter: 0,
			beforeAnswer: () => change(),
		});
	}
	return ctx.sim.faults.length === 0;
}

/** What happened to each message since the activation, and so what must be emitted. */
class Model {
	private readonly atActivation = new Set(ctx.sim.sms.map((m) => `${m.id}:${m.status}`));
	private readonly gained = new Set<string>();
	/**
	 * Outcome statuses reached from another outcome status, as the trigger can see it: DELIVERED to
	 * FAILED, or a failed message sent again and delivered before any poll saw it in flight. Only a
	 * full reading is sure to see those.
	 */
	private readonly movedBetweenOutcomes = new Map<string, number>();
	/** Messages in an outcome status since the last clean poll that could see them in flight. */
	private readonly outcomeSinceSeen = new Set(
		ctx.sim.sms.filter((m) => !IN_FLIGHT.includes(m.status)).map((m) => m.id),
	);
	/** Messages a clean poll (or the activation) saw in flight, with that status: "id:SENT". */
	private readonly seenInFlight = new Set(
		ctx.sim.sms.filter((m) => IN_FLIGHT.includes(m.status)).map((m) => `${m.id}:${m.status}`),
	);
	/** Messages sent again from an outcome status that no clean poll had seen SENT before. */
	private readonly resentUnseen = new Set<number>();

	constructor(private readonly statuses: string[]) {}

	private setStatus(id: number, status: string, time: number): void {
		ctx.sim.setSmsStatus(id, status);
		if (!this.atActivation.has(`${id}:${status}`)) this.gained.add(`${id}:${status}`);
		if (IN_FLIGHT.includes(status)) return;
		if (this.outcomeSinceSeen.has(id)) this.movedBetweenOutcomes.set(`${id}:${status}`, time);
		this.outcomeSinceSeen.add(id);
	}

	/** One change, as the network and the sender make them; `send` sends a new message. */
	change(
		random: () => number,
		pick: <T>(list: T[]) => T,
		time: number,
		send: () => { id: number; status: string },
	): void {
		const roll = random();
		const inStatus = (status: string) => ctx.sim.sms.filter((m) => m.status === status);
		if (roll < 0.2) {
			const { id, status } = send();
			this.gained.add(`${id}:${status}`);
			if (!IN_FLIGHT.includes(status)) this.outcomeSinceSeen.add(id);
		} else if (roll < 0.3) {
			const pending = inStatus('PENDING');
			if (pending.length) this.setStatus(pick(pending).id, 'SENT', time);
		} else if (roll < 0.33) {
			// Back from SENT to PENDING (a route queued it again).
			const sent = inStatus('SENT');
			if (sent.length) this.setStatus(pick(sent).id, 'PENDING', time);
		} else if (roll < 0.95) {
			// Most changes are recent messages being delivered.
			const inFlight = inStatus('SENT').slice(-40);
			if (inFlight.length)
				this.setStatus(pick(inFlight).id, random() < 0.85 ? 'DELIVERED' : 'FAILED', time);
		} else if (roll < 0.98) {
			const delivered = inStatus('DELIVERED');
			if (delivered.length) this.setStatus(pick(delivered).id, 'FAILED', time);
		} else {
			// A failed message sent again under the same id: FAILED must not come twice.
			const failed = inStatus('FAILED');
			if (failed.length) {
				const { id } = pick(failed);
				if (!this.seenInFlight.has(`${id}:SENT`)) this.resentUnseen.add(id);
				this.setStatus(id, 'SENT', time);
			}
		}
	}

	/** A clean poll sees every listed message in flight, and follows it from then on. */
	pollSees(unlisted: Map<number, number>): void {
		for (const m of ctx.sim.sms) {
			if (!IN_FLIGHT.includes(m.status) || unlisted.has(m.id)) continue;
			this.outcomeSinceSeen.delete(m.id);
			this.seenInFlight.add(`${m.id}:${m.status}`);
		}
	}

	/** Every watched status a listed message is in now and reached since the activation. */
	due(unlisted: Map<number, number>): string[] {
		return ctx.sim.sms
			.filter((m) => !unlisted.has(m.id))
			.map((m) => `${m.id}:${m.status}`)
			.filter((pair) => this.gained.has(pair) && this.statuses.includes(pair.split(':')[1]));
	}

	/** How many times a message reached a watched status since the activation. */
	gainedWatched(): number {
		return [...this.gained].filter((pair) => this.statuses.includes(pair.split(':')[1])).length;
	}

	/**
	 * Whether a pair may wait for the next full reading: a move between two outcome statuses. With
	 * `at` (the time of a clean poll), only until the first clean poll of a later Full Reading slot.
	 */
	mayWait(pair: string, at?: number): boolean {
		const movedAt = this.movedBetweenOutcomes.get(pair);
		if (this.undecided(pair)) return true;
		if (movedAt === undefined) return false;
		return at === undefined || Math.floor(at / SLOT_MS) <= Math.floor(movedAt / SLOT_MS);
	}

	/** Whether `pair` is one whose emission the model does not decide (see runHistory). */
	private undecided(pair: string): boolean {
		const [id, status] = pair.split(':');
		return IN_FLIGHT.includes(status) && this.resentUnseen.has(Number(id));
	}

	/** Exactly once: never twice, only what happened and is watched, and all of it by the end. */
	check(emitted: string[], unlisted: Map<number, number>): string[] {
		const problems: string[] = [];
		const counts = new Map<string, number>();
		for (const pair of emitted) counts.set(pair, (counts.get(pair) ?? 0) + 1);
		for (const [pair, count] of counts)
			if (count > 1) problems.push(`${pair} emitted ${count} times`);
		for (const pair of emitted) {
			if (this.undecided(pair) && this.statuses.includes(pair.split(':')[1])) continue;
			if (!this.gained.has(pair) || !this.statuses.includes(pair.split(':')[1])) {
				problems.push(`${pair} emitted, never reached since the activation or not watched`);
			}
		}
		for (const pair of this.due(unlisted)) {
			if (!counts.has(pair) && !this.undecided(pair)) problems.push(`${pair} never emitted`);
		}
		return problems;
	}
}

/** Each history as a test: no problem against the model, and more than 5 watched statuses reached. */
function describeHistories(title: string, list: History[]) {
	describe(`SMS Messaging Trigger: ${title}`, () => {
		test.each(list)(
			'seed $seed, watching $statuses, n8n polling in $mode mode',
			async (history) => {
				const { problems, gained } = await runHistory(history);
				expect(problems).toEqual([]);
				expect(gained).toBeGreaterThan(5);
			},
			60_000,
		);
	});
}

describeHistories('random histories against a model', histories(1));
describeHistories('random histories with messages listed late', histories(101, { late: 2 }));
describeHistories(
	'random histories with messages listed up to two hours late',
	histories(301, { late: 40 }),
);
describeHistories(
	'random histories against an API whose pages give no totals',
	histories(501, { noTotals: true }),
);
describeHistories(
	'random histories without totals, messages listed late',
	histories(701, { noTotals: true, late: 40 }),
);
describeHistories(
	'random histories in the field: polls at random seconds, pauses, hanging polls, Retry-After past the budget',
	histories(901, { field: true }),
);
describeHistories(
	'random histories in the field, messages listed late, pages without totals',
	histories(1301, { field: true, late: 40, noTotals: true }),
);
