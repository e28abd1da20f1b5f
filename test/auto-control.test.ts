// The Auto window's own rules, answer by answer on a clock of the test's own: what one sequence of
// answers does to the window.
import { AutoControl, type Attempt } from '../nodes/shared/autoControl';

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

describe('Auto: a refusal by crowding', () => {
	test('a request given room before it and sent after its Retry-After, then refused, is crowding still: the window probes again at once, not after the long wait of an overshoot', () => {
		const control = new AutoControl();
		// Slow start to 8, refused there: an overshoot, the threshold below it.
		let now = acceptRounds(control, 0, 3);
		expect(control.window).toBeGreaterThanOrEqual(8);
		control.answered(attempt(control, now, 8), 'refused', now + 1);
		control.held(1000, now + 1);
		now = acceptRounds(control, now + 1001, 4);
		const settled = control.window;
		expect(settled).toBeGreaterThanOrEqual(4);
		// Refused at a level accepted before: others took the room.
		control.answered(attempt(control, now, 2, settled), 'refused', now + 1);
		control.held(1000, now + 1);
		expect(control.window).toBeLessThan(settled);
		// One of the requests given room in the window before that refusal went out after its hold.
		now += 1001;
		control.answered(attempt(control, now, settled, settled), 'refused', now + 1);
		control.held(1000, now + 1);
		expect(control.window).toBeGreaterThanOrEqual(2);
		// Within a second of answers, probing has taken the window back past where it was.
		acceptRounds(control, now + 1001, 20);
		expect(control.window).toBeGreaterThan(settled);
	});
});
