// One poll of the trigger: n8n's entry point, a manual run, and the steps of a poll in order.
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { maskedSmsRecord } from '../shared/approvalLink';
import { smsListReader } from '../shared/lists/smsListReader';
import { sharedLimiter } from '../shared/requests/limiter';
import { repeatedPagesError } from '../shared/lists/list';
import { apiCredentials, RunProgress } from '../shared/requests/transport';
import type { ListReader } from './reading/listReading';
import { storeIds, storeMarks, withLease, type TriggerStaticData } from './state/pollState';
import { everyStatusAtBaseline, readEveryStatus, type EveryStatus } from './pollEveryStatus';
import { startPoll, type Poll } from './pollStart';
import {
	inFlightAtStart,
	nothingChanged,
	readFailedList,
	readInFlightLists,
	type InFlight,
} from './pollStatusLists';
import { readWatch, type Watch } from './watch';

/**
 * One poll. Emits each message newly seen in a watched status once. Only the baseline poll (the
 * first after publishing, or after Watch Statuses, the filters or Lookback Days changed: nothing
 * is stored for what is watched) takes in what exists and emits nothing; after any pause, a
 * restart or the workflow unpublished and published again, a poll goes on from what the last one
 * stored. A manual run emits the newest matching message and leaves the static data alone.
 */
