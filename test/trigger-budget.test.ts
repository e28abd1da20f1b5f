// SMS Messaging Trigger within n8n's poll budget (getPollBudgetMs), every wait counted: a
// Retry-After, a retry's backoff and the shared limiter's hold end the poll when they would pass
// it; the poll emits and stores what it found, and the next goes on. On a clock the test controls
// (test/helpers/virtual-clock.ts), in each of n8n's three poll modes (test/helpers/poll.ts).
import { DeadlinePassed } from '../nodes/shared/requests/deadline';
import { Limiter } from '../nodes/shared/requests/limiter';
import { activateTrigger, POLL_MODES, type ActiveTrigger } from './helpers/poll';
import { addMessage, useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator({ smsRecords: 0, latencyMs: 20 });

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

const emittedPairs = (items: Array<{ json: Record<string, unknown> }> | null) =>
	(items ?? []).map(({ json }) => `${String(json.id)}:${String(json.status)}`);

/** A message in `status`, sent at `sentAt`. */
const message = (status: string, sentAt: number) => addMessage(ctx.sim, status, sentAt);

/** A poll after `wait` of this clock: what it emitted and how long it ran. */
async function timedPoll(trigger: ActiveTrigger, wait = MINUTE_MS) {
	await new Promise((resolve) => setTimeout(resolve, wait));
	const began = Date.now();
	const outcome = await trigger.poll();
	return { outcome, pairs: emittedPairs(outcome.items), ms: Date.now() - began };
}

describe.each(POLL_MODES)(
	'SMS Messaging Trigger: every wait within the poll budget, n8n polling in %s mode',
	(mode) => {
		test('a budget of 1 s and a 503 asking to wait 4 s: the poll ends within its budget, emits what it found, and the next poll emits the rest', async () => {
			// 30 SENT, 120 DELIVERED, 120 SENT, newest last.
			const older = Array.from({ length: 30 }, (_, i) => message('SENT', Date.now() - HOUR_MS + i));
			for (let i = 0; i < 120; i++) message('DELIVERED', Date.now() - HOUR_MS / 2 + i);
			const newer = Array.from({ length: 120 }, (_, i) =>
				message('SENT', Date.now() - 20 * MINUTE_MS + i),
			);
			const trigger = await activateTrigger({
				parameters: {},
				credentials: ctx.credentials,
				mode,
				budgetMs: 1_000,
			});
			if (mode === 'durable') expect((await timedPoll(trigger)).outcome.items).toBeNull();
			// The three newest delivered (on DELIVERED's first page) and an older one (below the 120
			// DELIVERED, on no first page).
			const top = newer.slice(-3);
			for (const { id } of top) ctx.sim.setSmsStatus(id, 'DELIVERED');
			const deep = older[20];
			ctx.sim.setSmsStatus(deep.id, 'DELIVERED');
			// Every request after the first pages is asked to wait 4 s.
			ctx.sim.inject({ path: '/sms', skip: 5, count: 1, status: 503, retryAfter: 4 });
			const first = await timedPoll(trigger);
			expect(first.outcome.error).toBeUndefined();
			expect(first.ms).toBeLessThanOrEqual(1_000 + 100);
			expect(first.pairs.sort()).toEqual(top.map(({ id }) => `${id}:DELIVERED`).sort());
			const next = await timedPoll(trigger);
			expect(next.pairs).toEqual([`${deep.id}:DELIVERED`]);
			expect((await timedPoll(trigger)).pairs).toEqual([]);
		}, 120_000);

		test("n8n's scheduler budget (36 s) and an API that asks every request past the first pages to wait 30 s: every poll ends within it, emitting what the first pages show", async () => {
			const sent = Array.from({ length: 150 }, (_, i) => message('SENT', Date.now() - HOUR_MS + i));
			for (let i = 0; i < 150; i++) message('DELIVERED', Date.now() - HOUR_MS / 2 + i);
			const trigger = await activateTrigger({
				parameters: {},
				credentials: ctx.credentials,
				mode,
				budgetMs: 36_000,
			});
			if (mode === 'durable') expect((await timedPoll(trigger)).outcome.items).toBeNull();
			const emitted: string[] = [];
			for (let poll = 0; poll < 4; poll++) {
				ctx.sim.setSmsStatus(sent[149 - poll].id, 'FAILED');
				ctx.sim.setSmsStatus(sent[poll * 10].id, 'DELIVERED');
				ctx.sim.faults = [];
				ctx.sim.inject({ path: '/sms', skip: 5, count: Infinity, status: 503, retryAfter: 30 });
				const polled = await timedPoll(trigger);
				expect(polled.outcome.error).toBeUndefined();
				expect(polled.ms).toBeLessThanOrEqual(36_000 + 100);
				emitted.push(...polled.pairs);
			}
			expect(emitted).toContain(`${sent[149].id}:FAILED`);
			ctx.sim.faults = [];
			emitted.push(...(await timedPoll(trigger)).pairs);
			expect(emitted.sort()).toEqual(
				[0, 1, 2, 3]
					.flatMap((poll) => [`${sent[149 - poll].id}:FAILED`, `${sent[poll * 10].id}:DELIVERED`])
					.sort(),
			);
		}, 300_000);
	},
);

describe("The shared limiter's turn within a run's deadline", () => {
	test('a request waiting for room behind another run ends at its deadline, out of the queue; the next gets the room', async () => {
		const limiter = new Limiter(false, 1);
		const held = await limiter.acquire();
		const began = Date.now();
		await expect(limiter.acquire(Date.now() + 500)).rejects.toThrow(DeadlinePassed);
		expect(Date.now() - began).toBeGreaterThanOrEqual(500);
		expect(Date.now() - began).toBeLessThan(600);
		// Nothing of the request that gave up stays in the queue: the room goes to the next.
		const next = limiter.acquire(Date.now() + 10_000);
		limiter.release(held);
		limiter.release(await next);
		limiter.release(await limiter.acquire());
	});
});
