// The list of every status: what its count is made of, and the messages the API listed late.
import type { IDataObject } from 'n8n-workflow';

import { readList, sentAtOf, type ListReader } from './listReading';

/**
 * How long after it was sent a message is usually listed (commits that land out of id order, a
 * lagging replica, the API's clock a little behind n8n's): the high-water mark goes no higher than
 * the newest message sent this long before a poll. One listed later, below the mark, is found by
 * the count of the list of every status (docs/trigger.md).
 */
export const LISTING_LAG_MS = 10 * 60_000;

/** The highest id of `records` sent at or before `by` (ms): 0 when there is none. */
export function highestSentBy(records: IDataObject[], by: number): number {
	let highest = 0;
	for (const record of records) {
		if (sentAtOf(record) <= by) highest = Math.max(highest, Number(record.id));
	}
	return highest;
}

/** The highest id of `records`, or `floor` when none is higher. */
export function highestId(records: IDataObject[], floor: number): number {
	let highest = floor;
	for (const record of records) highest = Math.max(highest, Number(record.id));
	return highest;
}

/**
 * Whether the list of every status, read from its top, accounts for its count (`listed`) once its
 * pages reach the newest message a poll looked at before (`newestSeen`): the records up to the
 * high-water mark at the last reading that reached it (`listedToMark`), the messages followed
 * above the mark (`followedAboveMark`), and the new ones (above `newestSeen`, up to the newest
 * when the poll began). Then no message was listed late above the mark, and the reading ends
 * there; otherwise it goes on down to the mark.
 */
export function accountedToNewest(
	listed: number | undefined,
	listedToMark: number | undefined,
	followedAboveMark: number,
	newestSeen: number,
	newestAtStart: number,
): ((page: IDataObject[]) => boolean) | undefined {
	if (listed === undefined || listedToMark === undefined) return undefined;
	const newIds = new Set<number>();
	let lowest = Infinity;
	return (page) => {
		for (const record of page) {
			const id = Number(record.id);
			lowest = Math.min(lowest, id);
			if (id > newestSeen && id <= newestAtStart) newIds.add(id);
		}
		return lowest <= newestSeen && listedToMark + followedAboveMark + newIds.size === listed;
	};
}

/**
 * Reads the list of every status down to `count` records that `isLate` tells (listed late below
 * the high-water mark), or to `downTo`, and gives them with how many are left to look for: none
 * when the reading got down to `downTo` (one listed late below it was sent before the baseline
 * poll, and is taken as one that poll saw: it is not emitted).
 */
export async function readLate(
	reader: ListReader,
	{
		count,
		downTo,
		windowStart,
		isLate,
	}: { count: number; downTo: number; windowStart: number; isLate: (id: number) => boolean },
): Promise<{ late: IDataObject[]; left: number }> {
	const seen = new Set<number>();
	const reading = await readList(reader({}), {
		downTo,
		windowStart,
		enough: (page) => {
			for (const record of page) if (isLate(Number(record.id))) seen.add(Number(record.id));
			return seen.size >= count;
		},
	});
	const late = reading.records.filter((record) => isLate(Number(record.id)));
	return { late, left: reading.complete ? 0 : Math.max(0, count - late.length) };
}
