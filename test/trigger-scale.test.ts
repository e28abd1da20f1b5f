// SMS Messaging Trigger at ten times a user's size, in each of n8n's three poll modes
// (test/helpers/poll.ts): what a poll costs in list requests, and what it keeps in static data.
import {
	activateTrigger,
	POLL_MODES,
	type ActiveTrigger,
	type PollMode,
	type PollOutcome,
} from './helpers/poll';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 0 });

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const SLOT_MS = 15 * MINUTE_MS;

const emittedPairs = (outcome: PollOutcome) =>
	(outcome.items ?? []).map(({ json }) => `${String(json.id)}:${String(json.status)}`);
const listRequests = () => ctx.sim.requests.filter((r) => r.path === '/sms');
const bytes = (trigger: ActiveTrigger) =>
	Buffer.byteLength(JSON.stringify(trigger.savedStaticData));

/** A clock the test moves: 30 s into a Full Reading slot at the start. */
function testClock() {
	let time = Math.floor(Date.now() / SLOT_MS) * SLOT_MS + 30_000;
	return {
		now: () => time,
		/** Runs `run` `ms` later than the last step, with Date.now there. */
		async after<T>(ms: number, run: () => Promise<T>): Promise<T> {
			time += ms;
			const clock = jest.spyOn(Date, 'now').mockReturnValue(time);
			try {
				return await run();
			} finally {
				clock.mockRestore();
			}
		},
	};
}

/** `count` messages sent over the last `hours` hours: 92% DELIVERED, 4% FAILED, 4% SENT. */
function fillWindow(count: number, hours: number, now: number) {
	for (let i = 0; i < count; i++) {
		const status = i % 25 === 0 ? 'FAILED' : i % 25 === 1 ? 'SENT' : 'DELIVERED';
		ctx.sim.addSms({
			recipient: `2547${String(10_000_000 + i)}`,
			content: `Your code is ${1000 + (i % 9000)}`,
			status,
			sentAt: new Date(now - hours * HOUR_MS + (hours * HOUR_MS * i) / count).toISOString(),
			campaignId: undefined,
		});
	}
}

/** One campaign of 100,000, all SENT, sent over 3 minutes from `from` (of them, `first` up to `end`). */
function bulkSend(from: number, [first, end] = [0, 100_000]) {
	const campaignId = '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0e7f6b3c';
	return Array.from({ length: end - first }, (_, k) =>
		ctx.sim.addSms({
			recipient: `2547${String(20_000_000 + first + k)}`,
			content: 'Our sale starts today',
			status: 'SENT',
			sentAt: new Date(from + Math.floor(((first + k) * 180_000) / 100_000)).toISOString(),
			campaignId,
		}),
	);
}

