// What one poll works with (Poll), how it starts, and how it takes in each record it reads.
import type { IDataObject } from 'n8n-workflow';

import { sentDayOf, utcDay } from '../shared/lists/sentWindow';
import { highestSentBy, LISTING_LAG_MS } from './reading/everyStatus';
import { readFirstPages, type FirstPages } from './reading/firstPages';
import { readList, type ListReader, type Reading } from './reading/listReading';
import { IN_FLIGHT, KnownMessages, type Marks } from './state/knownMessages';
import { storedMarks, type TriggerStaticData } from './state/pollState';
import { decodeIds, type Ids } from './state/storedIds';
import type { Watch } from './watch';

/** One poll while it runs: what it read at its start, and what its steps share. */
export interface Poll {
	watch: Watch;
	staticData: TriggerStaticData;
	/** When the poll began (ms since the epoch), and that UTC day. */
	now: number;
	today: string;
	/**
	 * The baseline poll: the first for what is watched (Watch.scope), with nothing stored for it.
	 * It takes in what exists and emits nothing.
	 */
	baseline: boolean;
	/** A full reading: the in-flight lists and the FAILED list are read whole. */
	fullReading: boolean;
	/** The first pages, asked before anything else. */
	first: FirstPages;
	/** Reads the lists, the first pages served from `first`. */
	reader: ListReader;
	/** Every message sent at or before this moment is listed by now (LISTING_LAG_MS). */
	listedBy: number;
	/**
	 * The high-water marks, as the last poll stored them or as the baseline poll sets them; the
	 * poll raises the mark only as it stores its state (KnownMessages reads it then).
	 */
	marks: Marks;
	/** At the baseline poll, the list of every status down to the high-water mark it sets. */
	newest?: Reading;
	known: KnownMessages;
	/**
	 * The messages up to the high-water mark a poll looked at: every id up to `above`, and `ids`
	 * above it (this poll's added as it reads); `before`: `ids` when the poll began.
	 */
	lookedAt: { above: number; ids: Ids; before: Set<number> };
	/** Followed messages a complete reading below their id did not show, once (with their day). */
	absent: Ids;
	/** The records to emit, in the order they were read. */
	toEmit: IDataObject[];
}

/**
 * Starts a poll: whether it is the baseline poll or a full reading, the first pages, the
 * high-water marks (the baseline poll reads the newest messages to set them), and what is known
 * of the messages.
 */
export async function startPoll(
	watch: Watch,
	listReader: ListReader,
	staticData: TriggerStaticData,
): Promise<Poll> {
	const now = Date.now();
	const stored = staticData.scope === watch.scope ? storedMarks(staticData) : undefined;
	const baseline = stored === undefined;
	const fullReading = isFullReading(watch, staticData, now, baseline);
	// The first pages of the lists every poll reads (firstPages.ts): nothing new when as before.
	const first = await readFirstPages(listReader);
	const listedBy = now - LISTING_LAG_MS;
	const newest = baseline ? await readNewest(watch, first.reader, listedBy) : undefined;
	const mark = newest ? highestSentBy(newest.records, listedBy) : 0;
	const marks = stored ?? { highWaterMark: mark, baselineMark: mark };
	const poll: Poll = {
		watch,
		staticData,
		now,
		today: utcDay(now),
		baseline,
		fullReading,
		first,
		reader: first.reader,
		listedBy,
		marks,
		newest,
		...knownAtStart(watch, staticData, marks, baseline),
		toEmit: [],
	};
	// At the baseline poll, the messages above the mark are followed from their status now.
	for (const record of newest?.records ?? []) {
		if (Number(record.id) > marks.highWaterMark) see(poll, record, String(record.status));
	}
	return poll;
}

/** Whether an outcome status (DELIVERED, FAILED) is watched. */
const watchesAnOutcome = (watch: Watch) =>
	watch.statuses.some((status) => !IN_FLIGHT.includes(status));

/**
 * Whether this poll is a full reading: Full Reading Every (Minutes) passed since the last one (or
 * the clock went back), or the baseline poll, or no reading of the FAILED list was whole since
 * the baseline poll. Only with an outcome status watched.
 */
function isFullReading(
	watch: Watch,
	staticData: TriggerStaticData,
	now: number,
	baseline: boolean,
): boolean {
	const lastFull = staticData.fullReadingAt;
	return (
		watchesAnOutcome(watch) &&
		(baseline ||
			staticData.failedUnread !== undefined ||
			lastFull === undefined ||
			!(now - lastFull < watch.fullReadingMs && now >= lastFull))
	);
}

/**
 * At the baseline poll: the newest messages, down to one sent a listing lag before the poll
 * (`listedBy`), whose id becomes the high-water mark.
 */
async function readNewest(watch: Watch, reader: ListReader, listedBy: number): Promise<Reading> {
	return await readList(reader({}), { sentBy: listedBy, windowStart: watch.startMs });
}

/** What is known of the messages when the poll begins: nothing at the baseline poll. */
function knownAtStart(
	watch: Watch,
	staticData: TriggerStaticData,
	marks: Marks,
	baseline: boolean,
): Pick<Poll, 'known' | 'lookedAt' | 'absent'> {
	// A state kept before `lookedAt` counts every message up to its high-water mark as looked at.
	const above = baseline ? marks.highWaterMark : (staticData.lookedAtAbove ?? marks.highWaterMark);
	const ids = baseline ? new Map<number, string>() : decodeIds(staticData.lookedAt);
	const lookedAt = { above, ids, before: new Set(ids.keys()) };
	const known = new KnownMessages({
		stored: baseline ? {} : staticData,
		watched: new Set(watch.statuses),
		marks,
		startDay: watch.startDay,
		baseline,
		failedListUnread: baseline ? watchesAnOutcome(watch) : staticData.failedUnread !== undefined,
		lookedAt: { above, ids },
	});
	const absent = baseline ? new Map<number, string>() : decodeIds(staticData.absent);
	return { known, lookedAt, absent };
}

/**
 * A record read in `status`: emitted if that status is watched and new for the message (not at
 * the baseline poll, which only takes in what exists). One that failed before the baseline poll
 * (`failedBeforeBaseline`, see KnownMessages.outcomeUnknownAtBaseline) is taken in as the
 * baseline poll would have taken it, and not emitted.
 */
export function see(
	poll: Poll,
	record: IDataObject,
	status: string,
	failedBeforeBaseline = false,
): void {
	const { watch, known, lookedAt } = poll;
	const id = Number(record.id);
	const day = sentDayOf(record, poll.today);
	// Sent before the window: not watched (it would be forgotten at once and come again).
	if (day < watch.startDay) return;
	const message = (failedBeforeBaseline ? undefined : known.get(id)) ?? {
		status,
		emittedIn: new Set<string>(),
		day,
	};
	if (watch.statuses.includes(status) && !message.emittedIn.has(status)) {
		message.emittedIn.add(status);
		if (!poll.baseline && !failedBeforeBaseline) poll.toEmit.push(record);
	}
	known.set(id, { ...message, status, day });
	if (id > lookedAt.above) lookedAt.ids.set(id, day);
}
