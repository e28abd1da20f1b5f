// A poll's readings of the lists of one status: the in-flight lists, and the FAILED list.
// The in-flight lists (PENDING, SENT) as far as their counts ask, the outcome lists (FAILED,
// DELIVERED) before them when needed, and the FAILED list whole at a full reading.
import type { IDataObject } from 'n8n-workflow';

import { sentDayOf } from '../shared/lists/sentWindow';
import { InFlightCount, inFlightCounts, readOutcomesFirst } from './reading/inFlightCounts';
import { readList, type Reading } from './reading/listReading';
import { IN_FLIGHT } from './state/knownMessages';
import { see, type Poll } from './pollStart';

/**
 * Records two consecutive pages of an in-flight list share (by asking the pages at sizes that make
 * them overlap): these lists lose messages while they are read, which moves every later record up,
 * and without an overlap the record that crosses a page boundary would be read in neither page.
 */
const IN_FLIGHT_OVERLAP = 3;

/** The in-flight lists at a poll: what is followed in them, and what the poll read of them. */
export interface InFlight {
	/** The status each message followed in flight was last seen in, when the poll began. */
	lastSeenIn: Map<number, string>;
	/** The followed messages this poll saw in an in-flight list. */
	seenInFlight: Set<number>;
	/** Followed messages an outcome list showed: where they went is known. */
	seenElsewhere: Set<number>;
	/** What accounts for each in-flight list's count, where it is known (InFlightCount). */
	counts: Map<string, InFlightCount>;
	/** How many records each in-flight list held from before the window at its last whole reading. */
	beforeWindow: Record<string, number>;
	/** The poll's reading of each in-flight list, in the order of IN_FLIGHT. */
	readings: Reading[];
	/** Whether an in-flight list that answered nothing was asked again. */
	askedAgain: boolean;
	/** Followed messages not found where the lists looked: the list of every status says where. */
	missing: Set<number>;
}

/** Whether a record was sent in the window (the lists are asked from a day earlier). */
const inWindow = (poll: Poll, record: IDataObject) =>
	sentDayOf(record, poll.today) >= poll.watch.startDay;

/**
 * The in-flight lists as the poll begins: the messages followed in them, and each list's count
 * from its first page, where its records from before the window are known (none at the baseline
 * poll or a full reading, which read the lists whole).
 */
export function inFlightAtStart(poll: Poll): InFlight {
	const { known, staticData } = poll;
	const lastSeenIn = new Map(known.inFlight().map(([id, message]) => [id, message.status]));
	const counts =
		poll.baseline || poll.fullReading
			? new Map<string, InFlightCount>()
			: inFlightCounts(poll.first, staticData.beforeWindow, lastSeenIn, (record) =>
					inWindow(poll, record),
				);
	return {
		lastSeenIn,
		seenInFlight: new Set(),
		seenElsewhere: new Set(),
		counts,
		beforeWindow: { ...staticData.beforeWindow },
		readings: [],
		askedAgain: false,
		missing: new Set(),
	};
}

/**
 * Nothing moved, nothing new: the first pages are as at the last clean poll, and account for the
 * messages followed in flight (a first page that answers empty while some are followed is not
 * taken for nothing new, were it twice the same).
 */
export function nothingChanged(poll: Poll, inFlight: InFlight): boolean {
	const { signature } = poll.first;
	const sameFirstPages = signature !== undefined && signature === poll.staticData.signature;
	return (
		sameFirstPages &&
		IN_FLIGHT.every((status) => inFlight.counts.get(status)?.accountedFor === true)
	);
}

/**
 * Reads the in-flight lists, in the order a message goes through them (one that moves on while
 * they are read is in one of them, or in a list read after), each from its top as far as it
 * takes to account for its count; the outcome lists first while a first page does not. Then
 * tells the followed messages none of them showed (`missing`).
 */
export async function readInFlightLists(poll: Poll, inFlight: InFlight): Promise<void> {
	await readOutcomesFirst(poll.reader, inFlight.counts, (record, status) => {
		const id = Number(record.id);
		const last = inFlight.lastSeenIn.get(id);
		if (last === undefined || inFlight.seenElsewhere.has(id)) return false;
		inFlight.counts.get(last)?.leftList(id);
		inFlight.seenElsewhere.add(id);
		see(poll, record, status);
		return true;
	});
	for (const status of IN_FLIGHT) {
		inFlight.readings.push(await readInFlightList(poll, inFlight, status));
	}
	await askEmptyListsAgain(poll, inFlight);
	// Also with no outcome status watched: a message that went back from SENT to PENDING while the
	// lists were read is in neither, and only the list of every status tells it from a delivered one.
	inFlight.missing = new Set(unaccounted(inFlight));
}

