// The sent-date window of the SMS list, in one place: counted in UTC days, as the API filters by
// day (`start-date`, spec section 4.4).
import type { IDataObject } from 'n8n-workflow';

import { apiTime, hasOffset } from '../input/apiTime';

const DAY_MS = 86_400_000;

/**
 * How much earlier than a message's own time (a run's start, Send's `sentAt`) a record's `sentAt` may be and still count as this run's message:
 * the API's clock and n8n's may differ. An identical message to the same number sent by anything
 * else within this margin before the run cannot be told apart from it.
 */
export const CLOCK_MARGIN_MS = 120_000;

/** The UTC day of a moment (ms since the epoch), as the API writes days: YYYY-MM-DD. */
export function utcDay(at: number): string {
	return new Date(at).toISOString().slice(0, 10);
}

/** The UTC day a record of the list was sent on; `fallback` when its `sentAt` cannot be read. */
export function sentDayOf(record: IDataObject, fallback: string): string {
	const at = apiTime(record.sentAt);
	return Number.isNaN(at) ? fallback : utcDay(at);
}

/** 00:00 UTC of `at`'s day (ms). */
const dayStart = (at: number) => Math.floor(at / DAY_MS) * DAY_MS;

/** When a window of `lookbackDays` days before `now`'s day begins: 00:00 UTC of its first day. */
export function windowStartMs(lookbackDays: number, now = Date.now()): number {
	return dayStart(now) - lookbackDays * DAY_MS;
}

/**
 * The `start-date` that asks the SMS list for every message sent at `since` or later, however the
 * API reads it: the spec says "messages sent after this date", which an API may read as from the
 * end of that day, or from its start. So it is the day before `since`'s day, and the records are
 * then kept by their own `sentAt` (`sentSince`): at most one day more of the list is read.
 */
export function startDateFor(since: number): string {
	return utcDay(dayStart(since) - DAY_MS);
}

const HOUR_MS = 3_600_000;
/** The zones a service may write its local times in, without an offset: UTC−12:00 to UTC+14:00. */
const WEST_MS = 12 * HOUR_MS;
const EAST_MS = 14 * HOUR_MS;
/** Zones' offsets are whole quarter hours. */
const ZONE_STEP_MS = 900_000;

/**
 * The earliest and latest moment (UTC, ms) a record's `sentAt` may stand for: the one it names
 * with an offset (Z, +03:00); without one, that local time at the API's `offset` (ms east of
 * UTC) when it was learned (`learnedOffset`), else in any zone from UTC−12:00 to UTC+14:00.
 * [NaN, NaN] when it cannot be read.
 */
function sentSpan(record: IDataObject, offset?: number): [number, number] {
	const at = apiTime(record.sentAt);
	if (Number.isNaN(at) || hasOffset(record.sentAt)) return [at, at];
	if (offset !== undefined) return [at - offset, at - offset];
	return [at - EAST_MS, at + WEST_MS];
}

/**
 * The `start-date` that asks the SMS list for every message sent at `since` or later in any
 * zone the API may write its days in (`startDateFor` of 12 hours earlier: a service in UTC−12:00
 * dates a message sent at `since` up to 12 hours before it). The reading still stops at records
 * older than `since` (`sentSince`), so this costs requests only where times carry no offset.
 */
export function startDateInAnyZone(since: number): string {
	return startDateFor(since - WEST_MS);
}

/**
 * Whether a record of the list was provably sent at `since` or later: one whose `sentAt` cannot be
 * read is not, nor one without an offset that may be older in some zone (`sentSpan`): either
 * cannot be told from an older message with the same number and text.
 */
export function provablySentSince(record: IDataObject, since: number, offset?: number): boolean {
	return sentSpan(record, offset)[0] >= since;
}

/**
 * Whether a record may have been sent at `since` or later without that being provable: its
 * `sentAt` has no offset, and in some zone it is older (`sentSpan`).
 */
export function unplacedSince(record: IDataObject, since: number, offset?: number): boolean {
	const [earliest, latest] = sentSpan(record, offset);
	return earliest < since && latest >= since;
}

/**
 * Whether a reading of the list should go on past a record: it may have been sent at `since` or
 * later in any zone, or its `sentAt` cannot be read.
 */
export function sentSince(record: IDataObject, since: number): boolean {
	const latest = sentSpan(record)[1];
	return Number.isNaN(latest) || latest >= since;
}

/**
 * The API's offset (ms east of UTC) for the times it writes without one, learned from records
 * the API wrote when a known moment (`at`, n8n's clock) says: each such time less its moment is
 * a whole quarter hour within CLOCK_MARGIN_MS, from UTC−12:00 to UTC+14:00, and all agree.
 * Undefined when there is none, or any sample disagrees (then nothing is placed by it).
 */
export function learnedOffset(
	samples: Array<{ written: unknown; at: number }>,
): number | undefined {
	let offset: number | undefined;
	for (const { written, at } of samples) {
		const local = apiTime(written);
		if (hasOffset(written) || Number.isNaN(local) || Number.isNaN(at)) continue;
		const step = Math.round((local - at) / ZONE_STEP_MS) * ZONE_STEP_MS;
		const fits =
			Math.abs(local - at - step) <= CLOCK_MARGIN_MS && step >= -WEST_MS && step <= EAST_MS;
		if (!fits || (offset !== undefined && offset !== step)) return undefined;
		offset = step;
	}
	return offset;
}
