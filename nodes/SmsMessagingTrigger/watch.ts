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
	/** How long a full reading of the window lasts before the next one is due (0: every poll). */
	fullReadingMs: number;
}

/**
 * Checks every parameter before any request; a bad one stops the poll naming its field. `zone`: the
 * credential's API Time Zone, the zone the API dates its messages in (`start-date`).
 */
export function readWatch(this: IPollFunctions, zone: string): Watch {
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
	query['start-date'] = startDateFor(startMs, zone);
	return {
		statuses: watched,
		query,
		scope,
		startDay,
		fullReadingMs: fullReadingMinutes * MINUTE_MS,
	};
}

const MINUTE_MS = 60_000;
