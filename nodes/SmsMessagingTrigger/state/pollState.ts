// What the trigger keeps in the workflow's static data between polls, and the lease of a poll.
import type { Marks, StoredMessages } from './knownMessages';
import { encodeIds, type Ids, type StoredIds } from './storedIds';

/**
 * How long a poll holds the trigger after its last request: a poll that n8n starts meanwhile is
 * skipped; one that hangs or dies without letting go holds it no longer than this.
 */
const LEASE_MS = 10 * 60_000;

/** What the trigger keeps in the workflow's static data about n8n's polls: the lease. */
interface PollSession {
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

/**
 * What the trigger keeps between polls, in the workflow's static data: small whatever the window
 * (docs/trigger.md). Its keys are stored in saved workflows and must not change; `top` and `since`
 * are read and written only through `storedMarks` and `storeMarks`. Messages are kept by the day
 * they were sent and forgotten when that day leaves the window; a followed message also when a
 * reading sees it in an outcome status, or when two complete readings of the list below its id do
 * not show it.
 */
export interface TriggerStaticData extends PollSession {
	/** What was watched (Watch.scope: statuses, filters, Lookback Days) at the baseline poll. */
	scope?: string;
	/**
	 * The high-water mark (Marks.highWaterMark): every message up to this id has been looked at in
	 * the list of every status, and the API lists no more of them (LISTING_LAG_MS), except the
	 * ones listed late (`lookedAt`).
	 */
	top?: number;
	/** The high-water mark of the baseline poll (Marks.baselineMark). */
	since?: number;
	/** The messages followed: in flight at the last poll, or above `top` whatever their status. */
	followed?: StoredMessages;
	/** The exceptions to the rule for the messages up to `top`: the failed ones above all. */
	settled?: StoredMessages;
	/** Followed messages a complete reading below their id did not show, once. */
	absent?: StoredIds;
	/**
	 * When the last full reading that read the FAILED list conclusively started (ms since the
	 * epoch); the baseline poll is a full reading when an outcome status is watched.
	 */
	fullReadingAt?: number;
	/**
	 * No reading of the FAILED list since the baseline poll was whole and conclusive (an empty
	 * answer counts only when two polls in a row get it): a message up to `since` that is not
	 * stored was DELIVERED or FAILED then (KnownMessages). `'empty once'`: the last poll read it
	 * whole and empty.
	 */
	failedUnread?: true | 'empty once';
	/** What the first pages said at the start of the last clean poll (firstPages.ts). */
	signature?: string;
	/**
	 * How many records each in-flight list held from before the window (the list is asked from a
	 * day earlier) at its last whole reading: with the messages followed in it, what its count is
	 * made of.
	 */
	beforeWindow?: Record<string, number>;
	/** The highest id the list of every status showed, down to `top` with no gap. */
	newest?: number;
	/**
	 * How many records of the list of every status were up to `top`, at the last reading that
	 * reached it: with the messages followed above `top` and the new ones, what its count is made
	 * of.
	 */
	listedToTop?: number;
	/**
	 * The messages up to `top` that a poll looked at: every id up to `lookedAtAbove` (`since`; for a
	 * state kept before `lookedAt` existed, `top` at the first poll after), and these ids above it,
	 * by sent day. One the API listed later, below `top`, is not among them, and comes as new.
	 */
	lookedAt?: StoredIds;
	lookedAtAbove?: number;
}

/** The high-water marks the static data holds, or undefined when it holds none. */
export function storedMarks(staticData: TriggerStaticData): Marks | undefined {
	const { top, since } = staticData;
	if (top === undefined || since === undefined) return undefined;
	return { highWaterMark: top, baselineMark: since };
}

/** Writes the high-water marks into the static data (as `top` and `since`). */
export function storeMarks(staticData: TriggerStaticData, marks: Marks): void {
	staticData.top = marks.highWaterMark;
	staticData.since = marks.baselineMark;
}

/** Writes ids sent on `startDay` or later into the static data, and none when there are none. */
export function storeIds(
	staticData: TriggerStaticData,
	key: 'lookedAt' | 'absent',
	ids: Ids,
	startDay: string,
): void {
	const stored = encodeIds(ids, startDay);
	if (Object.keys(stored).length > 0) staticData[key] = stored;
	else delete staticData[key];
}
