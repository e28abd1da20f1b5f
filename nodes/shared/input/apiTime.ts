// The API's times, read in one place. The spec says "ISO 8601 date-time" (only the wrapper's
// timestamp is said to be UTC), and a Java service writes a LocalDateTime without an offset
// ("2026-11-27T09:30:00.123"). JavaScript reads such a time in the host's time zone; the API's
// day filters and its wrapper count in UTC, so a time without an offset is read as UTC, on any
// host. Where a record must be placed before or after a moment (the SMS list lookups), its zone
// is not assumed: see sentSpan in nodes/shared/lists/sentWindow.ts.

/** YYYY-MM-DD, then optionally a time (T or a space) and an offset (Z, ±hh, ±hhmm, ±hh:mm). */
const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** The day as the API writes days (YYYY-MM-DD) if it exists (no 30 February); else undefined. */
export function realDay(year: number, month: number, day: number): string | undefined {
	const date = new Date(Date.UTC(year, month - 1, day));
	const real =
		date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
	return real ? date.toISOString().slice(0, 10) : undefined;
}

/** Whether the parts name a real time of a real day (no 25:99, no 30 February). */
function isRealTime([year, month, day, hour = 0, minute = 0, second = 0]: number[]): boolean {
	return realDay(year, month, day) !== undefined && hour <= 23 && minute <= 59 && second <= 59;
}

/**
 * Whether a time the API wrote names its offset (Z, ±hh:mm…). One without is the API's local
 * time, in a zone the spec does not name: `apiTime` reads it as UTC, and sentWindow.ts says
 * which moments it may stand for.
 */
export function hasOffset(value: unknown): boolean {
	return typeof value === 'string' && ISO_DATE_TIME.exec(value.trim())?.[8] !== undefined;
}

/**
 * A time the API (or Send's output) wrote, in ms since the epoch: an ISO 8601 date or date-time,
 * UTC when it carries no offset. NaN for anything else, including a date that does not exist.
 */
export function apiTime(value: unknown): number {
	if (typeof value !== 'string') return NaN;
	const parts = ISO_DATE_TIME.exec(value.trim());
	if (!parts) return NaN;
	const numbers = parts.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
	if (!isRealTime(numbers as number[])) return NaN;
	const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = ''] = parts;
	const offset = (parts[8] ?? 'Z').toUpperCase();
	const zone =
		offset === 'Z' ? 'Z' : `${offset.slice(0, 3)}:${offset.slice(3).replace(':', '') || '00'}`;
	return Date.parse(
		`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${zone}`,
	);
}
