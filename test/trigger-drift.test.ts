// SMS Messaging Trigger (issue 63): a stored picture that cannot drift from the API, in each of
// n8n's three poll modes (test/helpers/poll.ts): what a poll that meets a gap between two pages,
// a late poll, a pause or a new day leaves stored, and what the polls after it cost and emit.
import type { INodeParameters } from 'n8n-workflow';

import { activateTrigger, POLL_MODES, type ActiveTrigger, type PollMode } from './helpers/poll';
import { addMessage, hold, useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 0 });

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const emittedPairs = (items: Array<{ json: Record<string, unknown> }> | null) =>
	(items ?? []).map(({ json }) => `${String(json.id)}:${String(json.status)}`);
const listRequests = () => ctx.sim.requests.filter((r) => r.path === '/sms');

/**
 * A clock the test moves: Date.now reads it for the whole test (polls that overlap see one clock).
 */
function testClock(start: number) {
	let time = start;
	const spy = jest.spyOn(Date, 'now').mockImplementation(() => time);
	afterClock.push(() => spy.mockRestore());
	return {
		now: () => time,
		set: (to: number) => (time = to),
		run: async <T>(run: () => Promise<T>): Promise<T> => await run(),
	};
}
const afterClock: Array<() => void> = [];
afterEach(() => afterClock.splice(0).forEach((restore) => restore()));

/** A message in `status`, sent at `sentAt`. */
const message = (status: string, sentAt: number) => addMessage(ctx.sim, status, sentAt);

async function activate(
	clock: ReturnType<typeof testClock>,
	mode: PollMode,
	parameters: INodeParameters,
): Promise<ActiveTrigger> {
	const trigger = await clock.run(() =>
		activateTrigger({ parameters, credentials: ctx.credentials, mode }),
	);
	expect(trigger.atActivation.items).toBeNull();
	return trigger;
}

const SLOT_MS = 15 * MINUTE_MS;

/**
 * The costs of the polls that are not the first of a Full Reading slot (15 minutes): a quiet
 * poll's, once the picture is right.
 */
const notFullReadings = (polls: Array<{ at: number; cost: number }>) =>
	polls.filter(
		({ at }, i) => i > 0 && Math.floor(at / SLOT_MS) === Math.floor(polls[i - 1].at / SLOT_MS),
	);

/** Runs a poll at the clock's time: what it emitted, and how many list requests it made. */
async function pollAt(clock: ReturnType<typeof testClock>, trigger: ActiveTrigger) {
	ctx.sim.requests = [];
	const outcome = await clock.run(() => trigger.poll());
	expect(outcome.error).toBeUndefined();
	return { pairs: emittedPairs(outcome.items), cost: listRequests().length, at: clock.now() };
}

