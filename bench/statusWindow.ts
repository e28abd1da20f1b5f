// The SMS list SMS → Get Delivery Status is measured in (bench/run.ts fills the simulator with it,
// bench/contenders.ts looks messages up in it).

/** Messages in the window. */
export const STATUS_WINDOW = 10_000;

/**
 * `size` messages sent from 20 to 2 hours ago, oldest first, each to its own number: added in
 * this order to an empty simulator, they get the ids 1 to `size`.
 */
export function statusWindow(size: number, now = Date.now()) {
	return Array.from({ length: size }, (_, k) => ({
		recipient: String(254710000000 + k),
		content: `Your code is ${String(100000 + k)}`,
		status: k % 5 === 0 ? 'FAILED' : 'DELIVERED',
		sentAt: new Date(now - 20 * 3_600_000 + Math.floor((k * 18 * 3_600_000) / size)).toISOString(),
	}));
}
