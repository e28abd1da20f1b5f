// A clock for the trigger's tests: each test starts at 5 min 30 s past an hour, so that no poll of
// it is the first of a Full Reading slot (15 minutes) unless the test moves the clock there: what a
// poll reads does not depend on when the test runs.
const realNow = Date.now.bind(Date);

/** Installs the clock around each test of the file (Date.now moves on in real time from there). */
export function startTestsAwayFromSlots(): void {
	beforeEach(() => {
		const now = realNow();
		const offset = now - (now % 3_600_000) + 330_000 - now;
		Date.now = () => realNow() + offset;
	});
	afterEach(() => {
		Date.now = realNow;
	});
}