describe.each(POLL_MODES)('SMS Messaging Trigger: n8n polling in %s mode', (mode) => {
	test('only FAILED watched: a SENT message on no first page delivered leaves no count apart; the polls after it cost what a quiet poll cost, across midnight UTC', async () => {
		// 40 minutes before midnight UTC: the polls below cross into a new day.
		const midnight = Math.ceil(Date.now() / DAY_MS) * DAY_MS;
		const clock = testClock(midnight - 40 * MINUTE_MS + 7_000);
		const sent = Array.from({ length: 300 }, (_, i) =>
			message('SENT', clock.now() - 10 * HOUR_MS + i * 1000),
		);
		for (let i = 0; i < 200; i++) message('DELIVERED', clock.now() - 5 * HOUR_MS + i * 1000);
		const trigger = await activate(clock, mode, { statuses: ['FAILED'] });
		const quiet: number[] = [];
		for (let i = 0; i < 3; i++) {
			clock.set(clock.now() + MINUTE_MS);
			const { pairs, cost } = await pollAt(clock, trigger);
			expect(pairs).toEqual([]);
			quiet.push(cost);
		}
		// The SENT message 101st from the top: on SENT's second page, no first page shows it.
		ctx.sim.setSmsStatus(sent[300 - 101].id, 'DELIVERED');
		const after: Array<{ at: number; cost: number }> = [];
		for (let i = 0; i < 20; i++) {
			clock.set(clock.now() + MINUTE_MS);
			const { pairs, ...polled } = await pollAt(clock, trigger);
			expect(pairs).toEqual([]);
			after.push(polled);
		}
		// The first poll reads where the counts differ; every poll after it that is not a full
		// reading costs a quiet poll's.
		const costly = (polls: typeof after) =>
			notFullReadings(polls).filter(({ cost }) => cost > Math.max(...quiet));
		expect(costly(after.slice(1))).toEqual([]);
		// Past midnight (the counts asked from the new window's start once), quiet again.
		for (let i = 0; i < 25; i++) {
			clock.set(clock.now() + MINUTE_MS);
			after.push(await pollAt(clock, trigger));
		}
		expect(costly(after.slice(-10))).toEqual([]);
		// And the picture is right: that message failing now comes at the next poll.
		ctx.sim.setSmsStatus(sent[300 - 101].id, 'FAILED');
		clock.set(clock.now() + MINUTE_MS);
		expect((await pollAt(clock, trigger)).pairs).toEqual([`${sent[300 - 101].id}:FAILED`]);
	}, 120_000);

	test('only FAILED watched: 4,000 SENT messages on no first page delivered over a few polls (7,000 in flight: more than the 2,000 read whole at every poll); the polls after them cost what a quiet poll cost', async () => {
		const clock = testClock(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 5 * MINUTE_MS + 7_000);
		const sent = Array.from({ length: 7_000 }, (_, i) =>
			message('SENT', clock.now() - 20 * HOUR_MS + i * 1000),
		);
		for (let i = 0; i < 2_000; i++) message('DELIVERED', clock.now() - 3 * HOUR_MS + i * 100);
		const trigger = await activate(clock, mode, {
			statuses: ['FAILED'],
			// One full reading a day (at the baseline here): the polls below read what the counts say.
			options: { fullReadingMinutes: 1440 },
		});
		const quiet: number[] = [];
		for (let i = 0; i < 3; i++) {
			clock.set(clock.now() + MINUTE_MS);
			quiet.push((await pollAt(clock, trigger)).cost);
		}
		for (let round = 0; round < 4; round++) {
			// 1,000 deliveries spread below SENT's first page.
			for (let i = 0; i < 1_000; i++) ctx.sim.setSmsStatus(sent[round + i * 5].id, 'DELIVERED');
			clock.set(clock.now() + MINUTE_MS);
			expect((await pollAt(clock, trigger)).pairs).toEqual([]);
		}
		const after: Array<{ at: number; cost: number }> = [];
		for (let i = 0; i < 10; i++) {
			clock.set(clock.now() + MINUTE_MS);
			const { pairs, ...polled } = await pollAt(clock, trigger);
			expect(pairs).toEqual([]);
			after.push(polled);
		}
		expect(notFullReadings(after.slice(1)).filter(({ cost }) => cost > Math.max(...quiet))).toEqual(
			[],
		);
	}, 300_000);
});

describe.each(POLL_MODES)('SMS Messaging Trigger: publishing, n8n polling in %s mode', (mode) => {
	test('3 deliveries and 2 failures between publishing and the first scheduled poll come with that poll, once', async () => {
		const clock = testClock(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 5 * MINUTE_MS + 7_000);
		const sent = Array.from({ length: 8 }, (_, i) => message('SENT', clock.now() - HOUR_MS + i));
		for (let i = 0; i < 30; i++) message('DELIVERED', clock.now() - 2 * HOUR_MS + i);
		const trigger = await activate(clock, mode, {});
		sent.slice(0, 3).forEach(({ id }) => ctx.sim.setSmsStatus(id, 'DELIVERED'));
		sent.slice(3, 5).forEach(({ id }) => ctx.sim.setSmsStatus(id, 'FAILED'));
		clock.set(clock.now() + MINUTE_MS);
		expect((await pollAt(clock, trigger)).pairs.sort()).toEqual(
			[
				...sent.slice(0, 3).map(({ id }) => `${id}:DELIVERED`),
				...sent.slice(3, 5).map(({ id }) => `${id}:FAILED`),
			].sort(),
		);
		clock.set(clock.now() + MINUTE_MS);
		expect((await pollAt(clock, trigger)).pairs).toEqual([]);
	});
});

