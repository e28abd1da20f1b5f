// The trigger's picture of the SMS lists: every message it knows, each list's expected count.
import type { IDataObject } from 'n8n-workflow';

import { sentDayOf } from '../../shared/lists/sentWindow';

/** The statuses of the API (spec 2.5), and OTHER for any status it may add. */
export type Status = 'PENDING' | 'SENT' | 'DELIVERED' | 'FAILED' | 'OTHER';

/** The lists a poll reads: one per status, and ALL, the list of every status. */
export type ListName = Exclude<Status, 'OTHER'> | 'ALL';

/** The lists in the order a poll asks their first pages. */
export const LISTS: ListName[] = ['PENDING', 'SENT', 'FAILED', 'DELIVERED', 'ALL'];

/** A list of one status. */
export type StatusList = Exclude<ListName, 'ALL'>;

/** The lists whose members the picture knows one by one (DELIVERED is known by default). */
export const TRACKED_LISTS: StatusList[] = ['PENDING', 'SENT', 'FAILED'];

/** A message still on its way: it reaches DELIVERED or FAILED from one of these. */
const IN_FLIGHT: Status[] = ['PENDING', 'SENT'];

/** The status a record of the list has (OTHER for one the spec does not name). */
export function statusOf(record: IDataObject): Status {
	const status = String(record.status);
	return ['PENDING', 'SENT', 'DELIVERED', 'FAILED'].includes(status) ? (status as Status) : 'OTHER';
}

/** What the picture knows of one message. */
interface Message {
	status: Status;
	/**
	 * The watched statuses it was in at the baseline poll or has been emitted in: it is never
	 * emitted in one of them again.
	 */
	recorded: Set<Status>;
	/** The UTC day it was sent: it is forgotten when that day leaves the lists. */
	day: string;
}

/** A change the picture took in: a message seen in another status than it knew (or new). */
export interface Change {
	id: number;
	/** The status it knew (undefined: a message new to the lists). */
	from?: Status;
	to: Status;
	record: IDataObject;
}

/** Each list's count: what the picture expects, or what the API said. */
export type Counts = Record<ListName, number>;

/** Where the picture stands; stored as it is in the static data (state/storedState.ts). */
interface Marks {
	/** The high-water mark: every listed message up to this id is known (`knows`). */
	top: number;
	/** `top` at the baseline poll. */
	since: number;
	/**
	 * The baseline poll's time less the listing lag and 12 hours (the furthest west a zone lies, read
	 * as UTC): a message first seen after the baseline and sent by then existed at it, whatever its
	 * id (ms; undefined in a state stored before it was kept).
	 */
	sinceAt?: number;
	/** Every id up to this one counts as listed (the baseline); above it, `listed` says. */
	listedUpTo: number;
	/** How many records of ALL are at or below `top`. */
	belowTop: number;
	/** The highest id ALL showed at the last poll. */
	newest: number;
}

/**
 * The trigger's picture of the lists as it asks them: the messages it knows by id (`tracked`: every
 * one above `top`, and the ones at or below it that are not DELIVERED by default), the others up
 * to `top` DELIVERED by default, and how many records it expects in each list (`counts`). It
 * changes only by a Change taken in (`see`, `forget`), so its counts always match what it knows:
 * a list whose count differs from what the API says changed in a way no reading showed yet.
 */
export class Picture {
	readonly tracked = new Map<number, Message>();
	/**
	 * The `start-date` the lists were asked with when the counts were taken (a new day asks them
	 * from a new one); undefined for a picture whose counts are not known yet.
	 */
	countsFrom?: string;
	/** The ids above `listedUpTo` and up to `top` that are listed, with their day. */
	readonly listed = new Map<number, string>();
	/** How many tracked messages each status holds, and how many are at or below `top`. */
	private readonly inStatus = new Map<Status, number>();
	private trackedBelowTop = 0;

	constructor(
		readonly watched: Set<Status>,
		public marks: Marks,
		public counts: Counts,
	) {}

	/** Whether a message at or below `top` is known to be listed. */
	isListed(id: number): boolean {
		return id <= this.marks.top && (id <= this.marks.listedUpTo || this.listed.has(id));
	}

	/** The status the picture knows a message in; undefined for one it does not know. */
	known(id: number): Status | undefined {
		return this.tracked.get(id)?.status ?? (this.isListed(id) ? 'DELIVERED' : undefined);
	}

	/**
	 * What a message up to `top` that is not tracked was recorded in, by default: DELIVERED, and
	 * PENDING and SENT when it was first looked at after the baseline poll (a message delivered
	 * between two polls is taken as emitted in them, so that it needs no entry).
	 */
	defaultRecorded(id: number): Set<Status> {
		const statuses: Status[] = ['DELIVERED', ...(id > this.marks.since ? IN_FLIGHT : [])];
		return new Set(statuses.filter((status) => this.watched.has(status)));
	}

	/**
	 * The watched statuses a message is recorded in: a tracked one's own, one up to `top` by the
	 * rule, none for one never looked at.
	 */
	recorded(id: number): Set<Status> {
		const tracked = this.tracked.get(id);
		if (tracked) return tracked.recorded;
		return this.isListed(id) ? this.defaultRecorded(id) : new Set();
	}

	/** How many known messages are in a status (DELIVERED: tracked and by default). */
	knownIn(status: Status): number {
		const tracked = this.inStatus.get(status) ?? 0;
		return status === 'DELIVERED' ? tracked + this.marks.belowTop - this.trackedBelowTop : tracked;
	}

