// The trigger's id sets: in memory by id, in the workflow's static data by day, compactly.

/**
 * Ids by the UTC day their message was sent, in the workflow's static data: each day's ids in
 * ascending order, as base-36 differences from the previous one ("rs,1,2" is 1000, 1001, 1003),
 * and a difference repeated as the difference, `*` and how many times ("rs,1*2s" is 1000 to 1100),
 * so that a run of consecutive ids (a bulk send) costs a few bytes, a message among sparse ids
 * about two.
 */
export type StoredIds = Record<string, string>;

/** An id set in memory: each id with the UTC day its message was sent. */
type Ids = Map<number, string>;

/** The ids StoredIds holds, each with its day. */
export function decodeIds(stored: StoredIds | undefined): Ids {
	const ids: Ids = new Map();
	for (const [day, encoded] of Object.entries(stored ?? {})) {
		let id = 0;
		for (const token of encoded.split(',')) {
			const [step, times = '1'] = token.split('*');
			for (let i = parseInt(times, 36); i > 0; i--) {
				id += parseInt(step, 36);
				ids.set(id, day);
			}
		}
	}
	return ids;
}

/** The ids sent on `startDay` or later, encoded as StoredIds. */
export function encodeIds(ids: Ids, startDay: string): StoredIds {
	const byDay = new Map<string, number[]>();
	for (const [id, day] of ids) {
		if (day < startDay) continue;
		const list = byDay.get(day) ?? [];
		list.push(id);
		byDay.set(day, list);
	}
	const stored: StoredIds = {};
	for (const day of [...byDay.keys()].sort()) {
		const sorted = byDay.get(day)!.sort((a, b) => a - b);
		stored[day] = runsOf(sorted.map((id, i) => id - (i === 0 ? 0 : sorted[i - 1]))).join(',');
	}
	return stored;
}

/** Shorter than writing them out: a difference repeated this many times is written once. */
const RUN = 3;

/** Differences as tokens: base 36, and a run of one difference as `step*times`. */
function runsOf(steps: number[]): string[] {
	const tokens: string[] = [];
	for (let i = 0; i < steps.length; ) {
		let end = i + 1;
		while (end < steps.length && steps[end] === steps[i]) end++;
		const step = steps[i].toString(36);
		if (end - i >= RUN) tokens.push(`${step}*${(end - i).toString(36)}`);
		else for (let k = i; k < end; k++) tokens.push(step);
		i = end;
	}
	return tokens;
}