describe.each(POLL_MODES)(
	'SMS Messaging Trigger: moves only a full reading sees, n8n polling in %s mode',
	(mode) => {
		/**
		 * One DELIVERED message becomes FAILED while one FAILED becomes DELIVERED, neither on a first
		 * page: no count moves. Each comes by the next full reading, however the polls land.
		 */
		const swap = (clock: ReturnType<typeof testClock>) => {
			const failed = message('FAILED', clock.now() - 5 * HOUR_MS);
			const delivered = message('DELIVERED', clock.now() - 4 * HOUR_MS);
			for (let i = 0; i < 120; i++) message('FAILED', clock.now() - 3 * HOUR_MS + i);
			for (let i = 0; i < 120; i++) message('DELIVERED', clock.now() - 2 * HOUR_MS + i);
			return () => {
				ctx.sim.setSmsStatus(delivered.id, 'FAILED');
				ctx.sim.setSmsStatus(failed.id, 'DELIVERED');
				return [`${delivered.id}:FAILED`, `${failed.id}:DELIVERED`].sort();
			};
		};

		test.each([
			['every minute, at the 59th second and 1.5 s late', 59_000, 1_500, 0],
			[
				'every minute, at a random second, n8n stopped for 16 minutes over the full reading',
				23_000,
				0,
				16,
			],
			['every minute, each poll running 70 s (the next one comes late)', 10_000, 70_000, 0],
		])(
			'polls %s: the two moves come with the first poll after the next Full Reading slot began',
			async (_, second, late, pause) => {
				const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
				const clock = testClock(hour + 2 * MINUTE_MS + second);
				const moves = swap(clock);
				const trigger = await activate(clock, mode, {});
				let minute = 2;
				const pollAtMinute = async () => {
					clock.set(hour + minute * MINUTE_MS + second + late);
					return (await pollAt(clock, trigger)).pairs;
				};
				minute++;
				expect(await pollAtMinute()).toEqual([]);
				const expected = moves();
				const madeAt = clock.now();
				const emitted: string[] = [];
				const polls: number[] = [];
				let cameAt: number | undefined;
				for (minute++; minute < 60 && cameAt === undefined; minute++) {
					// n8n stopped from minute 13 on for `pause` minutes: no poll there.
					if (minute >= 13 && minute < 13 + pause) continue;
					emitted.push(...(await pollAtMinute()));
					polls.push(clock.now());
					if (emitted.length >= 2) cameAt = clock.now();
				}
				expect(emitted.sort()).toEqual(expected);
				// At the first poll after the next slot began, however late it comes.
				const slotBegins = Math.ceil(madeAt / SLOT_MS) * SLOT_MS;
				expect(cameAt).toBe(polls.find((at) => at >= slotBegins));
			},
			120_000,
		);
	},
);

describe('SMS Messaging Trigger: a poll that loses its lease (n8n default path)', () => {
	test('a poll whose request hangs past the lease stores nothing and emits nothing: the poll that took over emits once, and the next goes on from its picture', async () => {
		const clock = testClock(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 5 * MINUTE_MS + 7_000);
		const sent = Array.from({ length: 5 }, (_, i) => message('SENT', clock.now() - HOUR_MS + i));
		for (let i = 0; i < 30; i++) message('DELIVERED', clock.now() - 2 * HOUR_MS + i);
		const trigger = await activate(clock, 'memory', {});
		// The first failure, seen by the poll that hangs (its request for the DELIVERED list is
		// answered only after n8n's clock moved 11 minutes on and another poll took over).
		ctx.sim.setSmsStatus(sent[0].id, 'FAILED');
		clock.set(clock.now() + MINUTE_MS);
		const held = hold();
		ctx.sim.inject({
			path: '/sms',
			query: { status: 'DELIVERED' },
			beforeAnswer: held.arrived,
			heldUntil: held.released,
		});
		const hanging = clock.run(() => trigger.poll());
		await held.arrival;
		clock.set(clock.now() + 11 * MINUTE_MS);
		// The poll that takes over sees the first failure and a second one.
		ctx.sim.setSmsStatus(sent[1].id, 'FAILED');
		const takenOver = await pollAt(clock, trigger);
		held.release();
		expect(takenOver.pairs.sort()).toEqual([`${sent[0].id}:FAILED`, `${sent[1].id}:FAILED`].sort());
		const late = await hanging;
		expect(late.error).toBeUndefined();
		expect(late.items).toBeNull();
		// A third failure: the next poll emits it alone.
		ctx.sim.setSmsStatus(sent[2].id, 'FAILED');
		clock.set(clock.now() + MINUTE_MS);
		expect((await pollAt(clock, trigger)).pairs).toEqual([`${sent[2].id}:FAILED`]);
		clock.set(clock.now() + MINUTE_MS);
		expect((await pollAt(clock, trigger)).pairs).toEqual([]);
	});
});

