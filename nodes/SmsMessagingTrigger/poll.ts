import type { IDataObject, INodeExecutionData, IPollFunctions, JsonObject } from 'n8n-workflow';

import { firstPollOfActivation, unlessPollInFlight } from '../shared/n8nInternals';
import { sentDayOf, utcDay } from '../shared/sentWindow';
import { smsListReader } from '../shared/smsListReader';
import { CREDENTIAL_TYPE } from '../shared/transport';
import { readList, type Reading } from './listReading';
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
 * the day its messages were sent and forgotten only when that day leaves the window: never
 * because a reading of the list missed a message.
 */
interface Remembered {
	scope?: string;
	/** Per watched status, the messages emitted in it (or recorded by a poll that emits nothing). */
	emitted?: Record<string, StoredIds>;
	/** The messages in flight (PENDING or SENT) at the last poll. */
	inFlight?: StoredIds;
	/** Every message up to this id has been looked at in the watched outcome statuses. */
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
	const readPage = smsListReader.call(this, credentials, {
		again: 'the next poll tries again',
		namePage: true,
	});
	const reader = (query: IDataObject) => async (page: number, size: number) =>
		await readPage({ ...watch.query, ...query, page, records: size });

	if (this.getMode() === 'manual') {
		let newest: IDataObject | undefined;
		for (const status of watch.statuses) {
			const [latest] = (await reader({ status })(1, 1)).content as IDataObject[];
			if (latest && (!newest || Number(latest.id) > Number(newest.id))) newest = latest;
		}
		return newest ? [[{ json: newest }]] : null;
	}

	// n8n starts the next poll on time even while one is still running (a long window, a 429):
	// two polls at once would both emit what is new, so the later one is skipped.
	return await unlessPollInFlight(this, async () => await pollOnce.call(this, watch, reader));
}

/**
 * What a poll reads: first the list of every status down to the newest message already looked at
 * (the new messages, whatever their status); then the in-flight lists (PENDING, SENT) whole, which
 * tells which messages left them; then, when any did, the watched outcome lists (DELIVERED,
 * FAILED) newest first down to the oldest message that left. Every Full Reading minutes, and
 * whenever a status starts to be watched, the watched lists are read whole instead (the first
 * reading then asks only for the newest message): that catches what the cheaper polls cannot see
 * (a message moving between two outcome statuses, one a reading missed).
 *
 * The first reading fixes how far this poll looked: a message sent while the others are read is
 * newer than anything it saw, so the next poll's first reading sees it, whichever reading of this
 * poll it escaped.
 */
async function pollOnce(
	this: IPollFunctions,
	watch: Watch,
	reader: (query: IDataObject) => (page: number, size: number) => Promise<JsonObject>,
): Promise<INodeExecutionData[][] | null> {
	const remembered = this.getWorkflowStaticData('node') as Remembered;
	const now = Date.now();
	const today = utcDay(now);
	// n8n polls once when the workflow is activated: that poll records what exists and emits
	// nothing, also after a deactivation, so that turning the workflow on never replays history.
	const activated =
		firstPollOfActivation(this) && ['activate', 'create'].includes(this.getActivationMode());
	const recordOnly = activated || remembered.scope !== watch.scope;

	// What was emitted stays remembered through re-activations and filter changes: a message is
	// never emitted twice in one status while it is in the window.
	const emitted = new Map<string, Ids>();
	const recording = new Set<string>();
	for (const status of watch.statuses) {
		const known = remembered.emitted?.[status];
		emitted.set(status, decodeIds(known));
		if (recordOnly || !known) recording.add(status);
	}
	const wasInFlight = decodeIds(remembered.inFlight);
	const outcomes = watch.statuses.filter((status) => !IN_FLIGHT.includes(status));
	const full =
		recording.size > 0 ||
		remembered.inFlight === undefined ||
		remembered.top === undefined ||
		remembered.fullReadingAt === undefined ||
		!(now - remembered.fullReadingAt < watch.fullReadingMs && now >= remembered.fullReadingAt);

	const found: IDataObject[] = [];
	const lookedAt = remembered.top ?? 0;
	const take = (record: IDataObject, status: string) => {
		const id = Number(record.id);
		const ids = emitted.get(status);
		const day = sentDayOf(record, today);
		// Sent before the window: not watched (it would be forgotten at once and come again).
		if (!ids || ids.has(id) || day < watch.startDay) return;
		ids.set(id, day);
		if (!recording.has(status)) found.push(record);
	};

	// Every status down to the newest message already looked at (only the newest message when the
	// watched lists are read whole below): `top` becomes the newest message it saw. A new message
	// in an outcome status is taken; one in flight is followed from now on, unless an outcome
	// reading below finds it there.
	let top = lookedAt;
	const newInFlight: Ids = new Map();
	if (outcomes.length > 0) {
		const reading = full
			? { records: (await reader({})(1, 1)).content as IDataObject[] }
			: await readList(reader({}), { downTo: lookedAt + 1 });
		for (const record of reading.records) {
			const id = Number(record.id);
			top = Math.max(top, id);
			const status = String(record.status);
			if (full) continue;
			if (outcomes.includes(status)) take(record, status);
			else if (IN_FLIGHT.includes(status)) newInFlight.set(id, sentDayOf(record, today));
		}
	}

	// The in-flight lists, in the order a message goes through them: one that moves on while they
	// are read is in one of them, or already in an outcome list, read after.
	const inFlight: Ids = new Map();
	const inFlightReadings: Reading[] = [];
	for (const status of IN_FLIGHT) {
		const reading = await readList(reader({ status }), { overlap: IN_FLIGHT_OVERLAP });
		inFlightReadings.push(reading);
		for (const record of reading.records) {
			inFlight.set(Number(record.id), sentDayOf(record, today));
			take(record, status);
		}
	}
	// Left: no longer in flight where a page of each in-flight list looked. A message whose place
	// no page covered (the list moved more than the pages overlap) is still followed.
	const left: number[] = [];
	for (const [id, day] of wasInFlight) {
		if (inFlight.has(id) || day < watch.startDay) continue;
		if (inFlightReadings.every((reading) => reading.covers(id))) left.push(id);
		else inFlight.set(id, day);
	}

	if (outcomes.length > 0 && (full || left.length > 0)) {
		const downTo = full ? -Infinity : left.reduce((low, id) => Math.min(low, id), lookedAt + 1);
		for (const status of outcomes) {
			const reading = await readList(reader({ status }), { downTo });
			for (const record of reading.records) {
				newInFlight.delete(Number(record.id));
				take(record, status);
			}
		}
	}
	for (const [id, day] of newInFlight) inFlight.set(id, day);

	// Written only once every list was read: a failed poll leaves the last state for the next one.
	remembered.scope = watch.scope;
	remembered.emitted = Object.fromEntries(
		[...emitted].map(([status, ids]) => [status, encodeIds(ids, watch.startDay)]),
	);
	remembered.inFlight = encodeIds(inFlight, watch.startDay);
	// Every message up to `top` has now been looked at: in the list of every status (or, for a full
	// reading, in the in-flight and outcome lists read whole), and is emitted or followed.
	remembered.top = top;
	if (full) remembered.fullReadingAt = now;

	if (found.length === 0) return null;
	// Oldest message first; the sort is stable, so one message's statuses keep their order.
	found.sort((a, b) => Number(a.id) - Number(b.id));
	return [found.map((json) => ({ json }))];
}