/** Reads one in-flight list from its top, with pages that overlap, as far as its count asks. */
async function readInFlightList(poll: Poll, inFlight: InFlight, status: string): Promise<Reading> {
	const count = inFlight.counts.get(status);
	const reading = await readList(poll.reader({ status }), {
		overlap: IN_FLIGHT_OVERLAP,
		windowStart: poll.watch.startMs,
		enough: count ? (page) => count.addPage(page) : undefined,
	});
	for (const record of reading.records) {
		see(poll, record, status);
		inFlight.seenInFlight.add(Number(record.id));
	}
	if (reading.whole) {
		inFlight.beforeWindow[status] = reading.records.filter(
			(record) => !inWindow(poll, record),
		).length;
	} else if (!reading.enough) delete inFlight.beforeWindow[status];
	return reading;
}

/**
 * Followed and not in the in-flight lists where a page of each looked: the message moved on (or
 * the reading missed it), and the list of every status says where it is. One whose place no page
 * covered (the list moved more than the pages overlap) is looked for again by the next poll.
 */
function unaccounted(inFlight: InFlight): number[] {
	return [...inFlight.lastSeenIn.keys()].filter(
		(id) =>
			!inFlight.seenInFlight.has(id) &&
			!inFlight.seenElsewhere.has(id) &&
			inFlight.readings.every((reading) => reading.covers(id)),
	);
}

/**
 * An in-flight list that answered nothing while messages last seen in it are unaccounted for is
 * asked once more: an empty answer may be a hiccup (a lagging replica), and taken for the truth
 * it would send the list of every status down to the oldest of them.
 */
async function askEmptyListsAgain(poll: Poll, inFlight: InFlight): Promise<void> {
	const lastIn = new Set(unaccounted(inFlight).map((id) => inFlight.lastSeenIn.get(id)));
	for (const [i, status] of IN_FLIGHT.entries()) {
		if (inFlight.readings[i].records.length === 0 && lastIn.has(status)) {
			inFlight.readings[i] = await readInFlightList(poll, inFlight, status);
			inFlight.askedAgain = true;
		}
	}
}

/**
 * A full reading of the FAILED list: a message in it that was last seen in another outcome moved
 * there; one last seen FAILED that is no longer in it was sent again, and is looked for in the
 * list of every status (added to `missing`). Gives whether the list answered whole and empty
 * while the failed messages are still not known (the next poll reads it again).
 */
export async function readFailedList(poll: Poll, missing: Set<number>): Promise<boolean> {
	const { known } = poll;
	// The baseline poll reads it with pages that overlap, to tell that it saw every failed message;
	// until a reading was whole, each message a later one finds that is not known failed before
	// the baseline poll.
	const reading = await readList(poll.reader({ status: 'FAILED' }), {
		overlap: known.failedListKnown ? 0 : IN_FLIGHT_OVERLAP,
		windowStart: poll.watch.startMs,
	});
	const inList = new Set<number>();
	for (const record of reading.records) {
		see(poll, record, 'FAILED', known.outcomeUnknownAtBaseline(Number(record.id)));
		inList.add(Number(record.id));
	}
	// One empty answer proves nothing (a lagging replica answers an empty 200): the failed
	// messages are learnt from a whole reading that found some, or that two polls in a row found
	// empty; until then every poll reads the list again.
	const empty = reading.whole && reading.records.length === 0;
	const emptyBefore = !poll.baseline && poll.staticData.failedUnread === 'empty once';
	if (reading.whole && (!empty || emptyBefore)) known.failedListReadWhole();
	// Last seen FAILED and no longer in the list: sent again, and the list of every status says
	// where it is now. It is followed until a reading sees it.
	for (const [id, message] of reading.complete ? known.lastSeenFailed() : []) {
		if (inList.has(id) || !reading.covers(id)) continue;
		known.set(id, { ...message, status: 'SENT' });
		missing.add(id);
	}
	return !known.failedListKnown && empty;
}