describe.each(POLL_MODES)(
	'SMS Messaging Trigger: a bulk send of 100,000, n8n polling in %s mode',
	(mode: PollMode) => {
		test('a poll with nothing new costs at most 10 requests, 1,000 deliveries and 50 failures come out exactly in at most 60, the static data stays within 64 KiB', async () => {
			const clock = testClock();
			fillWindow(10_000, 36, clock.now());
			const trigger = await clock.after(0, () =>
				activateTrigger({ parameters: {}, credentials: ctx.credentials, mode }),
			);
			if (mode === 'durable') await clock.after(MINUTE_MS, () => trigger.poll());
			const bulk = bulkSend(clock.now() + MINUTE_MS);
			const costs: number[] = [];
			for (let poll = 0; poll < 4; poll++) {
				ctx.sim.requests = [];
				expect((await clock.after(MINUTE_MS, () => trigger.poll())).items).toBeNull();
				costs.push(listRequests().length);
			}
			expect(Math.max(...costs)).toBeLessThanOrEqual(10);
			expect(bytes(trigger)).toBeLessThan(64 * 1024);

			for (let round = 0; round < 2; round++) {
				// 1,000 of them delivered and 50 failed, spread over the campaign.
				const still = bulk.filter((m) => m.status === 'SENT');
				const delivered = still.filter((_, i) => i % 97 === round * 13).slice(0, 1000);
				const failed = still
					.filter((m, i) => i % 1993 === round * 7 + 11 && !delivered.includes(m))
					.slice(0, 50);
				for (const { id } of delivered) ctx.sim.setSmsStatus(id, 'DELIVERED');
				for (const { id } of failed) ctx.sim.setSmsStatus(id, 'FAILED');
				ctx.sim.requests = [];
				const outcome = await clock.after(MINUTE_MS, () => trigger.poll());
				expect(listRequests().length).toBeLessThanOrEqual(60);
				expect(emittedPairs(outcome).sort()).toEqual(
					[
						...delivered.map(({ id }) => `${id}:DELIVERED`),
						...failed.map(({ id }) => `${id}:FAILED`),
					].sort(),
				);
				expect(bytes(trigger)).toBeLessThan(64 * 1024);
				ctx.sim.requests = [];
				expect((await clock.after(MINUTE_MS, () => trigger.poll())).items).toBeNull();
				expect(listRequests().length).toBeLessThanOrEqual(10);
			}
		}, 600_000);

		test('the send listed as it goes out, over three polls, after 20 messages sent since publishing (known above the mark): each poll costs 6 requests, as before issue 72, and emits nothing', async () => {
			const clock = testClock();
			fillWindow(10_000, 36, clock.now());
			const trigger = await clock.after(0, () =>
				activateTrigger({ parameters: {}, credentials: ctx.credentials, mode }),
			);
			// In durable mode n8n keeps nothing of the activation's poll: the first poll is the baseline.
			if (mode === 'durable') await clock.after(0, () => trigger.poll());
			for (let i = 0; i < 20; i++) {
				ctx.sim.addSms({
					recipient: `2547${String(30_000_000 + i)}`,
					content: 'Your code is 4242',
					status: 'DELIVERED',
					sentAt: new Date(clock.now()).toISOString(),
					campaignId: undefined,
				});
			}
			expect(emittedPairs(await clock.after(MINUTE_MS, () => trigger.poll()))).toHaveLength(20);
			// 10 minutes on, the mark rises over them: the late search has known messages to go by.
			// (The three polls of the send stay within the slot: no full reading among them.)
			expect((await clock.after(10 * MINUTE_MS, () => trigger.poll())).items).toBeNull();
			const start = clock.now() + MINUTE_MS;
			const costs: number[] = [];
			for (const part of [0, 1, 2]) {
				bulkSend(start, [part * 33_334, Math.min(100_000, (part + 1) * 33_334)]);
				ctx.sim.requests = [];
				expect((await clock.after(MINUTE_MS, () => trigger.poll())).items).toBeNull();
				costs.push(listRequests().length);
			}
			// The first pages, and one page of the list of every status oldest first from the mark: the
			// search for messages listed late below it (the count grew) reads the page the mark is then
			// raised from (7 when it read a page of its own).
			expect(costs).toEqual([6, 6, 6]);
		}, 600_000);
	},
);

describe.each(POLL_MODES)(
	'SMS Messaging Trigger: 150,000 messages in 31 days, n8n polling in %s mode',
	(mode: PollMode) => {
		test('activation reads the in-flight and FAILED lists and at most 11 more requests; nothing new costs at most 8, 20 recent changes at most 30; the static data stays within 64 KiB', async () => {
			const clock = testClock();
			fillWindow(150_000, 30 * 24, clock.now());
			const parameters = { options: { lookbackDays: 31 } };
			ctx.sim.requests = [];
			const trigger = await clock.after(0, () =>
				activateTrigger({ parameters, credentials: ctx.credentials, mode }),
			);
			if (mode === 'durable') {
				ctx.sim.requests = [];
				await clock.after(MINUTE_MS, () => trigger.poll());
			}
			// 6,000 SENT and 6,000 FAILED: 60 pages each.
			const pages = (status: string) =>
				listRequests().filter((r) => r.query.status === status).length;
			expect(listRequests().length).toBeLessThanOrEqual(60 + 60 + 11);
			expect(pages('DELIVERED')).toBe(1);
			expect(bytes(trigger)).toBeLessThan(64 * 1024);
			ctx.sim.requests = [];
			expect((await clock.after(MINUTE_MS, () => trigger.poll())).items).toBeNull();
			expect(listRequests().length).toBeLessThanOrEqual(8);

			const inFlight = ctx.sim.sms.filter((m) => m.status === 'SENT').slice(-20);
			inFlight.forEach(({ id }, i) => ctx.sim.setSmsStatus(id, i % 5 ? 'DELIVERED' : 'FAILED'));
			ctx.sim.requests = [];
			const outcome = await clock.after(MINUTE_MS, () => trigger.poll());
			expect(emittedPairs(outcome).sort()).toEqual(
				inFlight.map(({ id }, i) => `${id}:${i % 5 ? 'DELIVERED' : 'FAILED'}`).sort(),
			);
			expect(listRequests().length).toBeLessThanOrEqual(30);
			expect(bytes(trigger)).toBeLessThan(64 * 1024);
		}, 600_000);
	},
);

/**
 * A clock the test controls, as the API's latency moves it: every list request takes `ms`. Gives
 * the time (ms) and stops when `stop` is called.
 */
function requestClock(ms: number) {
	let time = Math.floor(Date.now() / SLOT_MS) * SLOT_MS + 30_000;
	const clock = jest.spyOn(Date, 'now').mockImplementation(() => time);
	ctx.sim.inject({ path: '/sms', count: Infinity, beforeAnswer: () => (time += ms) });
	return {
		now: () => time,
		step: (by: number) => (time += by),
		stop: () => clock.mockRestore(),
	};
}

