// The full reading: when it is due, and what it sets right in the picture's counts.
import { LISTS, type Counts, type Picture } from '../state/picture';
import type { Watch } from '../watch';
import { OUT_OF_TIME, withinBudget, type Lists } from './lists';
import type { Search } from './search';

/**
 * Whether this poll is a full reading: none was stored since its Full Reading Every slot began
 * (slots counted from midnight UTC; 0: every poll). Whenever the poll comes, after a pause, late
 * in its minute or after a poll that ran long, the first poll of a slot reads in full. n8n's task
 * scheduler does not store a poll that emits nothing: the next poll goes on from what this n8n
 * process kept of it (state/processMemory.ts), so a slot's full reading runs once per process.
 */
export function isFullReadingDue(watch: Watch, now: number, lastAt: number | undefined): boolean {
	if (watch.fullReadingMs === 0 || lastAt === undefined || lastAt > now) return true;
	return lastAt < now - (now % watch.fullReadingMs);
}

/**
 * After a full reading (the in-flight lists and FAILED read to their end, the list of every
 * status down to the high-water mark): the counts of DELIVERED and of every status become what the
 * API says. What only those counts could show and no reading found (a message deleted, one listed
 * late at or below the baseline's mark) is set right here, once; the in-flight and FAILED lists,
 * read whole, must already agree, or nothing is set.
 */
export function reanchor(search: Search): boolean {
	const { findings, observed, topOffset } = search;
	const { picture } = findings;
	const residuals = findings.residuals(observed);
	// The counts must add up (OTHER's is what ALL's leaves over): an empty answer to one of them
	// (a lagging replica's) sets nothing.
	if (residuals.PENDING || residuals.SENT || residuals.FAILED || residuals.OTHER) return false;
	picture.counts.DELIVERED = observed.DELIVERED;
	picture.counts.ALL = observed.ALL;
	if (topOffset !== undefined) picture.marks.belowTop = observed.ALL - topOffset;
	return true;
}

/**
 * For a picture stored without counts (by the trigger before it kept them), after a full
 * reading: every count becomes what the API says, once the lists read whole agree with them.
 */
export function takeCounts(search: Search): boolean {
	const { findings, observed } = search;
	const { picture } = findings;
	const agree = (['PENDING', 'SENT', 'FAILED'] as const).every(
		(list) => picture.knownIn(list) === observed[list],
	);
	if (!agree || search.topOffset === undefined) return false;
	picture.counts = { ...observed };
	picture.marks.belowTop = observed.ALL - search.topOffset;
	return true;
}

/**
 * On a new day, the lists are asked from the new window's start: the messages sent before the
 * window are forgotten, and the counts become those of the lists so asked (the records above the
 * high-water mark stay as many). Left as it was when the budget ends first: the next poll tries
 * again.
 */
export async function newWindow(picture: Picture, lists: Lists, startDay: string): Promise<void> {
	const above = picture.counts.ALL - picture.marks.belowTop;
	const counts = {} as Counts;
	const read = await withinBudget(async () => {
		for (const list of LISTS) counts[list] = await lists.count(list, picture.counts[list]);
	});
	if (read === OUT_OF_TIME) return;
	for (const [id, message] of [...picture.tracked]) {
		if (message.day < startDay) picture.setMessage(id, undefined);
	}
	for (const [id, day] of [...picture.listed]) if (day < startDay) picture.listed.delete(id);
	picture.counts = counts;
	picture.marks.belowTop = Math.max(0, counts.ALL - above);
	picture.countsFrom = lists.startDate;
}
