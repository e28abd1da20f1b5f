// One poll of the trigger: n8n's entry point, a manual run, and a poll's steps in order.
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { maskedSmsRecord } from '../shared/approvalLink';
import { smsListReader } from '../shared/lists/smsListReader';
import { utcDay } from '../shared/lists/sentWindow';
import { sharedLimiter } from '../shared/requests/limiter';
import { apiCredentials, RunProgress } from '../shared/requests/transport';
import { apiZoneOf } from '../shared/input/apiTime';
import { repeatedPagesError } from '../shared/lists/list';
import { takeBaseline } from './reading/baseline';
import { Findings, type PollWindow } from './reading/findings';
import { readFirstPages } from './reading/firstPages';
import { isFullReadingDue, newWindow, reanchor, takeCounts } from './reading/fullReading';
import {
	Lists,
	OUT_OF_TIME,
	withinBudget,
	type ListSource,
	type Page,
	type PageReader,
} from './reading/lists';
import { raiseMark } from './reading/raiseMark';
import { resolve } from './reading/resolve';
import type { Search } from './reading/search';
import type { Picture, Status } from './state/picture';
import { keep, startFrom, stillCurrent } from './state/processMemory';
import { loadPicture, storePicture, withLease, type TriggerStaticData } from './state/storedState';
import { readWatch, type Watch } from './watch';

/** Without n8n's poll budget (before n8n 2.41, or outside its task scheduler): 5 minutes. */
const DEFAULT_BUDGET_MS = 5 * 60_000;

/** Pages of the list of every status a poll reads to raise its mark: more when it emits. */
const RAISE_PAGES = { quiet: 2, emitting: 20 };

/**
 * One poll. Emits each message newly seen in a watched status once (docs/trigger.md). The
 * baseline poll (nothing stored for what is watched) takes the picture and emits nothing; a manual
 * run emits the newest matching message and leaves the static data alone.
 */
export async function pollDeliveries(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const credentials = await apiCredentials(this);
	// Before any request: an API Time Zone that names no zone is an error naming the field.
	const zone = apiZoneOf(this.getNode(), credentials);
	const watch = readWatch.call(this, zone);
	const budget = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : undefined;
	const deadline = Date.now() + (budget ?? DEFAULT_BUDGET_MS);
	// The poll's reads wait their turn with the other runs that use this credential and host under
	// Auto (limiter.ts), and a Retry-After any of them is given holds them all; none waits past
	// the poll's budget.
	const readPage = smsListReader.call(this, credentials, {
		control: {
			gate: sharedLimiter(credentials.baseUrl, credentials.apiToken),
			run: new RunProgress(),
			deadline,
		},
		again: 'the next poll tries again',
		namePage: true,
	});
	if (this.getMode() === 'manual') return await newestMatching(watch, readPage);
	const staticData = this.getWorkflowStaticData('node') as TriggerStaticData;
	return await withLease(staticData, async (renew, stillHeld) => {
		const start = startFrom(
			`${this.getWorkflow().id ?? ''}/${this.getNode().id}`,
			staticData,
			watch.scope,
		);
		const source: ListSource = {
			read: async (query) => {
				renew();
				return await readPage(query);
			},
			deadline,
			repeated: repeatedPagesError(this.getNode(), 'the next poll reads it again'),
		};
		const records = await pollOnce(watch, source, start.state, zone);
		// A poll that held the trigger too long, and another took over, stores and emits nothing:
		// the one that took over read the lists after it.
		if (!stillHeld() || !stillCurrent(start) || records === undefined) return null;
		const items = emitted(records);
		keep(start, start.state, items !== null);
		for (const key of Object.keys(staticData)) {
			if (key !== 'lease') delete (staticData as Record<string, unknown>)[key];
		}
		Object.assign(staticData, start.state);
		return items;
	});
}

/** A manual run: the newest message in a watched status, from the first page of each. */
async function newestMatching(
	watch: Watch,
	readPage: PageReader,
): Promise<INodeExecutionData[][] | null> {
	let newest: IDataObject | undefined;
	for (const status of watch.statuses) {
		const [latest] = (
			await readPage({ ...watch.query, status, sort: 'id,desc', page: 1, records: 1 })
		).content as IDataObject[];
		if (latest && (!newest || Number(latest.id) > Number(newest.id))) newest = latest;
	}
	return newest ? [[{ json: maskedSmsRecord(newest) }]] : null;
}

/**
 * A poll's steps: the stored picture (or a baseline), then `pollPicture`. Gives the records to
 * emit, `state` changed to what is to be stored; undefined when nothing is to be stored (a
 * baseline that could not be taken whole).
 */
