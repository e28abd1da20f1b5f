import type { IDataObject, INodeExecutionData, IPollFunctions, JsonObject } from 'n8n-workflow';

import { sentDayOf, utcDay } from '../shared/sentWindow';
import { smsListReader } from '../shared/smsListReader';
import { sharedLimiter } from '../shared/limiter';
import { CREDENTIAL_TYPE, RunProgress } from '../shared/transport';
import { readList, type Reading } from './listReading';
import { startsActivation, withLease, type PollSession } from './pollState';
import { decodeIds, encodeIds, type Ids, type StoredIds } from './storedIds';
import { readWatch, type Watch } from './watch';

/**
 * The statuses of a message still in flight: it reaches DELIVERED or FAILED from one of them, so
 * following the messages in them tells which messages changed since the last poll.
 */
const IN_FLIGHT = ['PENDING', 'SENT'];

/**
 * Records two consecutive pages of an in-flight list share (by asking the pages at sizes that make
 * them overlap): these lists lose messages while they are read, which moves every later record up,
 * and without an overlap the record that crosses a page boundary would be read in neither page.
 */
const IN_FLIGHT_OVERLAP = 3;

/**
 * What the trigger remembers between polls, in the workflow's static data. Every set is kept by
 * the day its messages were sent and forgotten only when that day leaves the window, or (for the
 * messages followed) when a reading sees the message in its next status: never because a reading
 * of the list missed a message.
 */
interface Remembered extends PollSession {
	scope?: string;
	/** Per watched status, the messages emitted in it (or recorded by a poll that emits nothing). */
	emitted?: Record<string, StoredIds>;
	/** The messages followed: last seen in flight (PENDING or SENT). */
	inFlight?: StoredIds;
	/** Those of them last seen PENDING (absent when none). */
	pending?: StoredIds;
	/** Every message up to this id has been looked at in the list of every status. */
	top?: number;
	/** When the last full reading of the window started (ms since the epoch). */
	fullReadingAt?: number;
}

/**
 * One poll. Emits each message newly seen in a watched status once; the first poll of an
 * activation (and of a status, filter set or window not watched before) only records. A manual
 * run emits the newest matching message and leaves what polls remember alone.
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
		return newest ? [[{ json: newest }]] : null;
	}

	const remembered = this.getWorkflowStaticData('node') as Remembered;
	const now = Date.now();
	// A new activation by a user records what exists and emits nothing, so that turning the
	// workflow on never replays history: forgetting the scope makes every status record until a
	// poll completes (also when this one fails or is skipped).
	if (startsActivation(this, remembered, now)) delete remembered.scope;
	remembered.polledAt = now;

	return await withLease(remembered, async (renew, stillHeld) => {
		const reader = (query: IDataObject) => async (page: number, size: number) => {
			renew();
			return await readPage({ ...watch.query, ...query, page, records: size });
		};
		return await pollOnce.call(this, watch, reader, remembered, stillHeld);
	});
}

/**
 * What a poll reads: first the in-flight lists (PENDING, SENT) whole, which tells which messages
 * the trigger follows left them; then the list of every status, newest first, down to the newest
 * message already looked at (the new messages, whatever their status) or, when a followed message
 * was not in the in-flight lists, down to it, to see its status. Every Full Reading minutes, and
 * whenever a status starts to be watched, the watched outcome lists (DELIVERED, FAILED) are read
 * whole before the list of every status: that catches what the cheaper polls cannot see (a
 * message moving between two outcome statuses).
 *
 * A followed message stops being followed only when a reading sees it in another status, or when
 * the day it was sent leaves the window: a reading that misses it (an empty answer, a page that
 * shifted) leaves it followed, and the next poll looks for it again.
 */
