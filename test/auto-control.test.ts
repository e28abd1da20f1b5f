// The Auto window's own rules, answer by answer on a clock of the test's own: what one sequence of
// answers does to the window and to the spacing of requests; and a limiter keeping that spacing.
import { sleep } from 'n8n-workflow';

import { AutoControl, type Attempt } from '../nodes/shared/requests/autoControl';
import { Limiter } from '../nodes/shared/requests/limiter';

/** An attempt sent at `startedAt` with `inFlight` requests given room (itself included). */
const attempt = (control: AutoControl, startedAt: number, inFlight: number, window = inFlight) =>
	({ startedAt, epoch: control.epoch, inFlight, window }) satisfies Attempt;

/** Answers `rounds` round trips of `rttMs`, each of as many requests as the window lets out. */
function acceptRounds(control: AutoControl, from: number, rounds: number, rttMs = 50): number {
	let now = from;
	for (let round = 0; round < rounds; round++) {
		const window = control.window;
		for (let i = 1; i <= window; i++) {
			control.answered(attempt(control, now, i, window), 'accepted', now + rttMs);
		}
		now += rttMs;
	}
	return now;
}

/** A request sent at `now` refused 1 ms later with `Retry-After: 1`. */
function refuse(control: AutoControl, now: number, inFlight: number, window = inFlight) {
	control.answered(attempt(control, now, inFlight, window), 'refused', now + 1);
	control.held(1000, now + 1);
}

describe('Auto: a refusal by crowding', () => {
	test('a request given room before it and sent after its Retry-After, then refused, is crowding still: the window probes again at once, not after the long wait of an overshoot', () => {
		const control = new AutoControl();
		// Slow start to 8, refused there: an overshoot, the threshold below it.
		let now = acceptRounds(control, 0, 3);
		expect(control.window).toBeGreaterThanOrEqual(8);
		refuse(control, now, 8);
		now = acceptRounds(control, now + 1001, 4);
		const settled = control.window;
		expect(settled).toBeGreaterThanOrEqual(4);
		// Refused at a level accepted before: others took the room.
		refuse(control, now, 2, settled);
		expect(control.window).toBeLessThan(settled);
		// One of the requests given room in the window before that refusal went out after its hold.
		now += 1001;
		refuse(control, now, settled);
		expect(control.window).toBeGreaterThanOrEqual(2);
		// Within a second of answers, probing has taken the window back past where it was.
		acceptRounds(control, now + 1001, 20);
		expect(control.window).toBeGreaterThan(settled);
	});
});

describe('Auto: the spacing of requests', () => {
	test('none before a refusal; then as long as the fastest refusal took, never more than the window spread over the fastest answer', () => {
		const control = new AutoControl();
		let now = acceptRounds(control, 0, 3);
		expect(control.spacingMs).toBe(0);
		control.answered(attempt(control, now, 12), 'refused', now + 3);
		expect(control.spacingMs).toBe(3);
		control.answered(attempt(control, now, 12), 'refused', now + 2);
		expect(control.spacingMs).toBe(2);
		// A refusal slower than the window's own pace: the pace is kept.
		const slow = new AutoControl();
		now = acceptRounds(slow, 0, 3);
		slow.answered(attempt(slow, now, 12), 'refused', now + 400);
		expect(slow.spacingMs).toBeCloseTo(50 / slow.window);
	});
});

describe('Auto limiter: requests spaced once a refusal was seen', () => {
	test('requests given room together start at least the fastest refusal apart', async () => {
		const limiter = new Limiter(true, 32);
		// A round of 4 answered in 40 ms (slow start: the window grows), then a round of the
		// window, its last request refused after 6 ms (no Retry-After: no hold).
		const round = async (size: number) => {
			const permits = await Promise.all(Array.from({ length: size }, () => limiter.acquire()));
			await sleep(40);
			return permits;
		};
		for (const permit of await round(4)) limiter.release(permit, 'accepted');
		const last = await round(limiter.window);
		const refusedPermit = last.pop()!;
		for (const permit of last) limiter.release(permit, 'accepted');
		refusedPermit.startedAt = performance.now() - 6;
		limiter.release(refusedPermit, 'refused');
		const permits = await Promise.all([1, 2, 3].map(() => limiter.acquire()));
		const starts = permits.map((permit) => permit.startedAt).sort((a, b) => a - b);
		// The window (at least 3 after the refusal) lets them out one by one, 6 ms or more apart
		// (less than the window spread over the 40 ms answers).
		expect(limiter.window).toBeGreaterThanOrEqual(3);
		for (let i = 1; i < starts.length; i++) {
			expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(5.5);
		}
		for (const permit of permits) limiter.release(permit, 'accepted');
	});
});
