// The baseline poll: the picture taken of what exists when the trigger starts watching.
import { Picture, TRACKED_LISTS, type Status } from '../state/picture';
import { readFirstPages } from './firstPages';
import { Findings, type PollWindow } from './findings';
import type { Lists } from './lists';
import { WEST_MS } from '../../shared/lists/sentWindow';
import { LISTING_LAG_MS } from './raiseMark';
import { after, readDown, type Search } from './search';

/**
 * Takes the picture of the lists as they are, recording every message in its status and emitting
 * nothing: the in-flight lists and FAILED read whole, every other message up to the high-water
 * mark DELIVERED (the counts must add up to the list of every status: a list that answered short,
 * as a lagging replica may, leaves them apart). The mark is the newest message on the first page
 * of every status sent a listing lag ago (or its oldest). Undefined when the picture could not be
 * taken whole: the next poll takes it again.
 */
export async function takeBaseline(
	lists: Lists,
	watched: Set<Status>,
	window: PollWindow,
): Promise<Picture | undefined> {
	const zero = { top: 0, since: 0, listedUpTo: 0, belowTop: 0, newest: 0 };
	const none = { PENDING: 0, SENT: 0, DELIVERED: 0, FAILED: 0, ALL: 0 };
	const reading = new Picture(watched, zero, none);
	const findings = new Findings(reading, { ...window, emitting: false });
	const observed = await readFirstPages(lists, findings);
	const search: Search = { lists, findings, observed };
	for (const list of TRACKED_LISTS) {
		const first = await lists.first(list);
		const cursor = await readDown(search, list, after(first, true, true), () => true, true);
		if (!cursor.met || reading.knownIn(list) !== observed[list]) return undefined;
	}
	const other = [...reading.tracked.values()].some((message) => message.status === 'OTHER');
	const sum = observed.PENDING + observed.SENT + observed.DELIVERED + observed.FAILED;
	if (sum > observed.ALL || (sum < observed.ALL && !other)) return undefined;
	const all = (await lists.first('ALL')).records.map((record) => ({
		id: Number(record.id),
		sentAt: findings.sentAt(record),
	}));
	const lagged = all.find(({ sentAt }) => sentAt <= window.now - LISTING_LAG_MS);
	const top = lagged?.id ?? all.at(-1)?.id ?? 0;
	const marks = {
		top,
		since: top,
		sinceAt: window.now - LISTING_LAG_MS - WEST_MS,
		listedUpTo: top,
		belowTop: observed.ALL - all.filter(({ id }) => id > top).length,
		newest: all[0]?.id ?? 0,
	};
	// The messages up to the mark that are DELIVERED by default need no entry; the others stay.
	const picture = new Picture(watched, marks, { ...observed });
	for (const [id, message] of reading.tracked) {
		if (id > top || !picture.needsNoEntry(id, message)) picture.setMessage(id, message);
	}
	return picture;
}
