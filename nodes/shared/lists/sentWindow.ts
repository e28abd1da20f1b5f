// The sent-date window of the SMS list, counted in UTC days as the API filters by day
// (`start-date`, spec section 4.4), and how a lookup reads the list's times, in one place.
import type { IDataObject } from 'n8n-workflow';

import { apiDay, apiTime, hasOffset } from '../input/apiTime';

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

/**
 * The UTC day a record of the list was sent on, its `sentAt` read in `zone` when written without an
 * offset (the credential's API Time Zone); `fallback` when it cannot be read.
 */
export function sentDayOf(record: IDataObject, fallback: string, zone: string): string {
	const at = apiTime(record.sentAt, zone);
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
 * end of that day, or from its start, of the day in the zone it dates messages in (`zone`, the
 * credential's API Time Zone). So it is the day before `since`'s day there, and the records are
 * then kept by their own `sentAt`: at most one day more of the list is read.
 */
export function startDateFor(since: number, zone: string): string {
	return utcDay(Date.parse(apiDay(since, zone)) - DAY_MS);
}

const HOUR_MS = 3_600_000;
/** The zones a service may write its local times in, without an offset: UTC−12:00 to UTC+14:00. */
export const WEST_MS = 12 * HOUR_MS;
const EAST_MS = 14 * HOUR_MS;
/** Zones' offsets are whole quarter hours. */
const ZONE_STEP_MS = 900_000;

/**
 * The `start-date` that asks the SMS list for every message sent at `since` or later in any
 * zone the API may write its days in (`startDateFor` of 12 hours earlier: a service in UTC−12:00
 * dates a message sent at `since` up to 12 hours before it). The reading still stops at records
 * older than `since`, so this costs no request.
 */
export function startDateInAnyZone(since: number): string {
	return startDateFor(since - WEST_MS, 'UTC');
}

/** What to do where the SMS list's times contradict the credential's API Time Zone. */
export const SET_API_TIME_ZONE =
	'Set API Time Zone in the credential to the zone the API writes its times in (an IANA name such as Africa/Nairobi, or an offset such as UTC+03:00).';

/** Why a record of the SMS list contradicts the credential's API Time Zone (`zone`). */
export const futureText = (record: IDataObject, zone: string) =>
	`The SMS list holds a message sent at ${String(record.sentAt)}, which, read in the credential's API Time Zone (${zone}), lies after now: the API writes its times without an offset in another zone.`;

/**
 * What a matching record older than a message says where the API writes no offset: it is older
 * in the credential's API Time Zone (`zone`), or the API writes its times in another zone.
 */
export const olderText = (record: IDataObject, zone: string) =>
	hasOffset(record.sentAt)
		? ''
		: ` The SMS list holds one sent at ${String(record.sentAt)}, which, read in the credential's API Time Zone (${zone}), is older; if the API writes its times in another zone, ${SET_API_TIME_ZONE.charAt(0).toLowerCase()}${SET_API_TIME_ZONE.slice(1)}`;

/** Zones' offsets a person would name: whole and half hours. */
const HALF_HOUR_MS = 1_800_000;

/**
 * The zone a record without an offset seems written in, where read as UTC it lies a whole or half
 * number of hours (within CLOCK_MARGIN_MS, from UTC-12:00 to UTC+14:00) from when its message went
 * out (`sentAt`, ms): "UTC-05:00"; undefined otherwise. A guess for an error to name: nothing is
 * taken for a message by it.
 */
export function seemingZone(record: IDataObject, sentAt: number): string | undefined {
	if (hasOffset(record.sentAt)) return undefined;
	const shift = apiTime(record.sentAt, 'UTC') - sentAt;
	const step = Math.round(shift / HALF_HOUR_MS) * HALF_HOUR_MS;
	if (!(Math.abs(shift - step) <= CLOCK_MARGIN_MS) || step < -WEST_MS || step > EAST_MS) {
		return undefined;
	}
	const minutes = Math.abs(step) / 60_000;
	const two = (n: number) => String(n).padStart(2, '0');
	return `UTC${step < 0 ? '-' : '+'}${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`;
}

/**
 * What a matching record that seems written in another zone (`seems`) than the credential's
 * (`zone`) says: read there, it is the message's own time; read in `zone`, another, older one.
 */
export const seemsText = (record: IDataObject, seems: string, zone: string) =>
	` The SMS list holds a message with this number and text sent at ${String(record.sentAt)}: read in ${seems}, that is when this one went out; read in the credential's API Time Zone (${zone}), it is an older message, and nothing is taken for this one on that guess. If the API writes its times in ${seems}, set API Time Zone in the credential to it.`;

/**
 * How one lookup reads the SMS list's times: one with an offset as written; one without in the
 * API's zone, learned from records of messages n8n saw the API accept (each such time less the
 * moment n8n saw is a whole quarter hour within CLOCK_MARGIN_MS, from UTC−12:00 to UTC+14:00, and
 * all agree), else the credential's API Time Zone.
 */
export class ListTimes {
	private offset: number | undefined;
	private disagree = false;

	constructor(private readonly zone: string) {}

	/** A time the API wrote (`written`) for a message n8n saw it accept at `at`. */
	learn(written: unknown, at: number): void {
		const local = apiTime(written);
		if (hasOffset(written) || Number.isNaN(local) || Number.isNaN(at)) return;
		const step = Math.round((local - at) / ZONE_STEP_MS) * ZONE_STEP_MS;
		const fits =
			Math.abs(local - at - step) <= CLOCK_MARGIN_MS && step >= -WEST_MS && step <= EAST_MS;
		if (!fits || (this.offset !== undefined && this.offset !== step)) this.disagree = true;
		this.offset = step;
	}

	/** Whether the API's records of messages n8n saw it accept showed its zone. */
	get learned(): boolean {
		return this.offset !== undefined && !this.disagree;
	}

	/** A time the API wrote, in ms (NaN when it cannot be read). */
	of(written: unknown): number {
		if (this.learned && !hasOffset(written)) return apiTime(written) - this.offset!;
		return apiTime(written, this.zone);
	}
}