async function pollOnce(
	this: IPollFunctions,
	watch: Watch,
	reader: (query: IDataObject) => (page: number, size: number) => Promise<JsonObject>,
	remembered: Remembered,
	stillHeld: () => boolean,
): Promise<INodeExecutionData[][] | null> {
	const now = Date.now();
	const today = utcDay(now);
	const recordOnly = remembered.scope !== watch.scope;

	// What was emitted stays remembered through re-activations and filter changes: a message is
	// never emitted twice in one status while it is in the window.
	const emitted = new Map<string, Ids>();
	const recording = new Set<string>();
	for (const status of watch.statuses) {
		const known = remembered.emitted?.[status];
		emitted.set(status, decodeIds(known));
		if (recordOnly || !known) recording.add(status);
	}
	const outcomes = watch.statuses.filter((status) => !IN_FLIGHT.includes(status));
	const full =
		recording.size > 0 ||
		remembered.inFlight === undefined ||
		remembered.top === undefined ||
		remembered.fullReadingAt === undefined ||
		!(now - remembered.fullReadingAt < watch.fullReadingMs && now >= remembered.fullReadingAt);

	const found: IDataObject[] = [];
	const take = (record: IDataObject, status: string) => {
		const id = Number(record.id);
		const ids = emitted.get(status);
		const day = sentDayOf(record, today);
		// Sent before the window: not watched (it would be forgotten at once and come again).
		if (!ids || ids.has(id) || day < watch.startDay) return;
		ids.set(id, day);
		if (!recording.has(status)) found.push(record);
	};

	// Nothing looked at yet: the newest message fixes how far this poll looks, as the full reading
	// below reads every list whole.
	const lookedAt = remembered.top;
	let top = lookedAt ?? 0;
	if (outcomes.length > 0 && lookedAt === undefined) {
		const [newest] = (await reader({})(1, 1)).content as IDataObject[];
		if (newest) top = Number(newest.id);
	}

	// The in-flight lists, in the order a message goes through them: one that moves on while they
	// are read is in one of them, or in a list read after. With no outcome status watched, what is
	// in flight now is all there is to know.
	const following = new Map(
		outcomes.length === 0
			? []
			: [...decodeIds(remembered.inFlight)].filter(([, day]) => day >= watch.startDay),
	);
	// Where each followed message was last seen: PENDING, or else SENT.
	const lastSeenIn = new Map<number, string>();
	for (const id of decodeIds(remembered.pending).keys()) lastSeenIn.set(id, 'PENDING');
	const follow = (record: IDataObject, status: string) => {
		following.set(Number(record.id), sentDayOf(record, today));
		lastSeenIn.set(Number(record.id), status);
		take(record, status);
	};
	const seenInFlight = new Set<number>();
	const readInFlight = async (status: string) => {
		const reading = await readList(reader({ status }), {
			overlap: IN_FLIGHT_OVERLAP,
			windowStart: watch.startMs,
		});
		for (const record of reading.records) {
			follow(record, status);
			seenInFlight.add(Number(record.id));
		}
		return reading;
	};
	const inFlightReadings: Reading[] = [];
	for (const status of IN_FLIGHT) inFlightReadings.push(await readInFlight(status));
	// Followed and not in the in-flight lists where a page of each looked: the message moved on (or
	// the reading missed it), and the list of every status says where it is. One whose place no page
	// covered (the list moved more than the pages overlap) is looked for again by the next poll.
	const unaccounted = () =>
		[...following.keys()].filter(
			(id) => !seenInFlight.has(id) && inFlightReadings.every((reading) => reading.covers(id)),
		);
	// An in-flight list that answered nothing while messages last seen in it are unaccounted for is
	// asked once more: an empty answer may be a hiccup (a lagging replica), and taken for the truth
	// it would send the list of every status down to the oldest of them.
	const lastIn = new Set(unaccounted().map((id) => lastSeenIn.get(id) ?? 'SENT'));
	for (const [i, status] of IN_FLIGHT.entries()) {
		if (inFlightReadings[i].records.length === 0 && lastIn.has(status)) {
			inFlightReadings[i] = await readInFlight(status);
		}
	}
	const missing = new Set(unaccounted());
	// A message seen in a status that is not in flight is no longer followed.
	const settle = (record: IDataObject, status: string) => {
		const id = Number(record.id);
		take(record, status);
		following.delete(id);
		missing.delete(id);
	};

	if (outcomes.length > 0 && full) {
		for (const status of outcomes) {
			for (const record of (await readList(reader({ status }), { windowStart: watch.startMs }))
				.records) {
				settle(record, status);
			}
		}
	}

	// The list of every status down to the newest message already looked at, and to the oldest
	// followed message still unaccounted for: it gives each message's status, and it does not
	// shift while it is read (new messages only push it down, so a page may repeat a record).
	if (outcomes.length > 0) {
		let downTo = lookedAt === undefined ? Infinity : lookedAt + 1;
		for (const id of missing) downTo = Math.min(downTo, id);
		if (downTo !== Infinity) {
			const reading = await readList(reader({}), { downTo, windowStart: watch.startMs });
			for (const record of reading.records) {
				const id = Number(record.id);
				const status = String(record.status);
				// What it says of the new messages and of the followed ones.
				if (!(following.has(id) || (lookedAt !== undefined && id > lookedAt))) continue;
				if (IN_FLIGHT.includes(status)) follow(record, status);
				else settle(record, status);
			}
			// Every message up to the newest it saw has been looked at, unless it stopped short.
			if (reading.complete) {
				for (const record of reading.records) top = Math.max(top, Number(record.id));
			}
		}
	}

	// A poll that held the trigger too long (LEASE_MS) and was taken over leaves the state to the
	// poll that took over, and emits nothing: that poll reads again what this one read.
	if (!stillHeld()) return null;
	// Written only once every list was read: a failed poll leaves the last state for the next one.
	remembered.scope = watch.scope;
	remembered.emitted = Object.fromEntries(
		[...emitted].map(([status, ids]) => [status, encodeIds(ids, watch.startDay)]),
	);
	remembered.inFlight = encodeIds(following, watch.startDay);
	const pending = [...following].filter(([id]) => lastSeenIn.get(id) === 'PENDING');
	if (pending.length > 0) remembered.pending = encodeIds(new Map(pending), watch.startDay);
	else delete remembered.pending;
	remembered.top = top;
	if (full) remembered.fullReadingAt = now;

	if (found.length === 0) return null;
	// Oldest message first; the sort is stable, so one message's statuses keep their order.
	found.sort((a, b) => Number(a.id) - Number(b.id));
	return [found.map((json) => ({ json }))];
}
