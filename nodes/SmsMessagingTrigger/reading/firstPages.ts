// The first page of every list, asked before anything else: each list's count and newest records.
import { LISTS, statusOf, type Counts, type ListName } from '../state/picture';
import type { Findings } from './findings';
import type { Lists, Page } from './lists';

/**
 * Asks the first page of each list (PENDING, SENT, FAILED, DELIVERED, every status) and each
 * list's count, and takes the pages into the picture. A first page that answers empty while the
 * picture expects records in it, or the list of every status shows one in its status, is asked
 * once more: an empty 200 may be a lagging replica's. One that answers empty again while the
 * counts of the other lists do not add up to every status's without the records it should hold
 * is not believed: the poll goes on as if that list had not changed, and the next poll asks it
 * again. Gives the counts.
 */
export async function readFirstPages(lists: Lists, findings: Findings): Promise<Counts> {
	const { picture } = findings;
	const pages = new Map<ListName, Page>();
	for (const list of LISTS) pages.set(list, await lists.first(list));
	const all = pages.get('ALL')!;
	const askedAgain: ListName[] = [];
	for (const list of LISTS) {
		const shown = all.records.some((record) => statusOf(record) === list);
		const expected = list === 'ALL' ? picture.counts.ALL > 0 : picture.counts[list] > 0 || shown;
		if (pages.get(list)!.served > 0 || !expected) continue;
		lists.askAgain(list);
		pages.set(list, await lists.first(list));
		if (pages.get(list)!.served === 0) askedAgain.push(list);
	}
	const observed = {} as Counts;
	for (const list of LISTS) observed[list] = await lists.count(list, picture.counts[list]);
	const doubted = askedAgain.filter((list) => list !== 'ALL' && !addsUp(observed, picture.counts));
	for (const list of doubted) observed[list] = picture.counts[list];
	for (const list of LISTS) if (!doubted.includes(list)) findings.take(pages.get(list)!);
	return observed;
}

/** The records of every status that no status list holds (statuses the API may add). */
const other = (counts: Counts) =>
	counts.ALL - counts.PENDING - counts.SENT - counts.DELIVERED - counts.FAILED;

/**
 * Whether the counts of the status lists add up to the count of every status, leaving over no
 * more than the picture's own records in other statuses (`expected`'s), when a list that answered
 * empty is taken at its word.
 */
function addsUp(observed: Counts, expected: Counts): boolean {
	return other(observed) <= Math.max(0, other(expected));
}
