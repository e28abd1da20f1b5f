// Accounting for an in-flight list's count, so that a poll reads it only as far as the changes go.
import type { IDataObject } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../shared/lists/list';
import type { FirstPages } from './firstPages';
import { IN_FLIGHT } from '../state/knownMessages';
import { hasId, type ListReader } from './listReading';

/**
 * One in-flight list (PENDING or SENT) at a poll: its count when the poll began, against the
 * messages followed in it and those from before the window (the list is asked from a day
 * earlier) at its last whole reading. A followed message has left it when a page that met the
 * ones before did not show it where it would be, or when another list showed it; a message found
 * in it that was not followed in it came in. When the count is accounted for, what lies below
 * the pages read is as it was (or changed in ways that cancel out, which a full reading sees).
 */
export class InFlightCount {
	/** The records the poll accounts for: what the list should hold by what it knows. */
	private accounted: number;
	/** The followed messages, highest id first, and how many of them the pages have passed. */
	private readonly followed: number[];
	private passed = 0;
	private readonly read = new Set<number>();
	private readonly gone = new Set<number>();
	private lowest = Infinity;

	constructor(
		/** The list's count (`totalElements`) when the poll began. */
		private readonly listed: number,
		beforeWindow: number,
		followed: number[],
		/** Whether a record of the list is in the window and not followed in it. */
		private readonly cameIn: (record: IDataObject) => boolean,
	) {
		this.followed = [...followed].sort((a, b) => b - a);
		this.accounted = beforeWindow + followed.length;
	}

	/** Whether the list's count is accounted for. */
	get accountedFor(): boolean {
		return this.accounted === this.listed;
	}

	/**
	 * Takes the next page of the list, read from its top and meeting the pages before; gives
	 * whether the count is now accounted for.
	 */
	addPage(records: IDataObject[]): boolean {
		for (const record of records) {
			const id = Number(record.id);
			this.lowest = Math.min(this.lowest, id);
			if (this.read.has(id)) continue;
			this.read.add(id);
			if (this.gone.delete(id) || this.cameIn(record)) this.accounted++;
		}
		for (; this.passed < this.followed.length; this.passed++) {
			const id = this.followed[this.passed];
			if (id < this.lowest) break;
			if (!this.read.has(id)) this.leftList(id);
		}
		return this.accountedFor;
	}

	/** A followed message that left the list: a page passed its place, or another list showed it. */
	leftList(id: number): void {
		if (this.gone.has(id) || this.read.has(id)) return;
		this.gone.add(id);
		this.accounted--;
	}
}

/**
 * Before the in-flight lists are read past their first page: while one of them is not accounted
 * for, the FAILED and then the DELIVERED list are read from their top (newest first), as long as
 * each page shows followed messages (`arrived`: a followed message, now in that outcome). After a
 * bulk send, the messages that left flight are among the newest of those lists, while the
 * in-flight lists would have to be read whole to tell that they are gone.
 */
export async function readOutcomesFirst(
	reader: ListReader,
	counts: Map<string, InFlightCount>,
	arrived: (record: IDataObject, status: string) => boolean,
): Promise<void> {
	const unaccounted = () => [...counts.values()].some((count) => !count.accountedFor);
	for (const status of ['FAILED', 'DELIVERED']) {
		const { read } = reader({ status });
		for (let page = 1; unaccounted(); page++) {
			const data = await read({ page, size: MAX_PAGE_SIZE });
			const content = (data.content as unknown[]).filter(hasId);
			let followed = 0;
			for (const record of content) if (arrived(record, status)) followed++;
			if (followed === 0 || content.length < MAX_PAGE_SIZE) break;
		}
	}
}

/**
 * The count of each in-flight list whose count and records from before the window are known,
 * with its first page read: the messages followed in it (`lastSeenIn`, by the status they were
 * last seen in), and whether a record is in the window.
 */
export function inFlightCounts(
	first: FirstPages,
	beforeWindow: Record<string, number> | undefined,
	lastSeenIn: Map<number, string>,
	inWindow: (record: IDataObject) => boolean,
): Map<string, InFlightCount> {
	const counts = new Map<string, InFlightCount>();
	for (const status of IN_FLIGHT) {
		const total = first.total({ status });
		const before = beforeWindow?.[status];
		if (total === undefined || before === undefined) continue;
		const followed = [...lastSeenIn].filter(([, last]) => last === status).map(([id]) => id);
		const cameIn = (record: IDataObject) =>
			inWindow(record) && lastSeenIn.get(Number(record.id)) !== status;
		const count = new InFlightCount(total, before, followed, cameIn);
		count.addPage(first.content({ status }));
		counts.set(status, count);
	}
	return counts;
}
