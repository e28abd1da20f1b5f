// What a poll learns from each page it reads: the changes, and the tracked messages gone from a list.
import type { IDataObject } from 'n8n-workflow';

import { apiTime } from '../../shared/input/apiTime';
import { sentDayOf } from '../../shared/lists/sentWindow';
import {
	LISTS,
	statusOf,
	TRACKED_LISTS,
	type Change,
	type Counts,
	type ListName,
	type Picture,
	type Status,
} from '../state/picture';
import type { Page } from './lists';

/** When a poll runs, and the days and zone it reads Sent At by. */
export interface PollWindow {
	/** The UTC day of `now`. */
	today: string;
	/** The first UTC day of the window: messages sent before it are never emitted. */
	startDay: string;
	now: number;
	/** The credential's API Time Zone: a Sent At without an offset is read in it. */
	zone: string;
}

/**
 * The changes a poll found, and the tracked messages a page of their list should have shown and
 * did not (`gone`): each is looked up before the poll ends (search.ts).
 */
export class Findings {
	readonly changes: Change[] = [];
	readonly gone = new Set<number>();
	/** Each message read this poll: its record as read last. */
	readonly seen = new Map<number, IDataObject>();
	/** The records to emit, in the order they were read. */
	readonly toEmit: IDataObject[] = [];

	constructor(
		readonly picture: Picture,
		private readonly window: PollWindow & {
			/** Whether a message newly in a watched status is emitted (false: the baseline poll). */
			emitting: boolean;
		},
	) {}

	/** When a record was sent (ms; NaN when its Sent At cannot be read). */
	sentAt(record: IDataObject): number {
		return apiTime(record.sentAt, this.window.zone);
	}

	/**
	 * Takes a page into the picture: each record in the page's status (ALL: its own), and, for a
	 * list the picture knows one by one, each tracked member whose id the page covers but did not
	 * show. A page covers the ids from its lowest record to its highest, the first page everything
	 * above too, and one that ends the list everything below: where two pages leave a gap, the ids
	 * in it are not judged. Gives how many changes the page brought.
	 */
	take(page: Page): number {
		let changes = 0;
		for (const record of page.records) {
			const status = page.list === 'ALL' ? statusOf(record) : page.list;
			const id = Number(record.id);
			this.seen.set(id, record);
			this.gone.delete(id);
			const change = this.picture.see(record, status, this.window);
			if (change) {
				this.changes.push(change);
				changes++;
			}
			this.decide(id, status, record, change !== undefined && change.from === undefined);
			this.picture.untrackIfDefault(id);
		}
		if ((TRACKED_LISTS as ListName[]).includes(page.list)) this.judgeGone(page);
		return changes;
	}

	/**
	 * What a poll emits: a message seen in a watched status it is not recorded in, once, from the
	 * window; it is recorded in it from then on (the baseline poll only records). A message new to
	 * the picture (`fresh`) sent by the baseline's `sinceAt` existed at the baseline, whatever its
	 * id: recorded, not emitted.
	 */
	private decide(id: number, status: Status, record: IDataObject, fresh: boolean): void {
		if (!this.picture.watched.has(status) || this.picture.recorded(id).has(status)) return;
		this.picture.record(id, status);
		const { emitting, startDay, today, zone } = this.window;
		const { sinceAt } = this.picture.marks;
		if (fresh && sinceAt !== undefined && this.sentAt(record) <= sinceAt) return;
		if (emitting && sentDayOf(record, today, zone) >= startDay) this.toEmit.push(record);
	}

	private judgeGone(page: Page): void {
		const ids = page.records.map((record) => Number(record.id));
		if (ids.length === 0 && !(page.offset === 0 && page.served === 0)) return;
		const ends = page.last;
		const high = page.offset === 0 ? Infinity : Math.max(...ids);
		const low = ends ? -Infinity : Math.min(...ids);
		const shown = new Set(ids);
		// Every page of a list: one pass over what the picture tracks, no sort (100,000 SENT).
		for (const [id, { status }] of this.picture.tracked) {
			if (status === page.list && id <= high && id >= low && !shown.has(id)) this.gone.add(id);
		}
	}

	/**
	 * How far each list's count (what the API said) is from what the picture expects, once the
	 * messages found gone are taken out of their lists (to a list not known yet): 0 everywhere when
	 * every change a count shows was found. OTHER's is what ALL's leaves over.
	 */
	residuals(observed: Partial<Counts>): Record<ListName | 'OTHER', number> {
		const expected = { ...this.picture.counts };
		for (const id of this.gone) {
			const status = this.picture.known(id);
			if (status && status !== 'OTHER') expected[status]--;
		}
		const residuals = { OTHER: 0 } as Record<ListName | 'OTHER', number>;
		for (const list of LISTS) residuals[list] = (observed[list] ?? expected[list]) - expected[list];
		residuals.OTHER =
			residuals.ALL -
			(['PENDING', 'SENT', 'DELIVERED', 'FAILED'] as ListName[]).reduce(
				(sum, list) => sum + residuals[list],
				0,
			);
		return residuals;
	}
}
