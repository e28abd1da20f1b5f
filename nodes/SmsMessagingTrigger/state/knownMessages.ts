// What the trigger knows about the messages of its window, and how little of it is stored.
import { decodeIds, encodeIds, type Ids, type StoredIds } from './storedIds';

/** The statuses of a message still in flight: it reaches DELIVERED or FAILED from one of them. */
export const IN_FLIGHT = ['PENDING', 'SENT'];

/** The statuses a message ends in. */
const OUTCOMES = ['DELIVERED', 'FAILED'];

const LETTERS: Record<string, string> = { PENDING: 'P', SENT: 'S', DELIVERED: 'D', FAILED: 'F' };
const STATUS_OF = Object.fromEntries(Object.entries(LETTERS).map(([status, l]) => [l, status]));

/** One message: the status it was last seen in, the statuses it was emitted (or recorded) in. */
export interface Known {
	status: string;
	seen: Set<string>;
	/** The UTC day it was sent: it is forgotten when that day leaves the window. */
	day: string;
}

/**
 * Messages by what is known of them, in the static data: each key is the status a message was
 * last seen in and the initials of the watched statuses it was emitted in ("SENT/S", "FAILED/DF",
 * "FAILED/" when none), each value its ids by sent day (StoredIds).
 */
export type StoredMessages = Record<string, StoredIds>;

/** The high-water marks: every message up to `top` was looked at; `since` is `top` at the last recording. */
export interface Marks {
	top: number;
	since: number;
}

function decode(stored: StoredMessages | undefined, into: Map<number, Known>) {
	for (const [key, ids] of Object.entries(stored ?? {})) {
		const [status, letters = ''] = key.split('/');
		for (const [id, day] of decodeIds(ids)) {
			into.set(id, { status, seen: new Set([...letters].map((l) => STATUS_OF[l])), day });
		}
	}
}

/**
 * Every message of the window, though few are stored. A message up to `top` that is not stored
 * was last seen in an outcome status other than FAILED (DELIVERED, or left flight while no
 * outcome status was watched), and was emitted in DELIVERED, and also in PENDING and SENT when it
 * was first looked at after the last recording (above `since`): the rule, `byDefault`. Stored are
 * the messages followed (last seen in flight, or above `top`) and the exceptions: the messages
 * last seen FAILED, and those emitted in other statuses than the rule says.
 *
 * The followed messages are read from the static data at every poll; the exceptions only when a
 * poll needs them (a full reading, a message seen in flight again), so that a poll's own work
 * grows with the messages in flight and the changes, not with the window.
 *
 * A recording reads the FAILED list; until a reading of it was whole and conclusive (`unsure`: an
 * empty answer counts only at two polls in a row), a message up to `since` that is not stored
 * (`unknown`) was DELIVERED or FAILED at the recording, which is not known. The FAILED ones a
 * later reading meets are then stored as the recording would have stored them; one seen in
 * flight before (sent again under its id) is taken as emitted in both outcome statuses; and every
 * message up to `since` that a poll looked at is stored, so that it is never taken for unknown.
 */
export class KnownMessages {
	private readonly followed = new Map<number, Known>();
	private exceptions?: Map<number, Known>;

	constructor(
		private readonly stored: { followed?: StoredMessages; settled?: StoredMessages },
		private readonly watched: Set<string>,
		private readonly marks: Marks,
		private readonly startDay: string,
		/** A recording: nothing is known yet, the rule gives nothing. */
		private readonly fresh = false,
		/** The FAILED list was not read whole since the recording. */
		private unsure = false,
		/**
		 * The messages up to `top` that a poll looked at: every id up to `above`, and `ids` above it.
		 * One the API listed late, below `top`, is not among them: it is not known (`get`).
		 */
		private readonly lookedAt?: { above: number; ids: Ids },
	) {
		decode(stored.followed, this.followed);
		for (const [id, known] of this.followed) if (known.day < startDay) this.followed.delete(id);
	}

	private settled(): Map<number, Known> {
		if (!this.exceptions) {
			this.exceptions = new Map();
			decode(this.stored.settled, this.exceptions);
		}
		return this.exceptions;
	}

	/** What the rule gives a message up to `top` that is not stored. */
	private byDefault(id: number): Set<string> {
		const seen = ['DELIVERED', ...(id > this.marks.since ? IN_FLIGHT : [])];
		return new Set(seen.filter((status) => this.watched.has(status)));
	}

	/**
	 * What is known of a message; undefined when it was never looked at (above `top`, or listed
	 * late below it).
	 */
	get(id: number): Known | undefined {
		const known = this.followed.get(id) ?? this.exceptions?.get(id);
		if (known || id > this.marks.top || this.fresh) return known;
		if (this.lookedAt && id > this.lookedAt.above && !this.lookedAt.ids.has(id)) return undefined;
		const seen = this.unknown(id)
			? new Set(OUTCOMES.filter((status) => this.watched.has(status)))
			: this.byDefault(id);
		return this.settled().get(id) ?? { status: 'DELIVERED', seen, day: '' };
	}

