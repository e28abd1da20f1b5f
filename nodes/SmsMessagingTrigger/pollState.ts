const MINUTE_MS = 60_000;

/**
 * How long a poll holds the trigger after its last request: a poll that n8n starts meanwhile is
 * skipped; one that hangs or dies without letting go holds it no longer than this.
 */
export const LEASE_MS = 10 * MINUTE_MS;

/** What the trigger keeps in the workflow's static data about n8n's polls (besides its ids). */
export interface PollSession {
	/** The poll running now: who holds it and when it last made a request. */
	lease?: { holder: string; at: number };
}

/**
 * Runs `poll` holding the trigger's lease, unless another poll holds it: n8n starts the next poll
 * on time even while one is still running, and two polls at once would both emit what is new.
 * Then it gives null, as a poll with nothing new does. The lease lives in the static data, so it
 * holds whether n8n polls through one context or a new one each time; `stillHeld` tells the poll,
 * before it writes its state, whether a later poll took over a lease it held too long.
 */
export async function withLease<T>(
	session: PollSession,
	poll: (renew: () => void, stillHeld: () => boolean) => Promise<T>,
): Promise<T | null> {
	const now = Date.now();
	const { lease } = session;
	if (lease && now >= lease.at && now - lease.at < LEASE_MS) return null;
	const holder = `${now.toString(36)}-${Math.random().toString(36).slice(2)}`;
	session.lease = { holder, at: now };
	const stillHeld = () => session.lease?.holder === holder;
	try {
		return await poll(() => {
			if (stillHeld()) session.lease = { holder, at: Date.now() };
		}, stillHeld);
	} finally {
		if (stillHeld()) delete session.lease;
	}
}
