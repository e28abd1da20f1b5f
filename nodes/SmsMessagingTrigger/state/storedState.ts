// What the trigger keeps in the workflow's static data: every stored word, defined once here.
import { LISTS, Picture, type Counts, type Status, type StatusList } from './picture';
import { decodeIds, encodeIds, type StoredIds } from './storedIds';

/** Each status by its initial, as the keys of `messages` write them. */
const INITIALS: Record<Status, string> = {
	PENDING: 'P',
	SENT: 'S',
	DELIVERED: 'D',
	FAILED: 'F',
	OTHER: 'O',
};
const STATUS_OF_INITIAL = Object.fromEntries(
	Object.entries(INITIALS).map(([status, initial]) => [initial, status as Status]),
);

/**
 * Messages by what is known of them: each key is the status a message was last seen in and the
 * initials of the watched statuses it is recorded in ("SENT/S", "FAILED/DF", "FAILED/" for none),
 * each value its ids by the UTC day it was sent (storedIds.ts).
 */
type StoredMessages = Record<string, StoredIds>;

/** Where a full reading that a poll's budget ended goes on at the next poll. */
export interface FullReadingFrom {
	list: StatusList;
	/** The last record read in that list (none: from its start). */
	id?: number;
}

/**
 * The workflow's static data, as n8n keeps it between polls. Its keys are stored in saved
 * workflows. n8n stores it after a poll that emits; after any poll only when it polls as before
 * n8n 2.41 (one workflow in memory) or with durable cursors: a poll reads nothing it would have
 * to remember without emitting (docs/trigger.md).
 */
export interface TriggerStaticData {
	/** What was watched (Watch.scope) when the picture was taken: another scope starts over. */
	scope?: string;
	/** Marks.top: every listed message up to this id is known. */
	top?: number;
	/** Marks.since: `top` at the baseline poll. */
	since?: number;
	/** Marks.sinceAt: the baseline poll's time less the listing lag and 12 hours (ms). */
	sinceAt?: number;
	/** Marks.listedUpTo: every id up to it counts as listed. */
	lookedAtAbove?: number;
	/** The listed ids above `lookedAtAbove` up to `top` (Picture.listed), by day. */
	lookedAt?: StoredIds;
	/** Marks.belowTop: how many records of the list of every status are up to `top`. */
	listedToTop?: number;
	/** Marks.newest: the highest id the list of every status showed at the last poll. */
	newest?: number;
	/** The messages known one by one (Picture.tracked). */
	messages?: StoredMessages;
	/** Each list's expected count (Picture.counts), for the lists asked with `countsFrom`. */
	counts?: Counts;
	/** The `start-date` the lists were asked with when `counts` was taken. */
	countsFrom?: string;
	/** When the last full reading ended (ms since the epoch). */
	fullReadingAt?: number;
	/** Where a full reading not ended goes on (reading/resolve.ts). */
	fullReadingFrom?: FullReadingFrom;
	/** The last poll ended with a count apart from the picture: this one reads in full. */
	unsettled?: true;
	/** The poll running now (withLease). */
	lease?: { holder: string; at: number };
	/** Stored by the trigger before this design: read once, to carry its knowledge over. */
	followed?: StoredMessages;
	settled?: StoredMessages;
}

/** The keys a poll keeps of its own progress: every other key is the picture's, stored whole. */
const PROGRESS_KEYS = new Set(['fullReadingAt', 'fullReadingFrom', 'unsettled', 'lease']);

/** The stored picture of what is watched now; undefined when there is none (a baseline poll). */
export function loadPicture(
	staticData: TriggerStaticData,
	scope: string,
	watched: Set<Status>,
): Picture | undefined {
	const { top, since } = staticData;
	if (staticData.scope !== scope || top === undefined || since === undefined) return undefined;
	// A state of the trigger before this design that had not read the FAILED list: start over.
	if ((staticData as { failedUnread?: unknown }).failedUnread !== undefined) return undefined;
	const counts = staticData.counts ?? Object.fromEntries(LISTS.map((list) => [list, 0]));
	const picture = new Picture(
		watched,
		{
			top,
			since,
			sinceAt: staticData.sinceAt,
			listedUpTo: staticData.lookedAtAbove ?? top,
			belowTop: staticData.listedToTop ?? 0,
			newest: staticData.newest ?? top,
		},
		{ ...(counts as Counts) },
	);
	for (const [id, day] of decodeIds(staticData.lookedAt)) picture.listed.set(id, day);
	const stored = [staticData.messages, staticData.followed, staticData.settled];
	for (const messages of stored) decodeMessages(messages, picture);
	if (staticData.counts) picture.countsFrom = staticData.countsFrom;
	return picture;
}

