// The sent-date window of the SMS list, in one place: counted in UTC days, as the API filters by
// day (`start-date`, spec section 4.4).
import type { IDataObject } from 'n8n-workflow';

import { apiTime } from '../input/apiTime';

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

/**
 * Whether a record of the list was provably sent at `since` or later: one whose `sentAt` cannot be
 * read is not (it cannot be told from an older message with the same number and text).
 */
export function provablySentSince(record: IDataObject, since: number): boolean {
	return apiTime(record.sentAt) >= since;
}

/**
 * Whether a reading of the list should go on past a record: it was sent at `since` or later, or
 * its `sentAt` cannot be read.
 */
export function sentSince(record: IDataObject, since: number): boolean {
	const at = apiTime(record.sentAt);
	return Number.isNaN(at) || at >= since;
}
