import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { maskedSmsRecord } from '../shared/approvalLink';
import { sentDayOf, utcDay } from '../shared/lists/sentWindow';
import { smsListReader } from '../shared/lists/smsListReader';
import { sharedLimiter } from '../shared/requests/limiter';
import { repeatedPagesError } from '../shared/lists/list';
import { CREDENTIAL_TYPE, RunProgress } from '../shared/requests/transport';
import { IN_FLIGHT, KnownMessages, type Marks } from './state/knownMessages';
import { readFirstPages } from './reading/firstPages';
import {
	accountedToNewest,
	highestId,
	highestSentBy,
	LISTING_LAG_MS,
	readLate,
} from './reading/everyStatus';
import { InFlightCount, inFlightCounts, readOutcomesFirst } from './reading/inFlightCounts';
import { readList, type ListReader, type Reading } from './reading/listReading';
import {
	storedMarks,
	storeIds,
	storeMarks,
	withLease,
	type TriggerStaticData,
} from './state/pollState';
import { decodeIds } from './state/storedIds';
import { readWatch, type Watch } from './watch';

/**
 * Records two consecutive pages of an in-flight list share (by asking the pages at sizes that make
 * them overlap): these lists lose messages while they are read, which moves every later record up,
 * and without an overlap the record that crosses a page boundary would be read in neither page.
 */
const IN_FLIGHT_OVERLAP = 3;

/**
 * One poll. Emits each message newly seen in a watched status once. Only a trigger with nothing
 * recorded for what it watches (the first activation, or Watch Statuses, the filters or Lookback
 * Days changed) records what exists and emits nothing; after any pause, a restart or the workflow
 * turned off and on again it goes on from what it recorded. A manual run emits the newest matching
 * message and leaves what polls remember alone.
 */
export async function pollDeliveries(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const watch = readWatch.call(this);
	const credentials = await this.getCredentials<{ baseUrl: string; apiToken: string }>(
		CREDENTIAL_TYPE,
	);
	// The poll's reads wait their turn with the credential's other runs (Auto), and a Retry-After
	// holds them with the others.
	const readPage = smsListReader.call(this, credentials, {
		control: {
			gate: sharedLimiter(credentials.baseUrl, credentials.apiToken),
			run: new RunProgress(),
		},
		again: 'the next poll tries again',
		namePage: true,
	});

	if (this.getMode() === 'manual') {
		let newest: IDataObject | undefined;
		for (const status of watch.statuses) {
			const query = { ...watch.query, status, page: 1, records: 1 };
			const [latest] = (await readPage(query)).content as IDataObject[];
			if (latest && (!newest || Number(latest.id) > Number(newest.id))) newest = latest;
		}
		return newest ? [[{ json: maskedSmsRecord(newest) }]] : null;
	}

	const staticData = this.getWorkflowStaticData('node') as TriggerStaticData;
	return await withLease(staticData, async (renew, stillHeld) => {
		const repeated = repeatedPagesError(this.getNode(), 'the next poll reads it again');
		const reader: ListReader = (query) => ({
			read: async ({ page, size }) => {
				renew();
				return await readPage({ ...watch.query, ...query, page, records: size });
			},
			repeated,
		});
		return await pollOnce(watch, reader, staticData, stillHeld);
	});
}

/**
 * What a poll reads (docs/trigger.md): first the first pages of the in-flight lists (PENDING,
 * SENT) and of the list of every status; as at the last clean poll and accounting for the
 * messages followed in flight, nothing more. Otherwise the in-flight lists from their top, as far
 * as it takes to account for their counts (InFlightLedger), the FAILED and DELIVERED lists from
 * their top first when their first pages do not; then the list of every status, newest first,
 * down to the newest message already looked at (`top`: the new messages, whatever their status)
 * and to any followed message that left the in-flight lists where no other list showed it, to
 * see its status. Every Full Reading minutes the in-flight lists and the FAILED list are read
 * whole: a message in FAILED that was last seen in another outcome moved there, and one last
 * seen FAILED that is no longer in it moved on, which the cheaper polls cannot see. A recording
 * reads the in-flight lists and the FAILED list whole and the newest messages (its `top`), and
 * emits nothing: every other message up to `top` is known as DELIVERED without being read
 * (KnownMessages). While no reading of the FAILED list was whole (an empty answer may be a
 * lagging replica's), every poll reads it again.
 */
