// What the trigger watches: its parameters, checked, as the list query and window of a poll.
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { startDateFor, utcDay, windowStartMs } from '../shared/lists/sentWindow';
import { SMS_LIST_FILTERS, SMS_STATUSES } from '../shared/lists/smsFilters';
import { integerInRange, isSet, oneOrMoreOf } from '../shared/input/validation';

/**
 * The order a message goes through. Watch Statuses are kept in this order, so that the scope does
 * not change with the order they were picked in.
 */
const LIFECYCLE = ['PENDING', 'SENT', 'DELIVERED', 'FAILED'];

/** What the trigger watches, checked: the list query every status shares, and its scope. */
export interface Watch {
	statuses: string[];
	query: IDataObject;
	/**
	 * Watch Statuses, the filters and Lookback Days: when they change, what the trigger knows no
	 * longer holds, and the next poll is a baseline poll: it takes in what exists and emits nothing.
	 */
	scope: string;
	/** The first UTC day of the window: messages sent before it are not watched. */
	startDay: string;
	/** 00:00 UTC of that day (ms). */
	startMs: number;
	/** How long a full reading of the window lasts before the next one is due (0: every poll). */
	fullReadingMs: number;
	/** The shortest time between two polls that Poll Times sets. */
	pollIntervalMs: number;
}

/** Checks every parameter before any request; a bad one stops the poll naming its field. */
export function readWatch(this: IPollFunctions): Watch {
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
	const watched = [...new Set(statuses)];
	const scope = JSON.stringify({ statuses: watched, ...query, lookbackDays });
	// The one window rule (nodes/shared/lists/sentWindow.ts): asked from a day earlier, kept by sentAt.
	const startMs = windowStartMs(lookbackDays);
	const startDay = utcDay(startMs);
	query['start-date'] = startDateFor(startMs);
	return {
		statuses: watched,
		query,
		scope,
		startDay,
		startMs,
		fullReadingMs: fullReadingMinutes * MINUTE_MS,
		pollIntervalMs: pollInterval(this.getNodeParameter('pollTimes', {}) as IDataObject),
	};
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The shortest time between two polls that n8n's Poll Times (`pollTimes.item`) sets. */
function pollInterval(pollTimes: IDataObject): number {
	const items = (pollTimes.item as IDataObject[] | undefined) ?? [];
	const each = items.map((item) => {
		const every = Math.max(1, Number(item.value) || 1);
		switch (item.mode) {
			case 'everyHour':
				return HOUR_MS;
			case 'everyX':
				return every * (item.unit === 'hours' ? HOUR_MS : MINUTE_MS);
			case 'everyDay':
				return DAY_MS;
			case 'everyWeek':
				return 7 * DAY_MS;
			case 'everyMonth':
				return 28 * DAY_MS;
			case 'custom':
				return cronInterval(String(item.cronExpression ?? ''));
			default:
				return MINUTE_MS;
		}
	});
	return each.length ? Math.min(...each) : MINUTE_MS;
}

/**
 * The shortest time between two runs of a cron expression (5 fields, or 6 with seconds first), by
 * its minute field, else its hour field: `*` every unit, `*\/k` every k, a list or range the
 * smallest gap between its values (around the hour or the day too), a single value the next field.
 */
function cronInterval(expression: string): number {
	const fields = expression.trim().split(/\s+/);
	const [minute = '*', hour = '*'] = fields.length === 6 ? fields.slice(1, 3) : fields.slice(0, 2);
	return gap(minute, 60, MINUTE_MS) ?? gap(hour, 24, HOUR_MS) ?? DAY_MS;
}

function gap(field: string, span: number, unit: number): number | undefined {
	if (field === '*') return unit;
	const step = /^\*\/(\d+)$/.exec(field);
	if (step) return Math.max(1, Number(step[1])) * unit;
	const values = new Set<number>();
	for (const part of field.split(',')) {
		const range = /^(\d+)(?:-(\d+))?(?:\/(\d+))?$/.exec(part);
		if (!range) return unit;
		const [from, to = range[1], by = '1'] = range.slice(1).map((value) => value ?? undefined);
		for (let value = Number(from); value <= Number(to); value += Math.max(1, Number(by))) {
			values.add(value);
		}
	}
	if (values.size < 2) return undefined;
	const sorted = [...values].sort((a, b) => a - b);
	const gaps = sorted.map((value, i) =>
		i ? value - sorted[i - 1] : value + span - sorted.at(-1)!,
	);
	return Math.min(...gaps) * unit;
}
