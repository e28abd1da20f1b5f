// The API's times, read in one place. The spec says "ISO 8601 date-time" (only the wrapper's
// timestamp is said to be UTC), and a Java service writes a LocalDateTime without an offset
// ("2026-11-27T09:30:00.123"): its server's local time. JavaScript would read such a time in
// n8n's own zone; here it is read in the zone the credential's API Time Zone names (UTC unless
// set), on any host.
import { NodeOperationError, type INode } from 'n8n-workflow';

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
 * time, in the zone the credential's API Time Zone names.
 */
export function hasOffset(value: unknown): boolean {
	return typeof value === 'string' && ISO_DATE_TIME.exec(value.trim())?.[8] !== undefined;
}

const MINUTE_MS = 60_000;
/** A fixed offset: UTC+03:00, GMT-5, +05:45. */
const FIXED_OFFSET = /^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i;

/** What a zone name stands for: a fixed offset (ms east of UTC), or an IANA zone's formatter. */
const zones = new Map<string, number | Intl.DateTimeFormat>();

/** The zone `name` names, or undefined when it names none. */
function zoneOf(name: string): number | Intl.DateTimeFormat | undefined {
	const known = zones.get(name);
	if (known !== undefined) return known;
	let zone: number | Intl.DateTimeFormat | undefined;
	const fixed = FIXED_OFFSET.exec(name);
	if (/^(UTC|GMT|Z)$/i.test(name)) zone = 0;
	else if (fixed) {
		const minutes = Number(fixed[2]) * 60 + Number(fixed[3] ?? 0);
		if (minutes <= 14 * 60 && Number(fixed[3] ?? 0) < 60) {
			zone = (fixed[1] === '-' ? -minutes : minutes) * MINUTE_MS;
		}
	} else {
		try {
			zone = new Intl.DateTimeFormat('en-US', {
				timeZone: name,
				hourCycle: 'h23',
				...{ year: 'numeric', month: 'numeric', day: 'numeric' },
				...{ hour: 'numeric', minute: 'numeric', second: 'numeric' },
			} as const);
		} catch {
			zone = undefined;
		}
	}
	if (zone !== undefined) zones.set(name, zone);
	return zone;
}

/** Offsets of IANA zones by quarter hour: no zone changes its offset within one. */
const offsets = new WeakMap<Intl.DateTimeFormat, Map<number, number>>();
const QUARTER_HOUR_MS = 15 * MINUTE_MS;

/** The zone's offset from UTC (ms east) at the moment `at` (ms since the epoch, UTC). */
function offsetAt(zone: number | Intl.DateTimeFormat, at: number): number {
	if (typeof zone === 'number') return zone;
	const quarter = Math.floor(at / QUARTER_HOUR_MS);
	const known = offsets.get(zone) ?? new Map<number, number>();
	offsets.set(zone, known);
	const offset = known.get(quarter);
	if (offset !== undefined) return offset;
	const part: Record<string, number> = {};
	for (const { type, value } of zone.formatToParts(quarter * QUARTER_HOUR_MS)) {
		part[type] = Number(value);
	}
	const local = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second);
	if (known.size > 10_000) known.clear();
	known.set(quarter, local - quarter * QUARTER_HOUR_MS);
	return local - quarter * QUARTER_HOUR_MS;
}

/**
 * A time the API (or Send's output) wrote, in ms since the epoch: an ISO 8601 date or date-time,
 * read in `zone` (an IANA name such as Africa/Nairobi, UTC, or a fixed offset such as
 * UTC+03:00; UTC when left out) when it carries no offset. NaN for anything else, including a
 * date that does not exist or a zone that names none. The trigger reads Sent At with it too.
 */
export function apiTime(value: unknown, zone = 'UTC'): number {
	if (typeof value !== 'string') return NaN;
	if (last?.value === value && last.zone === zone) return last.at;
	const at = readApiTime(value, zone);
	last = { value, zone, at };
	return at;
}

/**
 * The last time `apiTime` read: the records of one bulk send share one Sent At, and a lookup reads
 * each record's time more than once.
 */
let last: { value: string; zone: string; at: number } | undefined;

function readApiTime(value: string, zone: string): number {
	const parts = ISO_DATE_TIME.exec(value.trim());
	if (!parts) return NaN;
	const numbers = parts.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
	if (!isRealTime(numbers as number[])) return NaN;
	const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = ''] = parts;
	const offset = (parts[8] ?? 'Z').toUpperCase();
	const written =
		offset === 'Z' ? 'Z' : `${offset.slice(0, 3)}:${offset.slice(3).replace(':', '') || '00'}`;
	const at = Date.parse(
		`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction.slice(0, 4)}${written}`,
	);
	if (parts[8] !== undefined) return at;
	const local = zoneOf(zone);
	if (local === undefined) return NaN;
	// The local time less the zone's offset then (found again at the moment it gives, for the
	// hour around a change of summer time).
	return at - offsetAt(local, at - offsetAt(local, at));
}

/**
 * The day (YYYY-MM-DD) a moment (ms since the epoch) falls on in `zone`, as the API dates it where
 * it writes its times in that zone; in UTC for a zone that names none (apiZoneOf refuses those).
 */
export function apiDay(at: number, zone: string): string {
	const local = zoneOf(zone);
	return new Date(at + (local === undefined ? 0 : offsetAt(local, at))).toISOString().slice(0, 10);
}

/**
 * The credential's API Time Zone (`apiTimeZone`): the zone the API writes times without an offset
 * in, UTC when left empty; an error naming the field when it names no zone (before any request).
 */
export function apiZoneOf(
	node: INode,
	credentials: { apiTimeZone?: unknown },
	itemIndex?: number,
): string {
	const { apiTimeZone } = credentials;
	const name = typeof apiTimeZone === 'string' ? apiTimeZone.trim() : '';
	if (name === '') return 'UTC';
	if (zoneOf(name) !== undefined) return name;
	throw new NodeOperationError(
		node,
		`The credential's API Time Zone is not a time zone: ${JSON.stringify(apiTimeZone)}`,
		{
			itemIndex,
			description:
				'Give the zone the API writes its times in as an IANA name (Africa/Nairobi, America/New_York), UTC, or an offset such as UTC+03:00, in the SMS Messaging API credential. Nothing was read.',
		},
	);
}
