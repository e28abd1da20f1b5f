import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { unwrapData } from '../SmsMessaging/shared/errors';
import { checkedPage, MAX_PAGE_SIZE } from '../SmsMessaging/shared/list';
import { SMS_LIST_FILTERS, SMS_STATUSES } from '../SmsMessaging/shared/smsFilters';
import {
	CREDENTIAL_TYPE,
	DEFAULT_RETRY,
	requestWithRetry,
	unansweredText,
} from '../SmsMessaging/shared/transport';
import { integerInRange, isSet, oneOrMoreOf } from '../SmsMessaging/shared/validation';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** The order a message goes through, so that one seen SENT and DELIVERED in a poll comes out so. */
const LIFECYCLE = ['PENDING', 'SENT', 'DELIVERED', 'FAILED'];

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

/** The smallest page asked for when choosing a page size that makes two pages overlap. */
const MIN_OVERLAP_PAGE = 50;

/** What the trigger watches, checked: the list query every status shares, and its scope. */
interface Watch {
	statuses: string[];
	query: IDataObject;
	/** The filters and Lookback Days: when they change, the next poll records and emits nothing. */
	scope: string;
	/** The first UTC day of the window (`start-date`): messages sent before it are not watched. */
	startDay: string;
	/** How long a full reading of the window lasts before the next one is due (0: every poll). */
	fullReadingMs: number;
}

/**
 * Ids by the UTC day their message was sent, in the workflow's static data: each day's ids in
 * ascending order, as base-36 differences from the previous one ("rs,1,2" is 1000, 1001, 1003),
 * so that a message costs about two bytes when ids are consecutive, whatever their size (a few
 * more when they are sparse).
 */
type StoredIds = Record<string, string>;

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

/** An id set in memory: each id with the UTC day its message was sent. */
type Ids = Map<number, string>;

function decodeIds(stored: StoredIds | undefined): Ids {
	const ids: Ids = new Map();
	for (const [day, encoded] of Object.entries(stored ?? {})) {
		let id = 0;
		for (const step of encoded.split(',')) {
			id += parseInt(step, 36);
			ids.set(id, day);
		}
	}
	return ids;
}

/** The ids sent on `startDay` or later, encoded as StoredIds. */
function encodeIds(ids: Ids, startDay: string): StoredIds {
	const byDay = new Map<string, number[]>();
	for (const [id, day] of ids) {
		if (day < startDay) continue;
		const list = byDay.get(day) ?? [];
		list.push(id);
		byDay.set(day, list);
	}
	const stored: StoredIds = {};
	for (const day of [...byDay.keys()].sort()) {
		const sorted = byDay.get(day)!.sort((a, b) => a - b);
		stored[day] = sorted
			.map((id, i) => (id - (i === 0 ? 0 : sorted[i - 1])).toString(36))
			.join(',');
	}
	return stored;
}

interface Credentials {
	baseUrl: string;
	apiToken: string;
}

/** Checks every parameter before any request; a bad one stops the poll naming its field. */
function readWatch(this: IPollFunctions): Watch {
	const node = this.getNode();
	const ref = (field: string, label: string) => ({ node, field, label });
	const statuses = oneOrMoreOf(
		ref('statuses', 'Watch Statuses'),
		this.getNodeParameter('statuses', []),
		SMS_STATUSES,
	).sort((a, b) => LIFECYCLE.indexOf(a) - LIFECYCLE.indexOf(b));
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const options = this.getNodeParameter('options', {}) as IDataObject;

	const query: IDataObject = {};
	for (const { property, check, query: name } of Object.values(SMS_LIST_FILTERS)) {
		const value = filters[property.name];
		if (isSet(value)) {
			query[name] = check(
				ref(`filters.${property.name}`, property.displayName),
				value,
			) as IDataObject[string];
		}
	}
	const lookbackDays = integerInRange(
		ref('options.lookbackDays', 'Lookback Days'),
		options.lookbackDays ?? 2,
		1,
		31,
	);
	const fullReadingMinutes = integerInRange(
		ref('options.fullReadingMinutes', 'Full Reading Every (Minutes)'),
		options.fullReadingMinutes ?? 15,
		0,
		1440,
	);
	const scope = JSON.stringify({ ...query, lookbackDays });
	// Days count in UTC, like the API's timestamps.
	const startDay = new Date(Date.now() - lookbackDays * DAY_MS).toISOString().slice(0, 10);
	query['start-date'] = startDay;
	return {
		statuses: [...new Set(statuses)],
		query,
		scope,
		startDay,
		fullReadingMs: fullReadingMinutes * MINUTE_MS,
	};
}

/** The UTC day a message was sent on (the poll's own day if its sentAt cannot be read). */
function sentDay(record: IDataObject, today: string): string {
	const at = Date.parse(String(record.sentAt));
	return Number.isNaN(at) ? today : new Date(at).toISOString().slice(0, 10);
}

