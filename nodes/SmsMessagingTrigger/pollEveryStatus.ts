// A poll's reading of the list of every status (GET /sms without a status filter).
// It gives the new messages, where the followed ones went, and the messages the API listed late.
import type { IDataObject } from 'n8n-workflow';

import { accountedToNewest, highestId, highestSentBy, readLate } from './reading/everyStatus';
import type { FirstPages } from './reading/firstPages';
import { readList, type Reading } from './reading/listReading';
import { see, type Poll } from './pollStart';
import type { InFlight } from './pollStatusLists';

/** What the reading of the list of every status leaves for the static data. */
export interface EveryStatus {
	/** The high-water mark the reading reached. */
	highWaterMark: number;
	/** Whether every list was read as far as it had to be (the in-flight lists too). */
	everyListComplete: boolean;
	/** The highest id the list showed, down to the mark with no gap (stored as `newest`). */
	newestSeen: number;
	/** How many records of the list were up to the mark (stored as `listedToTop`). */
	listedToMark?: number;
	/** How many messages listed late below the mark this poll did not find. */
	stillLate: number;
}

/** The newest id on the first page of the list of every status, when the poll began. */
const newestAtStart = (first: FirstPages) => Number(first.content({})[0]?.id ?? 0);

/**
 * What the list of every status holds up to `mark`, from a reading that reached it: its count
 * when the poll began, less the records read above the mark (up to the newest then).
 */
function listedUpTo(first: FirstPages, records: IDataObject[], mark: number): number | undefined {
	const listed = first.total({});
	const newest = newestAtStart(first);
	if (listed === undefined) return undefined;
	const above = records.filter((record) => Number(record.id) > mark && Number(record.id) <= newest);
	return listed - above.length;
}

/** Whether the in-flight lists were each read whole, or as far as their counts asked. */
const inFlightComplete = (inFlight: InFlight) =>
	inFlight.readings.every((reading) => reading.whole || reading.enough);

/** At the baseline poll: what its reading of the newest messages (Poll.newest) tells. */
export function everyStatusAtBaseline(poll: Poll, inFlight: InFlight): EveryStatus {
	const { newest, marks } = poll;
	return {
		highWaterMark: marks.highWaterMark,
		everyListComplete: inFlightComplete(inFlight),
		newestSeen: highestId(newest?.records ?? [], marks.highWaterMark),
		listedToMark:
			newest?.complete === true
				? listedUpTo(poll.first, newest.records, marks.highWaterMark)
				: undefined,
		stillLate: 0,
	};
}

/**
 * Reads the list of every status newest first, down to the newest message already looked at and
 * to the oldest followed message still unaccounted for (`missing`): it gives each message's
 * status, and it does not shift while it is read (new messages only push it down, so a page may
 * repeat a record). Every message up to the high-water mark it gives has been looked at and is
 * listed, unless it stopped short; those above it stay followed, whatever their status, until the
 * mark passes them.
 */
export async function readEveryStatus(poll: Poll, inFlight: InFlight): Promise<EveryStatus> {
	const { marks, known, staticData } = poll;
	const newestSeenBefore = staticData.newest ?? marks.highWaterMark;
	let downTo = marks.highWaterMark + 1;
	for (const id of inFlight.missing) downTo = Math.min(downTo, id);
	const reading = await readList(poll.reader({}), {
		downTo,
		windowStart: poll.watch.startMs,
		enough:
			poll.fullReading || inFlight.missing.size > 0
				? undefined
				: accountedToNewest(
						poll.first.total({}),
						staticData.listedToTop,
						known.followedAboveMark(newestSeenBefore),
						newestSeenBefore,
						newestAtStart(poll.first),
					),
	});
	const readFar = reading.complete || reading.enough;
	const inList = new Set<number>();
	for (const record of reading.records) {
		const id = Number(record.id);
		inList.add(id);
		if (id > marks.highWaterMark || known.isFollowedInFlight(id)) {
			see(poll, record, String(record.status));
		}
	}
	const found = reading.complete
		? await readListedLate(poll, reading)
		: { highWaterMark: marks.highWaterMark, listedToMark: staticData.listedToTop, stillLate: 0 };
	noteAbsent(poll, inFlight, reading, inList);
	return {
		...found,
		everyListComplete: inFlightComplete(inFlight) && readFar,
		newestSeen: readFar ? highestId(reading.records, newestSeenBefore) : newestSeenBefore,
	};
}

/**
 * After a complete reading: more records up to the high-water mark than at the last reading that
 * reached it are messages listed late below it, read down to them (and emitted as new); those not
 * found yet are looked for again by the next poll. Then the mark rises to the newest message the
 * reading saw that is surely listed by now (Poll.listedBy).
 */
async function readListedLate(
	poll: Poll,
	reading: Reading,
): Promise<Pick<EveryStatus, 'highWaterMark' | 'listedToMark' | 'stillLate'>> {
	const { marks, known, lookedAt } = poll;
	const mark = marks.highWaterMark;
	const listedBefore = poll.staticData.listedToTop;
	const lateBelow =
		(listedUpTo(poll.first, reading.records, mark) ?? 0) - (listedBefore ?? Infinity);
	let stillLate = 0;
	if (lateBelow > 0) {
		// Up to the mark, and no poll before this one looked at it (this one may have, in another
		// list).
		const { late, left } = await readLate(poll.reader, {
			count: lateBelow,
			downTo: lookedAt.above + 1,
			windowStart: poll.watch.startMs,
			isLate: (id) => id <= mark && id > lookedAt.above && !lookedAt.before.has(id),
		});
		for (const record of late) {
			if (known.get(Number(record.id)) === undefined) see(poll, record, String(record.status));
		}
		stillLate = left;
	}
	const highWaterMark = Math.max(mark, highestSentBy(reading.records, poll.listedBy));
	const listedToMark = listedUpTo(poll.first, reading.records, highWaterMark);
	return {
		highWaterMark,
		listedToMark: listedToMark === undefined ? undefined : listedToMark - stillLate,
		stillLate,
	};
}

/**
 * A followed message absent from two complete readings below its id (gone from the list, or no
 * longer matching the filters) is no longer followed, as if it had been delivered. One seen in an
 * in-flight list, or no longer followed in flight, is no longer absent.
 */
function noteAbsent(poll: Poll, inFlight: InFlight, reading: Reading, inList: Set<number>): void {
	const { known, absent } = poll;
	for (const id of inFlight.missing) {
		if (inList.has(id)) absent.delete(id);
		else if (!reading.complete || !reading.covers(id) || !known.isFollowedInFlight(id)) continue;
		else if (!absent.delete(id)) absent.set(id, known.get(id)!.day);
		else known.set(id, { ...known.get(id)!, status: 'DELIVERED' });
	}
	for (const id of absent.keys()) {
		if (inFlight.seenInFlight.has(id) || !known.isFollowedInFlight(id)) absent.delete(id);
	}
}