describe.each(POLL_MODES)(
	"SMS Messaging Trigger: within n8n's poll budget, n8n polling in %s mode",
	(mode: PollMode) => {
		const budgetMs = 1_500;
		const settle = async (trigger: ActiveTrigger, clock: ReturnType<typeof requestClock>) => {
			const pairs: string[] = [];
			const durations: number[] = [];
			for (let poll = 0; poll < 8; poll++) {
				clock.step(MINUTE_MS);
				const began = clock.now();
				const outcome = await trigger.poll();
				expect(outcome.error).toBeUndefined();
				durations.push(clock.now() - began);
				pairs.push(...emittedPairs(outcome));
				ctx.sim.requests = [];
			}
			return { pairs, longest: Math.max(...durations) };
		};

		test('a budget of 1.5 s at 5 ms a request: after a bulk send of 100,000, no poll runs past 2.5 s, and 1,050 changes come out exactly once', async () => {
			const clock = requestClock(5);
			try {
				fillWindow(10_000, 36, clock.now());
				const trigger = await activateTrigger({
					parameters: {},
					credentials: ctx.credentials,
					mode,
					budgetMs,
				});
				if (mode === 'durable') await settle(trigger, clock);
				const bulk = bulkSend(clock.now() + MINUTE_MS);
				const before = await settle(trigger, clock);
				expect(before.pairs).toEqual([]);
				const delivered = bulk.filter((_, i) => i % 97 === 5).slice(0, 1000);
				const failed = bulk.filter((_, i) => i % 1993 === 11 && i % 97 !== 5).slice(0, 50);
				for (const { id } of delivered) ctx.sim.setSmsStatus(id, 'DELIVERED');
				for (const { id } of failed) ctx.sim.setSmsStatus(id, 'FAILED');
				const { pairs, longest } = await settle(trigger, clock);
				expect(longest).toBeLessThanOrEqual(2_500);
				expect(before.longest).toBeLessThanOrEqual(2_500);
				expect(pairs.sort()).toEqual(
					[
						...delivered.map(({ id }) => `${id}:DELIVERED`),
						...failed.map(({ id }) => `${id}:FAILED`),
					].sort(),
				);
			} finally {
				clock.stop();
			}
		}, 600_000);

		test('SENT watched, a bulk send of 100,000: each poll reads no longer than its budget and one request, and the next goes on where it stopped, until each message came out once', async () => {
			const clock = requestClock(5);
			try {
				fillWindow(1_000, 36, clock.now());
				const trigger = await activateTrigger({
					parameters: { statuses: ['SENT'] },
					credentials: ctx.credentials,
					mode,
					budgetMs,
				});
				if (mode === 'durable') await settle(trigger, clock);
				const bulk = bulkSend(clock.now() + MINUTE_MS);
				const { pairs, longest } = await settle(trigger, clock);
				expect(longest).toBeLessThanOrEqual(budgetMs + 5);
				expect(new Set(pairs).size).toBe(pairs.length);
				expect(pairs.sort()).toEqual(bulk.map(({ id }) => `${id}:SENT`).sort());
			} finally {
				clock.stop();
			}
		}, 600_000);
	},
);

describe.each(POLL_MODES)(
	'SMS Messaging Trigger: a bulk send delivered newest first, n8n polling in %s mode',
	(mode: PollMode) => {
		test('each block of deliveries sits below the ones before in DELIVERED: found by seeking, each emitted once', async () => {
			const clock = testClock();
			fillWindow(2_000, 36, clock.now());
			const trigger = await clock.after(0, () =>
				activateTrigger({ parameters: {}, credentials: ctx.credentials, mode }),
			);
			if (mode === 'durable') await clock.after(MINUTE_MS, () => trigger.poll());
			const bulk = bulkSend(clock.now() + MINUTE_MS);
			expect((await clock.after(MINUTE_MS, () => trigger.poll())).items).toBeNull();
			// Eight rounds of 1,000 deliveries, each round older than the one before.
			for (let round = 0; round < 8; round++) {
				const block = bulk.slice(bulk.length - (round + 1) * 1_000, bulk.length - round * 1_000);
				for (const { id } of block) ctx.sim.setSmsStatus(id, 'DELIVERED');
				const outcome = await clock.after(MINUTE_MS, () => trigger.poll());
				expect(emittedPairs(outcome).sort()).toEqual(
					block.map(({ id }) => `${id}:DELIVERED`).sort(),
				);
			}
			expect((await clock.after(MINUTE_MS, () => trigger.poll())).items).toBeNull();
		}, 600_000);
	},
);