function decodeMessages(stored: StoredMessages | undefined, picture: Picture): void {
	for (const [key, ids] of Object.entries(stored ?? {})) {
		const [status, initials = ''] = key.split('/') as [Status, string?];
		for (const [id, day] of decodeIds(ids)) {
			const recorded = new Set([...initials].map((initial) => STATUS_OF_INITIAL[initial]));
			picture.setMessage(id, { status, recorded, day });
		}
	}
}

/** Writes the picture into the static data: what it knows of the lists from `startDay` on. */
export function storePicture(
	staticData: TriggerStaticData,
	picture: Picture,
	{ scope, startDay }: { scope: string; startDay: string },
): void {
	for (const key of Object.keys(staticData)) {
		if (!PROGRESS_KEYS.has(key)) delete (staticData as Record<string, unknown>)[key];
	}
	const { marks } = picture;
	Object.assign(staticData, {
		scope,
		top: marks.top,
		since: marks.since,
		...(marks.sinceAt === undefined ? {} : { sinceAt: marks.sinceAt }),
		lookedAtAbove: marks.listedUpTo,
		listedToTop: marks.belowTop,
		newest: marks.newest,
		counts: { ...picture.counts },
		countsFrom: picture.countsFrom,
	});
	const listed = encodeIds(picture.listed, startDay);
	if (Object.keys(listed).length > 0) staticData.lookedAt = listed;
	const messages = encodeMessages(picture, startDay);
	if (Object.keys(messages).length > 0) staticData.messages = messages;
}

function encodeMessages(picture: Picture, startDay: string): StoredMessages {
	const groups = new Map<string, Map<number, string>>();
	for (const [id, message] of picture.tracked) {
		const recorded = [...message.recorded]
			.filter((status) => picture.watched.has(status))
			.map((status) => INITIALS[status])
			.sort()
			.join('');
		const key = `${message.status}/${recorded}`;
		const ids = groups.get(key) ?? new Map<number, string>();
		ids.set(id, message.day);
		groups.set(key, ids);
	}
	const stored: StoredMessages = {};
	for (const [key, ids] of groups) {
		const encoded = encodeIds(ids, startDay);
		if (Object.keys(encoded).length > 0) stored[key] = encoded;
	}
	return stored;
}

/**
 * How long a poll holds the trigger after its last request: a poll that n8n starts meanwhile is
 * skipped; one that hangs or dies without letting go holds it no longer than this.
 */
const LEASE_MS = 10 * 60_000;

/**
 * Runs `poll` holding the trigger's lease, unless another poll holds it: n8n starts the next poll
 * on time even while one is still running on its default path, and two polls at once would both
 * emit what is new. Then it gives null, as a poll with nothing new does. `stillHeld` tells the
 * poll, before it writes its state, whether a later poll took over a lease it held too long.
 */
export async function withLease<T>(
	staticData: TriggerStaticData,
	poll: (renew: () => void, stillHeld: () => boolean) => Promise<T>,
): Promise<T | null> {
	const now = Date.now();
	const { lease } = staticData;
	if (lease && now >= lease.at && now - lease.at < LEASE_MS) return null;
	const holder = `${now.toString(36)}-${Math.random().toString(36).slice(2)}`;
	staticData.lease = { holder, at: now };
	const stillHeld = () => staticData.lease?.holder === holder;
	try {
		return await poll(() => {
			if (stillHeld()) staticData.lease = { holder, at: Date.now() };
		}, stillHeld);
	} finally {
		if (stillHeld()) delete staticData.lease;
	}
}