describe.each(POLL_MODES)(
	'SMS Messaging Trigger: pages without totals, n8n polling in %s mode',
	(mode) => {
		test('a message listed 25 minutes late, below the mark, already DELIVERED, comes at the next poll once, and only once', async () => {
			ctx.sim.omitTotals = true;
			const clock = testClock(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 5 * MINUTE_MS + 7_000);
			for (let i = 0; i < 300; i++) message('DELIVERED', clock.now() - 3 * HOUR_MS + i * 1000);
			const trigger = await activate(clock, mode, {});
			const late = message('DELIVERED', clock.now() + 30_000);
			ctx.sim.setListed(late.id, false);
			const newer: string[] = [];
			const emitted: string[] = [];
			for (let minute = 1; minute <= 25; minute++) {
				const { id } = message('SENT', clock.now() + 30_000);
				ctx.sim.setSmsStatus(id, 'DELIVERED');
				newer.push(`${id}:DELIVERED`);
				clock.set(clock.now() + MINUTE_MS);
				emitted.push(...(await pollAt(clock, trigger)).pairs);
			}
			ctx.sim.setListed(late.id, true);
			clock.set(clock.now() + MINUTE_MS);
			expect((await pollAt(clock, trigger)).pairs).toEqual([`${late.id}:DELIVERED`]);
			clock.set(clock.now() + MINUTE_MS);
			expect((await pollAt(clock, trigger)).pairs).toEqual([]);
			expect(emitted.sort()).toEqual(newer.sort());
		}, 120_000);
	},
);

describe("SMS Messaging Trigger: n8n's task scheduler, a bulk send in flight", () => {
	/** 10,000 messages over 36 hours (92% DELIVERED, 4% FAILED, 4% SENT), then a bulk send. */
	const window = (clock: ReturnType<typeof testClock>, bulk: number) => {
		for (let i = 0; i < 10_000; i++) {
			const status = i % 25 === 0 ? 'FAILED' : i % 25 === 1 ? 'SENT' : 'DELIVERED';
			message(status, clock.now() - 36 * HOUR_MS + (36 * HOUR_MS * i) / 10_000);
		}
		return () =>
			Array.from({ length: bulk }, (_, i) =>
				message('SENT', clock.now() + Math.floor((i * 180_000) / bulk)),
			);
	};

	test.each([
		[20_000, 'one n8n process', false],
		[20_000, 'each poll on another main instance', true],
		[100_000, 'each poll on another main instance', true],
	])(
		'a bulk send of %i, %s: no quiet poll reads the send whole, over an hour of polls a minute apart',
		async (size, _, elsewhere) => {
			const clock = testClock(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 2 * MINUTE_MS + 7_000);
			const send = window(clock, size);
			const trigger = await clock.run(() =>
				activateTrigger({
					parameters: {},
					credentials: ctx.credentials,
					mode: 'scheduler',
					freshProcess: elsewhere ? 'everyPoll' : false,
				}),
			);
			clock.set(clock.now() + MINUTE_MS);
			send();
			const costs: number[] = [];
			for (let minute = 0; minute < 60; minute++) {
				clock.set(clock.now() + MINUTE_MS);
				const { pairs, cost } = await pollAt(clock, trigger);
				expect(pairs).toEqual([]);
				costs.push(cost);
			}
			// The send's SENT pages alone are size / 100.
			expect(Math.max(...costs)).toBeLessThanOrEqual(40);
		},
		600_000,
	);
});

describe('SMS Messaging Trigger: Watch Statuses changed and changed back, durable cursors', () => {
	test('a failure between the two re-publishings comes once: the baseline of the other Watch Statuses, not stored, is not taken for the ones stored', async () => {
		const clock = testClock(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 5 * MINUTE_MS + 7_000);
		const sent = Array.from({ length: 5 }, (_, i) => message('SENT', clock.now() - HOUR_MS + i));
		const failedOnly = { statuses: ['FAILED'] };
		const first = await activate(clock, 'durable', failedOnly);
		clock.set(clock.now() + MINUTE_MS);
		expect((await pollAt(clock, first)).pairs).toEqual([]);
		// Re-published with DELIVERED and FAILED (its baseline is not stored under durable cursors),
		const other = await clock.run(() =>
			activateTrigger({
				parameters: { statuses: ['DELIVERED', 'FAILED'] },
				credentials: ctx.credentials,
				mode: 'durable',
				staticData: first.savedStaticData,
				activation: 'update',
			}),
		);
		ctx.sim.setSmsStatus(sent[0].id, 'FAILED');
		// then back to FAILED alone before any scheduled poll.
		const back = await clock.run(() =>
			activateTrigger({
				parameters: failedOnly,
				credentials: ctx.credentials,
				mode: 'durable',
				staticData: other.savedStaticData,
				activation: 'update',
			}),
		);
		const emitted = emittedPairs(back.atActivation.items);
		clock.set(clock.now() + MINUTE_MS);
		emitted.push(...(await pollAt(clock, back)).pairs);
		clock.set(clock.now() + MINUTE_MS);
		emitted.push(...(await pollAt(clock, back)).pairs);
		expect(emitted).toEqual([`${sent[0].id}:FAILED`]);
	});
});
