import type { IDataObject } from 'n8n-workflow';

// The sent-date window of the SMS list, in one place: the list filters by UTC day (`start-date`,
// spec section 6), so every reading of it counts days in UTC, like the API's timestamps.

const DAY_MS = 86_400_000;

/** The UTC day of a moment (ms since the epoch), as the API writes days: YYYY-MM-DD. */
export function utcDay(at: number): string {
	return new Date(at).toISOString().slice(0, 10);
}

/** The first day of a window of `lookbackDays` days before `now`'s day (its `start-date`). */
export function windowStartDay(lookbackDays: number, now = Date.now()): string {
	return utcDay(now - lookbackDays * DAY_MS);
}

/** How many days before `now`'s day the day of `since` is: the window that starts on it. */
export function daysSince(since: number, now = Date.now()): number {
	return Math.floor(now / DAY_MS) - Math.floor(since / DAY_MS);
}

/** The UTC day a record of the list was sent on; `fallback` when its `sentAt` cannot be read. */
export function sentDayOf(record: IDataObject, fallback: string): string {
	const at = Date.parse(String(record.sentAt));
	return Number.isNaN(at) ? fallback : utcDay(at);
}