	/**
	 * The messages the counts hold that the picture does not know one by one: new messages a poll
	 * counted but did not read (a bulk send), all above `top`.
	 */
	unknownIn(list: ListName): number {
		if (list === 'ALL') {
			return this.counts.ALL - this.marks.belowTop - (this.tracked.size - this.trackedBelowTop);
		}
		return this.counts[list] - this.knownIn(list);
	}

	/** Sets what is known of a message, keeping the per-status tallies. */
	setMessage(id: number, message: Message | undefined): void {
		const before = this.tracked.get(id);
		if (before) {
			this.inStatus.set(before.status, (this.inStatus.get(before.status) ?? 0) - 1);
			if (id <= this.marks.top) this.trackedBelowTop--;
			this.tracked.delete(id);
		}
		if (!message) return;
		this.tracked.set(id, message);
		this.inStatus.set(message.status, (this.inStatus.get(message.status) ?? 0) + 1);
		if (id <= this.marks.top) this.trackedBelowTop++;
	}

	/**
	 * Takes in a record seen in `status`: a Change when the picture knew it in another status or
	 * not at all (the counts follow), undefined when it knew it so. A record the counts held
	 * without knowing it (`unknownIn`) changes no count of its status.
	 */
	see(
		record: IDataObject,
		status: Status,
		{ today, zone }: { today: string; zone: string },
	): Change | undefined {
		const id = Number(record.id);
		const day = sentDayOf(record, this.tracked.get(id)?.day ?? today, zone);
		const from = this.known(id) ?? this.fromUnknown(id, status);
		if (from === status && this.tracked.has(id)) {
			this.tracked.get(id)!.day = day;
			return undefined;
		}
		if (from === status && this.isListed(id)) return undefined;
		const recorded = new Set(this.recorded(id));
		this.count(from, -1, id);
		this.count(status, +1, id);
		if (from === undefined && id <= this.marks.top) this.markListed(id, day);
		this.setMessage(id, { status, recorded, day });
		return from === status ? undefined : { id, from, to: status, record };
	}

	/**
	 * The status a message the picture does not know was counted in: above `top` and not newer
	 * than the last poll's newest, one the counts held without reading (`unknownIn`), in its own
	 * status if that holds any, else in a status that does; otherwise it is new to the lists.
	 */
	private fromUnknown(id: number, status: Status): Status | undefined {
		if (id <= this.marks.top || id > this.marks.newest) return undefined;
		if (this.unknownIn('ALL') <= 0) return undefined;
		const unknown = (s: Status) => s !== 'OTHER' && this.unknownIn(s as ListName) > 0;
		if (unknown(status)) return status;
		const statuses: Status[] = ['SENT', 'PENDING', 'DELIVERED', 'FAILED'];
		return statuses.find(unknown);
	}

	/** A message gone from the lists (deleted, or its day left them): forgotten, counts follow. */
	forget(id: number): void {
		const from = this.known(id);
		if (from === undefined) return;
		this.count(from, -1, id);
		this.count(undefined, +1, id);
		this.setMessage(id, undefined);
		this.listed.delete(id);
	}

	/**
	 * One message more (+1) or less (-1) in a status (undefined: in none, out of the lists): its
	 * list's count, ALL's, and `belowTop` for one at or below the mark.
	 */
	private count(status: Status | undefined, step: number, id: number): void {
		if (status === undefined) {
			this.counts.ALL -= step;
			if (id <= this.marks.top) this.marks.belowTop -= step;
		} else if (status !== 'OTHER') {
			this.counts[status] += step;
		}
	}

	private markListed(id: number, day: string): void {
		if (id > this.marks.listedUpTo) this.listed.set(id, day);
	}

	/** Whether a message emitted as it should be needs no entry of its own once at or below `top`. */
	needsNoEntry(id: number, message: Message): boolean {
		if (message.status !== 'DELIVERED') return false;
		const byDefault = this.defaultRecorded(id);
		return (
			[...message.recorded].every((status) => byDefault.has(status)) &&
			(!this.watched.has('DELIVERED') || message.recorded.has('DELIVERED'))
		);
	}

	/**
	 * Raises the high-water mark to `top`: every message above the old mark and up to the new one
	 * must be tracked (no count holds one unread there). They are listed from then on, and those
	 * DELIVERED as the rule gives need no entry any more.
	 */
	raiseTop(top: number): void {
		if (top <= this.marks.top) return;
		const rising = [...this.tracked].filter(([id]) => id > this.marks.top && id <= top);
		for (const [id] of rising) this.setMessage(id, undefined);
		this.marks.belowTop += rising.length;
		this.marks.top = top;
		for (const [id, message] of rising) {
			this.markListed(id, message.day);
			if (!this.needsNoEntry(id, message)) this.setMessage(id, message);
		}
	}

	/** Stops tracking a message up to `top` that the rule gives as it is (DELIVERED as emitted). */
	untrackIfDefault(id: number): void {
		const message = this.tracked.get(id);
		if (message && id <= this.marks.top && this.needsNoEntry(id, message))
			this.setMessage(id, undefined);
	}

	/** Adds a watched status to what a message is recorded in: it is not emitted in it again. */
	record(id: number, status: Status): void {
		this.tracked.get(id)?.recorded.add(status);
	}

	/** Tracked messages in a list, by id (newest first). */
	membersOf(list: ListName): number[] {
		const ids: number[] = [];
		for (const [id, message] of this.tracked) {
			if (list === 'ALL' || message.status === list) ids.push(id);
		}
		return ids.sort((a, b) => b - a);
	}
}
