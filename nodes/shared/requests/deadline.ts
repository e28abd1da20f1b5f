// A run's deadline (the trigger's poll budget): no attempt starts, and no wait begins, past it.

/**
 * Thrown by a request that would start an attempt, or begin a wait, that ends after its run's
 * deadline (`RequestControl.deadline`, transport.ts): the run ends with what it has.
 */
export class DeadlinePassed extends Error {
	constructor() {
		super('The time given to this run is spent');
	}
}

/** Whether `ms` from now is past `deadline` (ms since the epoch; undefined: no deadline). */
export const passes = (deadline: number | undefined, ms = 0): boolean =>
	deadline !== undefined && Date.now() + ms > deadline;