export async function pollDeliveries(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const watch = readWatch.call(this);
	const credentials = await apiCredentials(this);
	// The poll's reads wait their turn with the other runs that use this credential and host under
	// Auto (limiter.ts), and a Retry-After any of them is given holds them all.
	const readPage = smsListReader.call(this, credentials, {
		control: {
			gate: sharedLimiter(credentials.baseUrl, credentials.apiToken),
			run: new RunProgress(),
		},
		again: 'the next poll tries again',
		namePage: true,
	});
	if (this.getMode() === 'manual') return await newestMatching(watch, readPage);

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

/** A manual run: the newest message in a watched status, from the first page of each. */
async function newestMatching(
	watch: Watch,
	readPage: ReturnType<typeof smsListReader>,
): Promise<INodeExecutionData[][] | null> {
	let newest: IDataObject | undefined;
	for (const status of watch.statuses) {
		const query = { ...watch.query, status, page: 1, records: 1 };
		const [latest] = (await readPage(query)).content as IDataObject[];
		if (latest && (!newest || Number(latest.id) > Number(newest.id))) newest = latest;
	}
	return newest ? [[{ json: maskedSmsRecord(newest) }]] : null;
}

/**
 * What a poll reads (docs/trigger.md): first the first pages of the in-flight lists (PENDING,
 * SENT) and of the list of every status; when they are as at the last clean poll and account for
 * the messages followed in flight, nothing more. Otherwise the in-flight lists from their top, as
 * far as it takes to account for their counts (InFlightCount), the FAILED and DELIVERED lists from
 * their top first when their first pages do not; then the list of every status, newest first,
 * down to the newest message already looked at (the new messages, whatever their status) and to
 * any followed message that left the in-flight lists where no other list showed it, to see its
 * status. Every Full Reading minutes, when an outcome status is watched, the in-flight lists and
 * the FAILED list are read whole: a message in FAILED that was last seen in another outcome moved
 * there, and one last seen FAILED that is no longer in it moved on, which the cheaper polls cannot
 * see. The baseline poll reads the in-flight lists and the FAILED list (when an outcome status is
 * watched) whole and the newest messages (down to the high-water mark it sets), and emits nothing:
 * every other message up to the mark is known as DELIVERED without being read (KnownMessages).
 * While no reading of the FAILED list was whole (an empty answer may be a lagging replica's),
 * every poll reads it again.
 */
async function pollOnce(
	watch: Watch,
	listReader: ListReader,
	staticData: TriggerStaticData,
	stillHeld: () => boolean,
): Promise<INodeExecutionData[][] | null> {
	const poll = await startPoll(watch, listReader, staticData);
	const inFlight = inFlightAtStart(poll);
	if (nothingChanged(poll, inFlight)) return null;
	await readInFlightLists(poll, inFlight);
	const failedEmptyOnce = poll.fullReading ? await readFailedList(poll, inFlight.missing) : false;
	const everyStatus = poll.baseline
		? everyStatusAtBaseline(poll, inFlight)
		: await readEveryStatus(poll, inFlight);
	// A poll that held the trigger too long (its lease, pollState.ts) and was taken over leaves
	// the state to the poll that took over, and emits nothing: that poll reads again what this
	// one read.
	if (!stillHeld()) return null;
	if (poll.baseline && !baselineSawEverything(poll, inFlight)) return null;
	// Written only once every list was read: a failed poll leaves the last state for the next one.
	storeState(poll, inFlight, everyStatus, failedEmptyOnce);
	return emitted(poll.toEmit);
}

/**
 * Whether the baseline poll can be stored. One that may have missed a message in flight (pages
 * that did not meet, an empty page) is not: the next poll is a baseline poll again. Every
 * message it missed would be taken for delivered or failed. The list of every status only grows
 * while it is read (newer messages push it down): its reading needs only to be complete, or empty.
 */
function baselineSawEverything(poll: Poll, inFlight: InFlight): boolean {
	const { newest } = poll;
	const newestRead = newest && (newest.complete || newest.records.length === 0);
	return inFlight.readings.every((reading) => reading.whole) && newestRead === true;
}

/** Writes what the poll learnt into the static data. */
function storeState(
	poll: Poll,
	inFlight: InFlight,
	everyStatus: EveryStatus,
	failedEmptyOnce: boolean,
): void {
	const { staticData, marks, known, lookedAt, watch } = poll;
	marks.highWaterMark = everyStatus.highWaterMark;
	const stored = known.store();
	staticData.scope = watch.scope;
	storeMarks(staticData, marks);
	staticData.followed = stored.followed;
	staticData.beforeWindow = inFlight.beforeWindow;
	staticData.newest = everyStatus.newestSeen;
	staticData.lookedAtAbove = lookedAt.above;
	for (const id of lookedAt.ids.keys()) if (id > marks.highWaterMark) lookedAt.ids.delete(id);
	storeIds(staticData, 'lookedAt', lookedAt.ids, watch.startDay);
	staticData.listedToTop = everyStatus.listedToMark;
	staticData.settled = stored.settled;
	storeIds(staticData, 'absent', poll.absent, watch.startDay);
	if (poll.fullReading && known.failedListKnown) staticData.fullReadingAt = poll.now;
	else if (poll.baseline) delete staticData.fullReadingAt;
	if (isCleanPoll(poll, inFlight, everyStatus)) staticData.signature = poll.first.signature;
	else delete staticData.signature;
	if (known.failedListKnown) delete staticData.failedUnread;
	else staticData.failedUnread = failedEmptyOnce ? 'empty once' : true;
}

/**
 * A clean poll: it read every list as far as it had to and left no message to look for again.
 * The next poll whose first pages are as this one's (its signature) has nothing to read.
 */
function isCleanPoll(poll: Poll, inFlight: InFlight, everyStatus: EveryStatus): boolean {
	const lookedForAgain =
		everyStatus.stillLate > 0 ||
		[...inFlight.missing].some((id) => poll.known.isFollowedInFlight(id));
	return (
		everyStatus.everyListComplete &&
		!lookedForAgain &&
		!inFlight.askedAgain &&
		poll.first.signature !== undefined
	);
}

/** The messages to emit, oldest first (a stable sort: one message's statuses keep their order). */
function emitted(toEmit: IDataObject[]): INodeExecutionData[][] | null {
	if (toEmit.length === 0) return null;
	toEmit.sort((a, b) => Number(a.id) - Number(b.id));
	return [toEmit.map((json) => ({ json: maskedSmsRecord(json) }))];
}