async function pollOnce(
	watch: Watch,
	source: ListSource,
	state: TriggerStaticData,
	zone: string,
): Promise<IDataObject[] | undefined> {
	const now = Date.now();
	const window: PollWindow = { today: utcDay(now), startDay: watch.startDay, now, zone };
	const watched = new Set(watch.statuses as Status[]);
	let picture = loadPicture(state, watch.scope, watched);
	let records: IDataObject[] = [];
	if (picture) {
		records = await pollPicture(picture, { watch, source, window, staticData: state });
	} else {
		// Undefined when the budget ended it, or it could not be taken whole: the next poll takes it.
		const taken = await withinBudget(
			async () => await takeBaseline(new Lists(source, watch.query), watched, window),
		);
		if (taken === OUT_OF_TIME || !taken) return undefined;
		picture = taken;
		picture.countsFrom = String(watch.query['start-date']);
		state.fullReadingAt = now;
	}
	storePicture(state, picture, { scope: watch.scope, startDay: watch.startDay });
	return records;
}

interface PollSetting {
	watch: Watch;
	source: ListSource;
	window: PollWindow;
	staticData: TriggerStaticData;
}

/**
 * A poll of a stored picture: the first pages, the readings their counts call for (all of the
 * in-flight and FAILED lists at a full reading, going on from where one the budget ended stopped),
 * and the mark raised. The lists are asked as the counts were taken (`countsFrom`), so that a
 * count tells a change and nothing else; on a new day, once that poll is clean, the counts are
 * taken from the new window's start (`newWindow`). A picture stored before the trigger kept counts
 * is read in full and takes them (`takeCounts`). Gives the records to emit; sets in `staticData`
 * when a full reading ended, or where one stopped.
 */
async function pollPicture(
	picture: Picture,
	{ watch, source, window, staticData }: PollSetting,
): Promise<IDataObject[]> {
	const startDate = String(watch.query['start-date']);
	const { countsFrom } = picture;
	const lists = new Lists(source, { ...watch.query, 'start-date': countsFrom ?? startDate });
	const findings = new Findings(picture, { ...window, emitting: true });
	const observed = await withinBudget(async () => await readFirstPages(lists, findings));
	if (observed === OUT_OF_TIME) return findings.toEmit;
	const search: Search = { lists, findings, observed };
	const from = staticData.fullReadingFrom;
	const due =
		countsFrom === undefined ||
		from !== undefined ||
		staticData.unsettled === true ||
		isFullReadingDue(watch, window.now, staticData.fullReadingAt);
	const ended = await resolve(
		search,
		new Set(watch.statuses as Status[]),
		due ? { from } : undefined,
	);
	if (due) delete staticData.fullReadingFrom;
	// A count still apart from the picture when a poll that did not read in full ends: the next
	// poll reads in full, so that no count is apart at two polls in a row.
	if (ended.end === 'unclean' && !due) staticData.unsettled = true;
	else delete staticData.unsettled;
	// A full reading not ended goes on at the next poll from where it stopped; one the budget
	// ended after its lists is read again.
	if (due && ended.fullReadingFrom) {
		staticData.fullReadingFrom = ended.fullReadingFrom;
	} else if (
		ended.end !== 'out of time' &&
		(countsFrom === undefined ? takeCounts(search) : due && reanchor(search))
	) {
		if (countsFrom === undefined) picture.countsFrom = startDate;
		staticData.fullReadingAt = window.now;
	}
	// The counts now hold every message up to the newest the list of every status showed first
	// (read or counted): one the mark is raised over below it is not new (issue 63: 44 messages
	// of a bulk send were counted twice, and every full reading after found the counts apart).
	picture.marks.newest = Math.max(picture.marks.newest, newestOf(await lists.first('ALL')));
	const pages = findings.toEmit.length ? RAISE_PAGES.emitting : RAISE_PAGES.quiet;
	await raiseMark(search, window.now, pages);
	if (countsFrom !== undefined && countsFrom !== startDate && ended.end === 'clean') {
		await newWindow(picture, new Lists(source, watch.query), watch.startDay);
	}
	return findings.toEmit;
}

/** The highest id on a page (0 for an empty one). */
function newestOf(page: Page): number {
	return page.records.reduce((highest, record) => Math.max(highest, Number(record.id)), 0);
}

/** The messages to emit, oldest first (a stable sort: one message's statuses keep their order). */
function emitted(toEmit: IDataObject[]): INodeExecutionData[][] | null {
	if (toEmit.length === 0) return null;
	toEmit.sort((a, b) => Number(a.id) - Number(b.id));
	return [toEmit.map((json) => ({ json: maskedSmsRecord(json) }))];
}
