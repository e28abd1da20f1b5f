// What each trigger's last poll stored, kept in this n8n process for the next poll of that trigger.
import { createHash } from 'node:crypto';

import type { TriggerStaticData } from './storedState';

/**
 * n8n's task scheduler stores a poll's static data only when the poll emits, and with durable
 * cursors it keeps nothing of the poll made at publishing. So a poll may start from static data
 * older than what the last poll of the same trigger ended with: then, when that last poll ran in
 * this process and started from the very static data this poll starts from (it emitted nothing,
 * so nothing is lost by going on from it), this poll goes on from what it ended with. Elsewhere (a
 * poll in another n8n process, after a restart) the poll starts from what n8n stored: it reads
 * again what the polls it does not know of read, and emits what they did not.
 */
interface LastPoll {
	/** The fingerprint of the static data that poll started from (carried over quiet polls). */
	from: string;
	/** What it stored, as JSON, and its fingerprint. */
	stored: string;
	fingerprint: string;
}

const lastPolls = new Map<string, LastPoll>();
/** Triggers remembered at most (the least recently polled goes first). */
const MAX_TRIGGERS = 256;

/** The static data without the lease (a poll's, not what it knows), as canonical JSON. */
function canonical(data: TriggerStaticData): string {
	const sorted = (value: unknown): unknown => {
		if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([key]) => key !== 'lease')
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return Object.fromEntries(entries.map(([key, inner]) => [key, sorted(inner)]));
	};
	return JSON.stringify(sorted(data));
}

const fingerprintOf = (json: string) => createHash('sha256').update(json).digest('base64');

/** One poll's start: the static data it goes on from, and what it knew of the last poll. */
interface PollStart {
	/** A copy of the static data to poll from (without the lease). */
	state: TriggerStaticData;
	key: string;
	from: string;
	last?: LastPoll;
}

/**
 * The state a poll of trigger `key` goes on from, given the static data n8n gave it and what it
 * watches now (`scope`, watch.ts).
 */
export function startFrom(key: string, staticData: TriggerStaticData, scope: string): PollStart {
	const json = canonical(staticData);
	const fingerprint = fingerprintOf(json);
	const last = lastPolls.get(key);
	// Only for what is watched now: a baseline taken for other Watch Statuses or filters, which n8n
	// did not store, would swallow what changed since (the user went back to the stored ones).
	const sameScope = () => (JSON.parse(last!.stored) as TriggerStaticData).scope === scope;
	if (last && last.from === fingerprint && last.fingerprint !== fingerprint && sameScope()) {
		return { state: JSON.parse(last.stored) as TriggerStaticData, key, from: last.from, last };
	}
	return { state: JSON.parse(json) as TriggerStaticData, key, from: fingerprint, last };
}

/**
 * Whether no other poll of the trigger ended in this process since `start` (one that took over
 * from a poll that ran too long, or that n8n's task scheduler ran after abandoning this one).
 */
export function stillCurrent(start: PollStart): boolean {
	return lastPolls.get(start.key) === start.last;
}

/** Keeps what a poll stored; `emitted`: n8n stores it with the execution it starts. */
export function keep(start: PollStart, state: TriggerStaticData, emitted: boolean): void {
	const stored = canonical(state);
	const fingerprint = fingerprintOf(stored);
	lastPolls.delete(start.key);
	lastPolls.set(start.key, { from: emitted ? fingerprint : start.from, stored, fingerprint });
	if (lastPolls.size > MAX_TRIGGERS) lastPolls.delete(lastPolls.keys().next().value!);
}
