// What the trigger knows about the messages of its window, and how little of it is stored.
import { decodeIds, encodeIds, type Ids, type StoredIds } from './storedIds';

/** The statuses of a message still in flight: it reaches DELIVERED or FAILED from one of them. */
export const IN_FLIGHT = ['PENDING', 'SENT'];

/** The statuses a message ends in. */
const OUTCOMES = ['DELIVERED', 'FAILED'];

/** Each status by its initial, as the keys of the static data write it. */
const INITIALS: Record<string, string> = { PENDING: 'P', SENT: 'S', DELIVERED: 'D', FAILED: 'F' };
const STATUS_OF_INITIAL = Object.fromEntries(
	Object.entries(INITIALS).map(([status, initial]) => [initial, status]),
);

/**
 * One message: the status it was last seen in, and the statuses it was emitted in (at the
 * baseline poll: taken as emitted, so that they are not emitted later).
 */
interface KnownMessage {
	status: string;
	emittedIn: Set<string>;
	/** The UTC day it was sent: it is forgotten when that day leaves the window. */
	day: string;
}

/**
 * Messages by what is known of them, in the static data: each key is the status a message was
 * last seen in and the initials of the watched statuses it was emitted in ("SENT/S", "FAILED/DF",
 * "FAILED/" when none), each value its ids by sent day (StoredIds).
 */
export type StoredMessages = Record<string, StoredIds>;

/**
 * The high-water marks (ids): every message up to `highWaterMark` was looked at (except those the
 * API listed late, see KnownMessages.get); `baselineMark` is the high-water mark of the baseline
 * poll. In the static data they are `top` and `since` (pollState.ts).
 */
export interface Marks {
	highWaterMark: number;
	baselineMark: number;
}

function decodeMessages(stored: StoredMessages | undefined, into: Map<number, KnownMessage>) {
	for (const [key, ids] of Object.entries(stored ?? {})) {
		const [status, initials = ''] = key.split('/');
		const emittedIn = () => new Set([...initials].map((initial) => STATUS_OF_INITIAL[initial]));
		for (const [id, day] of decodeIds(ids)) into.set(id, { status, emittedIn: emittedIn(), day });
	}
}

/** What KnownMessages starts from. */
interface KnownMessagesOptions {
	/** The static data's messages (none at the baseline poll). */
	stored: { followed?: StoredMessages; settled?: StoredMessages };
	watched: Set<string>;
	/** Shared with the poll, which raises the high-water mark before `store`. */
	marks: Marks;
	/** The first UTC day of the window. */
	startDay: string;
	/** The baseline poll: nothing is known yet, the rule gives nothing. */
	baseline: boolean;
	/** The FAILED list was not read whole since the baseline poll. */
	failedListUnread: boolean;
	/**
	 * The messages up to the high-water mark that a poll looked at: every id up to `above`, and
	 * `ids` above it (the poll adds those it looks at). One the API listed late, below the mark, is
	 * not among them: it is not known (`get`).
	 */
	lookedAt: { above: number; ids: Ids };
}

/**
 * Every message of the window, though few are stored. A message up to the high-water mark that
 * is not stored was last seen in an outcome status other than FAILED (DELIVERED, or left flight
 * while no outcome status was watched), and was emitted in DELIVERED, and also in PENDING and SENT
 * when it was first looked at after the baseline poll (above `baselineMark`): the rule,
 * `emittedByDefault`. Stored are the messages followed (last seen in flight, or above the mark)
 * and the exceptions (stored as `settled`): the messages last seen FAILED, and those emitted in
 * other statuses than the rule says.
 *
 * The followed messages are read from the static data at every poll; the exceptions only when a
 * poll needs them (a full reading, a message seen in flight again), so that a poll's own work
 * grows with the messages in flight and the changes, not with the window.
 *
 * The baseline poll reads the FAILED list; until a reading of it was whole and conclusive
 * (`failedListUnread`: an empty answer counts only at two polls in a row), a message up to
 * `baselineMark` that is not stored was DELIVERED or FAILED at the baseline, which is not known
 * (`outcomeUnknownAtBaseline`). The FAILED ones a later reading meets are then stored as the
 * baseline poll would have stored them; one seen in flight before (sent again under its id) is
 * taken as emitted in both outcome statuses; and every message up to `baselineMark` that a poll
 * looked at is stored, so that its outcome is never taken for unknown.
 */
export class KnownMessages {
	private readonly followed = new Map<number, KnownMessage>();
	/** The exceptions, once read from the static data (`loadExceptions`). */
	private exceptions?: Map<number, KnownMessage>;
	private readonly stored: KnownMessagesOptions['stored'];
	private readonly watched: Set<string>;
	private readonly marks: Marks;
	private readonly startDay: string;
	private readonly baseline: boolean;
	private failedListUnread: boolean;
	private readonly lookedAt: KnownMessagesOptions['lookedAt'];

	constructor(options: KnownMessagesOptions) {
		this.stored = options.stored;
		this.watched = options.watched;
		this.marks = options.marks;
		this.startDay = options.startDay;
		this.baseline = options.baseline;
		this.failedListUnread = options.failedListUnread;
		this.lookedAt = options.lookedAt;
		decodeMessages(this.stored.followed, this.followed);
		for (const [id, known] of this.followed) {
			if (known.day < this.startDay) this.followed.delete(id);
		}
	}

