// The first page of every list, asked before anything else: each list's count and newest records.
import { LISTS, statusOf, type Counts, type ListName } from '../state/picture';
import type { Findings } from './findings';
import type { Lists, Page } from './lists';

/**
 * Asks the first page of each list (PENDING, SENT, FAILED, DELIVERED, every status) and each
 * list's count, and takes the pages into the picture. A first page that answers empty while the
 * picture expects records in it, or the list of every status shows one in its status, is asked
 * once more: an empty 200 may be a lagging replica's. Gives the counts.
 */
export async function readFirstPages(lists: Lists, findings: Findings): Promise<Counts> {
	const { picture } = findings;
	const pages = new Map<ListName, Page>();
	for (const list of LISTS) pages.set(list, await lists.first(list));
	const all = pages.get('ALL')!;
	for (const list of LISTS) {
		const shown = all.records.some((record) => statusOf(record) === list);
		const expected = list === 'ALL' ? picture.counts.ALL > 0 : picture.counts[list] > 0 || shown;
		if (pages.get(list)!.served > 0 || !expected) continue;
		lists.askAgain(list);
		pages.set(list, await lists.first(list));
	}
	for (const list of LISTS) findings.take(pages.get(list)!);
	const observed = {} as Counts;
	for (const list of LISTS) observed[list] = await lists.count(list, picture.counts[list]);
	return observed;
}
