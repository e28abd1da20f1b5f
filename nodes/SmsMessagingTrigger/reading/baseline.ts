// The baseline poll: the picture taken of what exists when the trigger starts watching.
import { Picture, TRACKED_LISTS, type Counts, type Status } from '../state/picture';
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
	const empty = { PENDING: 0, SENT: 0, DELIVERED: 0, FAILED: 0, ALL: 0 };
	const marks = { top: 0, since: 0, listedUpTo: 0, belowTop: 0, newest: 0 };
	const reading = new Picture(watched, marks, { ...empty });
	const findings = new Findings(reading, { ...window, emitting: false });
	const observed = await readFirstPages(lists, findings);
	const search: Search = { lists, findings, observed };
	for (const list of TRACKED_LISTS) {
		const first = await lists.first(list);
		const { cursor } = await readDown(search, list, after(first, true, true), () => true, true);
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
	const above = all.filter(({ id }) => id > top).length;
	return markedAt(reading, top, observed, {
		belowTop: observed.ALL - above,
		newest: all[0]?.id ?? 0,
		// Whatever zone the API writes its times in, read in UTC (API Time Zone left at its default):
		// a message sent after the baseline never reads as sent before this.
		sinceAt: window.now - LISTING_LAG_MS - WEST_MS,
	});
}

/**
 * The picture with its mark at `top`: the messages up to it that are DELIVERED by default need no
 * entry; the others, and all above it, stay tracked.
 */
function markedAt(
	reading: Picture,
	top: number,
	counts: Counts,
	{ belowTop, newest, sinceAt }: { belowTop: number; newest: number; sinceAt: number },
): Picture {
	const marks = { top, since: top, sinceAt, listedUpTo: top, belowTop, newest };
	const picture = new Picture(reading.watched, marks, { ...counts });
	for (const [id, message] of reading.tracked) {
		if (id > top || !picture.needsNoEntry(id, message)) picture.setMessage(id, message);
	}
	return picture;
}
