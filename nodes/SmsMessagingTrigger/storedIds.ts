// The trigger's id sets: in memory by id, in the workflow's static data by day, compactly.

/**
 * Ids by the UTC day their message was sent, in the workflow's static data: each day's ids in
 * ascending order, as base-36 differences from the previous one ("rs,1,2" is 1000, 1001, 1003),
 * so that a message costs about two bytes when ids are consecutive, whatever their size (a few
 * more when they are sparse).
 */
export type StoredIds = Record<string, string>;

/** An id set in memory: each id with the UTC day its message was sent. */
export type Ids = Map<number, string>;

export function decodeIds(stored: StoredIds | undefined): Ids {
	const ids: Ids = new Map();
	for (const [day, encoded] of Object.entries(stored ?? {})) {
		let id = 0;
		for (const step of encoded.split(',')) {
			id += parseInt(step, 36);
			ids.set(id, day);
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
		stored[day] = sorted
			.map((id, i) => (id - (i === 0 ? 0 : sorted[i - 1])).toString(36))
			.join(',');
	}
	return stored;
}