	private loadExceptions(): Map<number, KnownMessage> {
		if (!this.exceptions) {
			this.exceptions = new Map();
			decodeMessages(this.stored.settled, this.exceptions);
		}
		return this.exceptions;
	}

	/** The statuses the rule takes a message up to the high-water mark, not stored, emitted in. */
	private emittedByDefault(id: number): Set<string> {
		const emitted = ['DELIVERED', ...(id > this.marks.baselineMark ? IN_FLIGHT : [])];
		return new Set(emitted.filter((status) => this.watched.has(status)));
	}

	/**
	 * What is known of a message; undefined when it was never looked at (above the high-water mark,
	 * or listed late below it; at the baseline poll, any message this poll has not read yet).
	 */
	get(id: number): KnownMessage | undefined {
		const known = this.followed.get(id) ?? this.exceptions?.get(id);
		if (known || id > this.marks.highWaterMark || this.baseline) return known;
		if (id > this.lookedAt.above && !this.lookedAt.ids.has(id)) return undefined;
		const emittedIn = this.outcomeUnknownAtBaseline(id)
			? new Set(OUTCOMES.filter((status) => this.watched.has(status)))
			: this.emittedByDefault(id);
		return this.loadExceptions().get(id) ?? { status: 'DELIVERED', emittedIn, day: '' };
	}

	/**
	 * Whether it is not known if a message was DELIVERED or FAILED at the baseline poll: it is up
	 * to `baselineMark`, not stored, and no reading of the FAILED list since the baseline was whole.
	 */
	outcomeUnknownAtBaseline(id: number): boolean {
		if (!this.failedListUnread || this.baseline) return false;
		if (id > this.marks.baselineMark || this.followed.has(id)) return false;
		return !this.loadExceptions().has(id);
	}

	/** Whether the FAILED list was read whole since the baseline poll (see `failedListUnread`). */
	get failedListKnown(): boolean {
		return !this.failedListUnread;
	}

	/** The FAILED list was read whole: each message up to `baselineMark` not stored was DELIVERED. */
	failedListReadWhole(): void {
		this.failedListUnread = false;
	}

	set(id: number, known: KnownMessage): void {
		this.exceptions?.delete(id);
		this.followed.delete(id);
		const followed = IN_FLIGHT.includes(known.status) || id > this.marks.highWaterMark;
		if (followed) this.followed.set(id, known);
		else this.loadExceptions().set(id, known);
	}

	/** Whether a message is followed in flight (last seen PENDING or SENT). */
	isFollowedInFlight(id: number): boolean {
		return IN_FLIGHT.includes(this.followed.get(id)?.status ?? '');
	}

	/** How many messages are followed above the high-water mark up to `upTo`, in any status. */
	followedAboveMark(upTo: number): number {
		let count = 0;
		for (const id of this.followed.keys()) {
			if (id > this.marks.highWaterMark && id <= upTo) count++;
		}
		return count;
	}

	/** The messages followed in flight. */
	inFlight(): Array<[number, KnownMessage]> {
		return [...this.followed].filter(([, known]) => IN_FLIGHT.includes(known.status));
	}

	/** The messages of the window last seen FAILED (the exceptions are read for it). */
	lastSeenFailed(): Array<[number, KnownMessage]> {
		return [...this.followed, ...this.loadExceptions()].filter(
			([, known]) => known.status === 'FAILED' && known.day >= this.startDay,
		);
	}

	/**
	 * What goes into the static data once the high-water mark is `marks.highWaterMark`: the
	 * messages sent in the window, except those the rule gives. Exceptions that this poll did not
	 * read are kept as they were.
	 */
	store(): { followed: StoredMessages; settled: StoredMessages } {
		const followed = new Map<string, Map<number, string>>();
		const settled = new Map<string, Map<number, string>>();
		const add = (id: number, known: KnownMessage) => {
			const emittedIn = [...known.emittedIn].filter((status) => this.watched.has(status));
			const isFollowed = IN_FLIGHT.includes(known.status) || id > this.marks.highWaterMark;
			if (!isFollowed && known.status === 'DELIVERED' && this.needsNoEntry(id, emittedIn)) return;
			const key = `${known.status}/${emittedIn
				.map((status) => INITIALS[status])
				.sort()
				.join('')}`;
			const group = isFollowed ? followed : settled;
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
			settled: this.exceptions ? encoded(settled) : this.withUnreadExceptions(settled),
		};
	}

	/**
	 * Whether a message settled in DELIVERED (or gone) needs no entry: it was emitted in DELIVERED
	 * (when watched) and in nothing the rule does not give. One the polls never saw in a watched
	 * in-flight status (delivered between two polls) needs none either, so that the static data
	 * stays small whatever is watched: were it ever sent again under the same id, that status would
	 * not be emitted (docs/trigger.md). While the FAILED list is unread since the baseline poll,
	 * every message up to `baselineMark` needs one: without it, its outcome would be taken for
	 * unknown.
	 */
	private needsNoEntry(id: number, emittedIn: string[]): boolean {
		if (this.failedListUnread && id <= this.marks.baselineMark) return false;
		const byDefault = this.emittedByDefault(id);
		return (
			emittedIn.every((status) => byDefault.has(status)) &&
			(!this.watched.has('DELIVERED') || emittedIn.includes('DELIVERED'))
		);
	}

	/**
	 * The stored exceptions this poll did not read, without the days that left the window, and the
	 * messages it settled added to them: only the days those were sent on are decoded again.
	 */
	private withUnreadExceptions(settled: Map<string, Map<number, string>>): StoredMessages {
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