/** Asks one page of the SMS list; returns its checked `data`. */
async function readPage(
	this: IPollFunctions,
	credentials: Credentials,
	query: IDataObject,
	page: number,
	size: number,
): Promise<JsonObject> {
	const node = this.getNode();
	const context = { operation: 'list' as const, apiToken: credentials.apiToken };
	const delivery = await requestWithRetry.call(
		this,
		{
			method: 'GET',
			baseURL: credentials.baseUrl,
			url: '/sms',
			qs: { ...query, page, records: size },
			headers: { Accept: 'application/json' },
			json: true,
		},
		DEFAULT_RETRY,
	);
	if (delivery.outcome !== 'answered') {
		throw new NodeOperationError(
			node,
			`Page ${page} of the SMS list could not be read: ${unansweredText(delivery)}`,
			{ description: 'Reading the list changes nothing; the next poll tries again.' },
		);
	}
	const { statusCode, body } = delivery.response;
	return checkedPage(node, statusCode, unwrapData(node, statusCode, body, context), page, context);
}

/**
 * The page and page size of the next page to read, when `read` records are behind and the new page
 * must start at least `overlap` records before them: the one that reaches furthest. Without an
 * overlap that is the next page at the largest size.
 */
function nextPage(read: number, overlap: number): { page: number; size: number } {
	const from = Math.max(0, read - overlap);
	let best = { page: 1, size: MAX_PAGE_SIZE, reach: MAX_PAGE_SIZE };
	for (let size = MAX_PAGE_SIZE; size >= (overlap ? MIN_OVERLAP_PAGE : MAX_PAGE_SIZE); size--) {
		const page = Math.floor(from / size) + 1;
		if (page * size > best.reach) best = { page, size, reach: page * size };
	}
	return best;
}

/** One reading of a list, newest first (the API's default order). */
interface Reading {
	records: IDataObject[];
	/**
	 * Whether a page of this reading looked at the place of `id` in the list: if so, a message with
	 * this id was not in the list when that page was read, unless the reading found it.
	 */
	covers(id: number): boolean;
}

/**
 * Reads a list newest first, down to the page that reaches `downTo` (an id) or to its end. With an
 * overlap, consecutive pages share records, so the reading sees every record that stays in the list
 * however many others leave it meanwhile (up to the overlap between two pages); where they do not
 * meet, the ids in between are not covered.
 */
async function readList(
	read: (page: number, size: number) => Promise<JsonObject>,
	{ downTo = -Infinity, overlap = 0 }: { downTo?: number; overlap?: number },
): Promise<Reading> {
	const records = new Map<number, IDataObject>();
	const covered: Array<[number, number]> = [];
	let position = 0;
	let lowest = Infinity;
	for (;;) {
		const { page, size } = nextPage(position, overlap);
		const data = await read(page, size);
		const content = data.content as IDataObject[];
		const ids = content.map((record) => Number(record.id));
		const { last } = (data.pagination ?? {}) as IDataObject;
		// As collectPages: a short page ends the list unless the API says it is not the last.
		const ended = last === true || (content.length < size && last !== false);
		if (content.length === 0) {
			// An empty first page covers the whole list; a later one nothing that is known.
			if (position === 0) covered.push([-Infinity, Infinity]);
			break;
		}
		// A page covers the ids from its lowest to its highest; the first one everything above, the
		// last one everything below. Where two pages do not meet, the ids in between are not covered.
		covered.push([
			ended ? -Infinity : Math.min(...ids),
			position === 0 ? Infinity : Math.max(...ids),
		]);
		for (const [i, id] of ids.entries()) if (!records.has(id)) records.set(id, content[i]);
		lowest = Math.min(lowest, ...ids);
		position = page * size;
		if (ended || lowest <= downTo) break;
	}
	return {
		records: [...records.values()],
		covers: (id) => covered.some(([low, high]) => id >= low && id <= high),
	};
}

/** Poll contexts that have polled: n8n keeps one per activation and polls through it. */
const polledContexts = new WeakSet<IPollFunctions>();

/** Poll contexts whose poll has not finished yet. */
const pollsInFlight = new WeakSet<IPollFunctions>();

/**
 * One poll. Emits each message newly seen in a watched status once; the first poll of an
 * activation (and of a status, filter set or window not watched before) only records. A manual
 * run emits the newest matching message and leaves what polls remember alone.
 */
export async function pollDeliveries(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const watch = readWatch.call(this);
	const credentials = await this.getCredentials<Credentials>(CREDENTIAL_TYPE);
	const reader = (query: IDataObject) => async (page: number, size: number) =>
		await readPage.call(this, credentials, { ...watch.query, ...query }, page, size);

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
	if (pollsInFlight.has(this)) return null;
	pollsInFlight.add(this);
	try {
		return await pollOnce.call(this, watch, reader);
	} finally {
		pollsInFlight.delete(this);
	}
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
	const today = new Date(now).toISOString().slice(0, 10);
	// n8n polls once when the workflow is activated: that poll records what exists and emits
	// nothing, also after a deactivation, so that turning the workflow on never replays history.
	const activated =
		!polledContexts.has(this) && ['activate', 'create'].includes(this.getActivationMode());
	polledContexts.add(this);
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
		const day = sentDay(record, today);
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
			else if (IN_FLIGHT.includes(status)) newInFlight.set(id, sentDay(record, today));
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
			inFlight.set(Number(record.id), sentDay(record, today));
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