async function pollOnce(
	watch: Watch,
	listReader: ListReader,
	staticData: TriggerStaticData,
	stillHeld: () => boolean,
): Promise<INodeExecutionData[][] | null> {
	const now = Date.now();
	const today = utcDay(now);
	const watched = new Set(watch.statuses);
	const outcomes = watch.statuses.filter((status) => !IN_FLIGHT.includes(status));
	const storedMarksNow = staticData.scope === watch.scope ? storedMarks(staticData) : undefined;
	const recording = storedMarksNow === undefined;
	const lastFull = staticData.fullReadingAt;
	// A recording reads the FAILED list too, and so does every poll until a reading of it was whole.
	const full =
		outcomes.length > 0 &&
		(recording ||
			staticData.failedUnread !== undefined ||
			lastFull === undefined ||
			!(now - lastFull < watch.fullReadingMs && now >= lastFull));
	// The first pages of the lists every poll reads (firstPages.ts): nothing new when as before.
	const first = await readFirstPages(listReader);
	const sameFirstPages = first.signature !== undefined && first.signature === staticData.signature;
	const reader = first.reader;

	/** The mark goes no higher than the newest message sent by then (LISTING_LAG_MS). */
	const listedBy = now - LISTING_LAG_MS;
	let marks: Marks;
	let newest: Reading | undefined;
	if (recording) {
		// The newest messages, down to one sent a listing lag before the poll: the mark.
		newest = await readList(reader({}), { sentBy: listedBy, windowStart: watch.startMs });
		const top = highestSentBy(newest.records, listedBy);
		marks = { highWaterMark: top, baselineMark: top };
	} else {
		marks = storedMarksNow!;
	}
	// A state kept before `lookedAt` counts every message up to its `top` as looked at.
	const lookedAtAbove = recording
		? marks.highWaterMark
		: (staticData.lookedAtAbove ?? marks.highWaterMark);
	const lookedAt = recording ? new Map<number, string>() : decodeIds(staticData.lookedAt);
	const lookedAtBefore = new Set(lookedAt.keys());
	const known = new KnownMessages({
		stored: recording ? {} : staticData,
		watched,
		marks,
		startDay: watch.startDay,
		baseline: recording,
		failedListUnread: recording ? outcomes.length > 0 : staticData.failedUnread !== undefined,
		lookedAt: { above: lookedAtAbove, ids: lookedAt },
	});
	const absent = recording ? new Map<number, string>() : decodeIds(staticData.absent);

	const found: IDataObject[] = [];
	/**
	 * A record read in `status`: emitted if that status is watched and new for it. One that failed
	 * before the recording (`failedBefore`, see KnownMessages.unknown) is taken as it would have
	 * been recorded, and not emitted.
	 */
	const observe = (record: IDataObject, status: string, failedBefore = false) => {
		const id = Number(record.id);
		const day = sentDayOf(record, today);
		// Sent before the window: not watched (it would be forgotten at once and come again).
		if (day < watch.startDay) return;
		const message = (failedBefore ? undefined : known.get(id)) ?? {
			status,
			emittedIn: new Set<string>(),
			day,
		};
		if (watched.has(status) && !message.emittedIn.has(status)) {
			message.emittedIn.add(status);
			if (!recording && !failedBefore) found.push(record);
		}
		known.set(id, { ...message, status, day });
		if (id > lookedAtAbove) lookedAt.set(id, day);
	};

	// At a recording, the messages above the mark are followed from their status now.
	for (const record of newest?.records ?? []) {
		if (Number(record.id) > marks.highWaterMark) observe(record, String(record.status));
	}

	// The in-flight lists, in the order a message goes through them: one that moves on while they
	// are read is in one of them, or in a list read after.
	const lastSeenIn = new Map(known.inFlight().map(([id, message]) => [id, message.status]));
	const seenInFlight = new Set<number>();
	const inWindow = (record: IDataObject) => sentDayOf(record, today) >= watch.startDay;
	const beforeWindow = { ...staticData.beforeWindow };
	// Each in-flight list's count, accounted for by the pages read from its top (InFlightLedger).
	const ledgers =
		recording || full
			? new Map<string, InFlightCount>()
			: inFlightCounts(first, staticData.beforeWindow, lastSeenIn, inWindow);
	// Nothing moved, nothing new: the first pages are as at the last clean poll, and account for the
	// messages followed in flight (a first page that answers empty while some are followed is not
	// taken for nothing new, were it twice the same).
	const quiet =
		sameFirstPages && IN_FLIGHT.every((status) => ledgers.get(status)?.accountedFor === true);
	if (quiet) return null;
	/** Followed messages an outcome list showed: where they went is known. */
	const seenElsewhere = new Set<number>();
	await readOutcomesFirst(reader, ledgers, (record, status) => {
		const id = Number(record.id);
		const last = lastSeenIn.get(id);
		if (last === undefined || seenElsewhere.has(id)) return false;
		ledgers.get(last)?.leftList(id);
		seenElsewhere.add(id);
		observe(record, status);
		return true;
	});
	const readInFlight = async (status: string) => {
		const reading = await readList(reader({ status }), {
			overlap: IN_FLIGHT_OVERLAP,
			windowStart: watch.startMs,
			enough: ledgers.has(status) ? (page) => ledgers.get(status)!.addPage(page) : undefined,
		});
		for (const record of reading.records) {
			observe(record, status);
			seenInFlight.add(Number(record.id));
		}
		if (reading.whole) {
			beforeWindow[status] = reading.records.filter((record) => !inWindow(record)).length;
		} else if (!reading.enough) delete beforeWindow[status];
		return reading;
	};
	const inFlightReadings: Reading[] = [];
	for (const status of IN_FLIGHT) inFlightReadings.push(await readInFlight(status));
	// Followed and not in the in-flight lists where a page of each looked: the message moved on (or
	// the reading missed it), and the list of every status says where it is. One whose place no page
	// covered (the list moved more than the pages overlap) is looked for again by the next poll.
	const unaccounted = () =>
		[...lastSeenIn.keys()].filter(
			(id) =>
				!seenInFlight.has(id) &&
				!seenElsewhere.has(id) &&
				inFlightReadings.every((reading) => reading.covers(id)),
		);
	// An in-flight list that answered nothing while messages last seen in it are unaccounted for is
	// asked once more: an empty answer may be a hiccup (a lagging replica), and taken for the truth
	// it would send the list of every status down to the oldest of them.
	const lastIn = new Set(unaccounted().map((id) => lastSeenIn.get(id)));
	let askedAgain = false;
	for (const [i, status] of IN_FLIGHT.entries()) {
		if (inFlightReadings[i].records.length === 0 && lastIn.has(status)) {
			inFlightReadings[i] = await readInFlight(status);
			askedAgain = true;
		}
	}
	// Also with no outcome status watched: a message that went back from SENT to PENDING while the
	// lists were read is in neither, and only the list of every status tells it from a delivered one.
	const missing = new Set(unaccounted());

	/** Whether the next poll reads the FAILED list again: it is not known yet which had failed. */
	let failedAgain = false;
	let failedEmpty = false;
	if (full) {
		// The recording reads it with pages that overlap, to tell that it saw every failed message;
		// until a reading was whole, each message a later one finds that is not known failed before
		// the recording.
		const reading = await readList(reader({ status: 'FAILED' }), {
			overlap: known.failedListKnown ? 0 : IN_FLIGHT_OVERLAP,
			windowStart: watch.startMs,
		});
		const inList = new Set<number>();
		for (const record of reading.records) {
			observe(record, 'FAILED', known.outcomeUnknownAtBaseline(Number(record.id)));
			inList.add(Number(record.id));
		}
		// One empty answer proves nothing (a lagging replica answers an empty 200): the failed
		// messages are learnt from a whole reading that found some, or that two polls in a row found
		// empty; until then every poll reads the list again.
		const empty = reading.whole && reading.records.length === 0;
		const emptyBefore = !recording && staticData.failedUnread === 'empty once';
		if (reading.whole && (!empty || emptyBefore)) known.failedListReadWhole();
		failedAgain = !known.failedListKnown;
		failedEmpty = failedAgain && empty;
		// Last seen FAILED and no longer in the list: sent again, and the list of every status says
		// where it is now. It is followed until a reading sees it.
		for (const [id, message] of reading.complete ? known.lastSeenFailed() : []) {
			if (inList.has(id) || !reading.covers(id)) continue;
			known.set(id, { ...message, status: 'SENT' });
			missing.add(id);
		}
	}

	// The list of every status down to the newest message already looked at, and to the oldest
	// followed message still unaccounted for: it gives each message's status, and it does not
	// shift while it is read (new messages only push it down, so a page may repeat a record).
	let top = marks.highWaterMark;
	let everyListComplete = inFlightReadings.every((reading) => reading.whole || reading.enough);
	const listed = first.total({});
	const newestAtStart = Number(first.content({})[0]?.id ?? 0);
	let newestSeen = staticData.newest ?? marks.highWaterMark;
	let listedToTop = staticData.listedToTop;
	/** What the list of every status holds up to the mark, from a reading that reached it. */
	const countToTop = (records: IDataObject[], mark: number) =>
		listed === undefined
			? undefined
			: listed -
				records.filter((record) => Number(record.id) > mark && Number(record.id) <= newestAtStart)
					.length;
	if (recording) {
		const complete = newest?.complete === true;
		listedToTop = complete ? countToTop(newest!.records, marks.highWaterMark) : undefined;
		newestSeen = highestId(newest?.records ?? [], marks.highWaterMark);
	}
	/** Messages listed late below the mark that this poll did not find. */
	let stillLate = 0;
	if (!recording) {
		let downTo = marks.highWaterMark + 1;
		for (const id of missing) downTo = Math.min(downTo, id);
		const reading = await readList(reader({}), {
			downTo,
			windowStart: watch.startMs,
			enough:
				full || missing.size > 0
					? undefined
					: accountedToNewest(
							listed,
							listedToTop,
							known.followedAboveMark(newestSeen),
							newestSeen,
							newestAtStart,
						),
		});
		everyListComplete &&= reading.complete || reading.enough;
		if (reading.complete || reading.enough) {
			newestSeen = highestId(reading.records, newestSeen);
		}
		const inList = new Set<number>();
		for (const record of reading.records) {
			const id = Number(record.id);
			inList.add(id);
			if (id > marks.highWaterMark || known.isFollowedInFlight(id))
				observe(record, String(record.status));
		}
		// Every message up to the mark it gives has been looked at and is listed, unless it stopped
		// short; those above it stay followed, whatever their status, until the mark passes them.
		if (reading.complete) {
			// More records up to the mark than at the last reading that reached it: messages listed
			// late below it, read down to them (and emitted as new).
			const lateBelow =
				(countToTop(reading.records, marks.highWaterMark) ?? 0) - (listedToTop ?? Infinity);
			// Those not found yet are looked for again by the next poll.
			if (lateBelow > 0) {
				// Up to the mark, and no poll before this one looked at it (this one may have, in
				// another list).
				const { late, left } = await readLate(reader, {
					count: lateBelow,
					downTo: lookedAtAbove + 1,
					windowStart: watch.startMs,
					isLate: (id) =>
						id <= marks.highWaterMark && id > lookedAtAbove && !lookedAtBefore.has(id),
				});
				for (const record of late) {
					if (known.get(Number(record.id)) === undefined) observe(record, String(record.status));
				}
				stillLate = left;
			}
			top = Math.max(top, highestSentBy(reading.records, listedBy));
			listedToTop = countToTop(reading.records, top);
			if (listedToTop !== undefined) listedToTop -= stillLate;
		}
		// A followed message absent from two complete readings below its id (gone from the list, or
		// no longer matching the filters) is no longer followed, as if it had been delivered.
		for (const id of missing) {
			if (inList.has(id)) absent.delete(id);
			else if (!reading.complete || !reading.covers(id) || !known.isFollowedInFlight(id)) continue;
			else if (!absent.delete(id)) absent.set(id, known.get(id)!.day);
			else known.set(id, { ...known.get(id)!, status: 'DELIVERED' });
		}
	}
	for (const id of absent.keys())
		if (seenInFlight.has(id) || !known.isFollowedInFlight(id)) absent.delete(id);

	// A poll that held the trigger too long (LEASE_MS) and was taken over leaves the state to the
	// poll that took over, and emits nothing: that poll reads again what this one read.
	if (!stillHeld()) return null;
	// A recording that may have missed a message in flight (pages that did not meet, an empty
	// page) is not written: the next poll records again. Every message it missed would be taken
	// for delivered or failed. The list of every status only grows while it is read (newer
	// messages push it down): its reading needs only to be complete, or empty.
	const newestRead = newest && (newest.complete || newest.records.length === 0);
	if (recording && !(inFlightReadings.every((reading) => reading.whole) && newestRead)) return null;
	// Written only once every list was read: a failed poll leaves the last state for the next one.
	marks.highWaterMark = top;
	const stored = known.store();
	staticData.scope = watch.scope;
	storeMarks(staticData, marks);
	staticData.followed = stored.followed;
	staticData.beforeWindow = beforeWindow;
	staticData.newest = newestSeen;
	staticData.lookedAtAbove = lookedAtAbove;
	for (const id of lookedAt.keys()) if (id > marks.highWaterMark) lookedAt.delete(id);
	storeIds(staticData, 'lookedAt', lookedAt, watch.startDay);
	staticData.listedToTop = listedToTop;
	staticData.settled = stored.settled;
	storeIds(staticData, 'absent', absent, watch.startDay);
	if (full && !failedAgain) staticData.fullReadingAt = now;
	else if (recording) delete staticData.fullReadingAt;
	// The next poll with the same first pages has nothing to read, unless this one left a message
	// to look for again.
	const lookedForAgain = stillLate > 0 || [...missing].some((id) => known.isFollowedInFlight(id));
	if (everyListComplete && !lookedForAgain && !askedAgain && first.signature !== undefined) {
		staticData.signature = first.signature;
	} else delete staticData.signature;
	if (known.failedListKnown) delete staticData.failedUnread;
	else staticData.failedUnread = failedEmpty ? 'empty once' : true;

	if (found.length === 0) return null;
	// Oldest message first; the sort is stable, so one message's statuses keep their order.
	found.sort((a, b) => Number(a.id) - Number(b.id));
	return [found.map((json) => ({ json: maskedSmsRecord(json) }))];
}
