// Options → Limit Wait Time: read, checked, and turned into when the wait ends.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fieldsOf, isSet, nothingSentError, oneOf, requiredText } from '../shared/input/validation';

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** n8n takes a wait until 3000-01-01 (its WAIT_INDEFINITELY) or later as no limit. */
const LATEST_END = Date.UTC(3000, 0, 1);

/** Options → Limit Wait Time, checked: a time after the SMS went out, or a moment; none: for ever. */
type TimeLimit = { afterMs: number } | { at: number } | undefined;

/**
 * Options → Limit Wait Time, read and checked before anything is sent, so that a wrong limit never
 * leaves an SMS without a waiting execution behind its link.
 */
export function readTimeLimit(this: IExecuteFunctions, now = Date.now()): TimeLimit {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const limit = (options.limitWaitTime as IDataObject | undefined)?.values as
		| IDataObject
		| undefined;
	if (!limit) return undefined;
	const ref = fieldsOf(this.getNode(), 0, 'options.limitWaitTime.values');
	const type = oneOf(ref('limitType', 'Limit Type'), limit.limitType ?? 'afterTimeInterval', [
		'afterTimeInterval',
		'atSpecifiedTime',
	]);
	if (type === 'afterTimeInterval') {
		const unit = oneOf(
			ref('resumeUnit', 'Unit'),
			limit.resumeUnit ?? 'hours',
			Object.keys(UNIT_MS),
		) as keyof typeof UNIT_MS;
		const amount = Number(limit.resumeAmount ?? 1);
		if (!isSet(limit.resumeAmount) || !Number.isFinite(amount) || amount <= 0) {
			throw nothingSentError(
				this.getNode(),
				`Limit Wait Time: Amount must be a number above 0, not ${JSON.stringify(limit.resumeAmount)}`,
				'Set how long to wait for an answer, or remove Limit Wait Time to wait until someone answers.',
			);
		}
		// A day's margin for the send, which the limit counts from.
		if (now + amount * UNIT_MS[unit] + UNIT_MS.days >= LATEST_END) {
			throw nothingSentError(
				this.getNode(),
				`Limit Wait Time: Amount ${amount} ${unit} ends after the year 2999`,
				'Set a shorter time, or remove Limit Wait Time to wait until someone answers.',
			);
		}
		return { afterMs: amount * UNIT_MS[unit] };
	}
	const text = requiredText(ref('maxDateAndTime', 'Max Date and Time'), limit.maxDateAndTime);
	const at = new Date(text);
	if (Number.isNaN(at.getTime())) {
		throw nothingSentError(
			this.getNode(),
			`Limit Wait Time: Max Date and Time is not a date: ${JSON.stringify(text)}`,
			'Use a date and time such as 2026-12-31T18:00:00.',
		);
	}
	if (at.getTime() >= LATEST_END) {
		throw nothingSentError(
			this.getNode(),
			`Limit Wait Time: Max Date and Time ${at.toISOString()} is after the year 2999`,
			'Set an earlier time, or remove Limit Wait Time to wait until someone answers.',
		);
	}
	if (at.getTime() <= now) {
		throw nothingSentError(
			this.getNode(),
			`Limit Wait Time: Max Date and Time ${at.toISOString()} has passed`,
			'Set a time in the future, or remove Limit Wait Time to wait until someone answers.',
		);
	}
	return { at: at.getTime() };
}

/**
 * When the wait ends (ms since the epoch; undefined: never): the set time of "At Specified Time",
 * or a time interval counted once the SMS went out, so that a send that queued and retried does not
 * eat into the recipients' time.
 */
export function limitEnd(limit: TimeLimit, sentAt = Date.now()): number | undefined {
	if (limit === undefined) return undefined;
	return 'at' in limit ? limit.at : sentAt + limit.afterMs;
}