	/**
	 * Whether it is not known if a message was DELIVERED or FAILED at the recording: it is up to
	 * `since`, not stored, and no reading of the FAILED list since the recording was whole.
	 */
	unknown(id: number): boolean {
		if (!this.unsure || this.fresh || id > this.marks.since || this.followed.has(id)) return false;
		return !this.settled().has(id);
	}

	/** Whether the FAILED list was read whole since the recording (see `unknown`). */
	get failedKnown(): boolean {
		return !this.unsure;
	}

	/** A whole reading of the FAILED list: every message up to `since` not stored was DELIVERED. */
	failedRead(): void {
		this.unsure = false;
	}

	set(id: number, known: Known): void {
		this.exceptions?.delete(id);
		this.followed.delete(id);
		if (IN_FLIGHT.includes(known.status) || id > this.marks.top) this.followed.set(id, known);
		else this.settled().set(id, known);
	}

	/** Whether a message is followed in flight (last seen PENDING or SENT). */
	follows(id: number): boolean {
		return IN_FLIGHT.includes(this.followed.get(id)?.status ?? '');
	}

	/** How many messages are followed above `top` up to `upTo`, whatever their status. */
	aboveTop(upTo: number): number {
		let count = 0;
		for (const id of this.followed.keys()) if (id > this.marks.top && id <= upTo) count++;
		return count;
	}

	/** The messages followed in flight. */
	inFlight(): Array<[number, Known]> {
		return [...this.followed].filter(([, known]) => IN_FLIGHT.includes(known.status));
	}

	/** The messages of the window last seen FAILED (the exceptions are read for it). */
	failed(): Array<[number, Known]> {
		return [...this.followed, ...this.settled()].filter(
			([, known]) => known.status === 'FAILED' && known.day >= this.startDay,
		);
	}

	/**
	 * What goes into the static data once `top` is `marks.top`: the messages sent in the window,
	 * except those the rule gives. Exceptions that this poll did not read are kept as they were.
	 */
	store(): { followed: StoredMessages; settled: StoredMessages } {
		const followed = new Map<string, Map<number, string>>();
		const settled = new Map<string, Map<number, string>>();
		const add = (id: number, known: Known) => {
			const seen = [...known.seen].filter((status) => this.watched.has(status));
			const open = IN_FLIGHT.includes(known.status) || id > this.marks.top;
			if (!open && known.status === 'DELIVERED' && this.isDefault(id, seen)) return;
			const key = `${known.status}/${seen
				.map((status) => LETTERS[status])
				.sort()
				.join('')}`;
			const group = open ? followed : settled;
			const ids = group.get(key) ?? new Map<number, string>();
			ids.set(id, known.day);
			group.set(key, ids);
		};
		for (const [id, known] of this.followed) add(id, known);
		if (this.exceptions) for (const [id, known] of this.exceptions) add(id, known);
		const encoded = (group: Map<string, Map<number, string>>) =>
			Object.fromEntries(
				[...group]
					.map(([key, ids]) => [key, encodeIds(ids, this.startDay)] as const)
					.filter(([, ids]) => Object.keys(ids).length > 0),
			);
		return {
			followed: encoded(followed),
			settled: this.exceptions ? encoded(settled) : this.withUnread(settled),
		};
	}

	/**
	 * Whether a message settled in DELIVERED (or gone) needs no entry: it was emitted in DELIVERED
	 * (when watched) and in nothing the rule does not give. One the polls never saw in a watched
	 * in-flight status (delivered between two polls) needs none either, so that the static data
	 * stays small whatever is watched: were it ever sent again under the same id, that status would
	 * not be emitted (docs/trigger.md). While the FAILED list is unread since the recording, none up
	 * to `since` is: it would be taken for one not known.
	 */
	private isDefault(id: number, seen: string[]): boolean {
		if (this.unsure && id <= this.marks.since) return false;
		const byDefault = this.byDefault(id);
		return (
			seen.every((status) => byDefault.has(status)) &&
			(!this.watched.has('DELIVERED') || seen.includes('DELIVERED'))
		);
	}

	/**
	 * The stored exceptions this poll did not read, without the days that left the window, and the
	 * messages it settled added to them: only the days those were sent on are decoded again.
	 */
	private withUnread(settled: Map<string, Map<number, string>>): StoredMessages {
		const kept: StoredMessages = {};
		for (const [key, ids] of Object.entries(this.stored.settled ?? {})) {
			const days = Object.entries(ids).filter(([day]) => day >= this.startDay);
			if (days.length > 0) kept[key] = Object.fromEntries(days);
		}
		for (const [key, ids] of settled) {
			const days = new Set(ids.values());
			const merged = decodeIds(
				Object.fromEntries(Object.entries(kept[key] ?? {}).filter(([day]) => days.has(day))),
			);
			for (const [id, day] of ids) merged.set(id, day);
			kept[key] = { ...kept[key], ...encodeIds(merged, this.startDay) };
		}
		return kept;
	}
}
