import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { pollTimesParameter } from '../shared/n8nInternals';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * How long a poll holds the trigger after its last request: a poll that n8n starts meanwhile is
 * skipped; one that hangs or dies without letting go holds it no longer than this.
 */
export const LEASE_MS = 10 * MINUTE_MS;

/** What the trigger keeps in the workflow's static data about n8n's polls (besides its ids). */
export interface PollSession {
	/** When n8n last called a poll (ms since the epoch). */
	polledAt?: number;
	/** The poll running now: who holds it and when it last made a request. */
	lease?: { holder: string; at: number };
}

/**
 * The longest n8n can leave between two polls with these Poll Times (an upper bound: the polls
 * come at the union of the times, so at most the shortest of the items' longest gaps). A cron
 * expression is taken to poll at least once a year.
 */
function longestPollGapMs(items: IDataObject[]): number {
	const gaps = items.map((item) => {
		switch (item.mode) {
			case 'everyMinute':
				return MINUTE_MS;
			case 'everyHour':
				return HOUR_MS;
			case 'everyX':
				return item.unit === 'minutes' ? HOUR_MS : DAY_MS;
			case 'everyDay':
				return DAY_MS;
			case 'everyWeek':
				return 7 * DAY_MS;
			case 'everyMonth':
				return 31 * DAY_MS;
			default:
				return 366 * DAY_MS;
		}
	});
	return gaps.length > 0 ? Math.min(...gaps) : 366 * DAY_MS;
}

/**
 * Whether this poll starts a new activation of the workflow by a user (activation mode `activate`
 * or `create`), which records what exists and emits nothing. n8n gives every poll of an activation
 * the mode it was activated in, through one poll context or a new one per poll, so the mode alone
 * does not tell the first poll from later ones: the time of the last poll, in the static data,
 * does. A poll in `activate` or `create` mode starts an activation when no poll ran for an hour,
 * or for twice the longest gap Poll Times leave between polls plus five minutes if that is longer:
 * the workflow was off meanwhile. Turning it off and on again within that time goes on where it
 * stopped, as a restart does (it emits what changed meanwhile, once).
 */
export function startsActivation(context: IPollFunctions, session: PollSession, now: number) {
	if (!['activate', 'create'].includes(context.getActivationMode())) return false;
	if (session.polledAt === undefined) return true;
	const pause = Math.max(
		2 * longestPollGapMs(pollTimesParameter(context)) + 5 * MINUTE_MS,
		HOUR_MS,
	);
	return !(now >= session.polledAt && now - session.polledAt <= pause);
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
