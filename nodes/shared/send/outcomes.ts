// What became of each envelope of a run: sent, not sent, or unknown and looked up in the SMS list.

import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';

import type { Envelope } from './envelopes';
import { errorItem, joinLines } from '../requests/errors';
import { apiTime, hasOffset } from '../input/apiTime';
import type { FoundMessage } from '../lists/matching';
import { futureText, olderText, SET_API_TIME_ZONE } from '../lists/sentWindow';
import { lookUpSent, type SentOfRun } from './lookup';
import type { RunPlan } from './plan';
import { sendBatch, type Failure } from './request';
import { sendAll, type RequestReport } from './scheduler';

/**
 * What became of one envelope of the run: sent, with its output item; or not sent or unknown, with
 * why (`failure`) and where (`where`: its request, an earlier try, or not attempted).
 */
export type EnvelopeOutcome =
	| { outcome: 'sent'; item: INodeExecutionData }
	| {
			outcome: 'notSent' | 'unknown';
			failure: Omit<Failure, 'outcome'>;
			where: string;
			/** unknown: when the try that made the request started (ms), for the SMS list lookup. */
			triedAt?: number;
	  };

/** The `where` of the envelopes a stopped run did not attempt. */
export const NOT_ATTEMPTED_WHERE = 'not attempted';

const NOT_ATTEMPTED = {
	message: 'Not attempted: an earlier request of this run failed',
	description: 'Nothing of it was sent, so it can be sent again.',
};

/** The error item of one envelope that did not go out as sent; `outcome` says what happened. */
export function outcomeItem(
	node: INode,
	failure: Omit<Failure, 'outcome'>,
	{ itemIndex, envelope }: Envelope,
	outcome: string,
): INodeExecutionData {
	const details = {
		message: failure.message,
		description: joinLines(
			`Outcome: ${outcome}.`,
			failure.description,
			`Envelope: ${JSON.stringify(envelope)}`,
		),
		itemIndex,
	};
	const error = failure.httpCode
		? new NodeApiError(
				node,
				{ message: failure.message },
				{ ...details, httpCode: failure.httpCode },
			)
		: new NodeOperationError(node, failure.message, details);
	return errorItem(error, itemIndex);
}

/**
 * A message found in the SMS list after an unknown outcome, in the shape of Send's other items
 * (the outgoing record's fields, from the envelope and the list's record), so that what follows
 * Send reads it alike (SMS → Get Delivery Status reads `recipient`, `message`, `id` and `sentAt`).
 * The list's record is kept whole in `smsRecord`; `credits` and `balance` are not known.
 */
function foundItemJson({ senderId, envelope }: Envelope, record: IDataObject): JsonObject {
	return {
		id: record.id,
		senderId,
		recipient: envelope.number,
		message: envelope.message,
		status: record.status,
		sentAt: record.sentAt,
		...(envelope.thirdPartyRef === undefined ? {} : { thirdPartyRef: envelope.thirdPartyRef }),
		foundInSmsList: true,
		smsRecord: record,
	} as JsonObject;
}

/**
 * When Send looks in the SMS list again, after its first look, for messages whose outcome is
 * unknown and that it did not find (ms after the first look): an API lists a message some time
 * after it takes it, and a request that timed out met a slow API, which may take it later still.
 * When nothing comes, the run takes 8 s longer (and one reading of the list per look).
 */
const LOOK_AGAIN_AFTER_MS = [1_000, 2_000, 4_000, 8_000];

/**
 * Messages whose outcome is unknown are looked up in the SMS list, from when the try that sent
 * them started, at once and again at LOOK_AGAIN_AFTER_MS while any is not found: those found there
 * were sent (`foundItemJson`); the others stay unknown, with why. Never a reason to send anything
 * again.
 */
async function resolveUnknown(
	this: IExecuteFunctions,
	outcomes: Map<Envelope, EnvelopeOutcome>,
	runStartedAt: number,
	{ settings, parallelRequests }: { settings: RunPlan['settings']; parallelRequests: number },
): Promise<void> {
	const firstLook = Date.now();
	for (let look = 0; ; look++) {
		const unknown = [...outcomes].filter(([, entry]) => entry.outcome === 'unknown');
		if (unknown.length === 0) return;
		const wait = look === 0 ? 0 : firstLook + LOOK_AGAIN_AFTER_MS[look - 1] - Date.now();
		if (wait > 0) await sleep(wait);
		const last = look === LOOK_AGAIN_AFTER_MS.length;
		const thisLook = { settings, parallelRequests, last };
		if (!(await lookUp.call(this, outcomes, unknown, runStartedAt, thisLook))) return;
		if (last) return;
	}
}

/** The run's messages known to be sent, with the id of their record (`SentOfRun`). */
function sentOfRun(outcomes: Map<Envelope, EnvelopeOutcome>): SentOfRun[] {
	return [...outcomes].flatMap(([envelope, entry]): SentOfRun[] => {
		if (entry.outcome !== 'sent') return [];
		const { id, foundInSmsList, sentAt } = entry.item.json;
		const listed = foundInSmsList === true;
		// Send's own sentAt (with Z) is when it saw the API accept the message; the list's is not.
		const acceptedAt = !listed && hasOffset(sentAt) ? apiTime(sentAt) : undefined;
		return [{ envelope, id, listed, ...(acceptedAt === undefined ? {} : { acceptedAt }) }];
	});
}

/** Messages an earlier try may have sent count from when that try started. */
function earliestTry(unknown: Array<[Envelope, EnvelopeOutcome]>, runStartedAt: number): number {
	let since = runStartedAt;
	for (const [, entry] of unknown) {
		if (entry.outcome === 'unknown' && entry.triedAt !== undefined) {
			since = Math.min(since, entry.triedAt);
		}
	}
	return since;
}

/** Adds a line to the error description of a message that is not known to be sent. */
function addLine(entry: EnvelopeOutcome, line: string): void {
	if (entry.outcome === 'sent') return;
	entry.failure = {
		...entry.failure,
		description: joinLines(entry.failure.description, line),
	};
}

/**
 * One look in the SMS list for the `unknown` envelopes: those found enter `outcomes` as sent.
 * Gives false when the list could not be read (each message then says so); on the `last` look,
 * each message not found says so.
 */
async function lookUp(
	this: IExecuteFunctions,
	outcomes: Map<Envelope, EnvelopeOutcome>,
	unknown: Array<[Envelope, EnvelopeOutcome]>,
	runStartedAt: number,
	{
		settings,
		parallelRequests,
		last,
	}: { settings: RunPlan['settings']; parallelRequests: number; last: boolean },
): Promise<boolean> {
	const sent = sentOfRun(outcomes);
	const since = earliestTry(unknown, runStartedAt);
	let found: FoundMessage[];
	try {
		found = await lookUpSent.call(
			this,
			unknown.map(([envelope]) => envelope),
			{ runStartedAt: since, sent, settings, parallelRequests },
		);
	} catch (caught) {
		const why = `Not checked in the SMS list: ${(caught as Error).message}.`;
		for (const [, entry] of unknown) addLine(entry, why);
		return false;
	}
	// Times that contradict the credential's API Time Zone prove nothing, now or later.
	const { future, zone = 'UTC' } = found[0] ?? {};
	if (future) {
		const text = futureText(future, zone);
		const why = `Not checked in the SMS list: t${text.slice(1)} ${SET_API_TIME_ZONE}`;
		for (const [, entry] of unknown) addLine(entry, why);
		return false;
	}
	unknown.forEach(([envelope, entry], k) => {
		const { record, older } = found[k];
		if (record) {
			outcomes.set(envelope, {
				outcome: 'sent',
				item: { json: foundItemJson(envelope, record), pairedItem: { item: envelope.itemIndex } },
			});
		} else if (last) {
			addLine(
				entry,
				`Not found in the SMS list when this run looked it up (for 8 s); it may still appear there.${older ? olderText(older, zone) : ''}`,
			);
		}
	});
	return true;
}

/**
 * Sends the batches and enters every envelope's outcome in `outcomes`: sent (with its output item),
 * not sent, or unknown (may have been sent); the unknown ones are looked up in the SMS list.
 */
export async function sendEnvelopes(
	this: IExecuteFunctions,
	{ options, settings, credentials }: Pick<RunPlan, 'options' | 'settings' | 'credentials'>,
	batches: Envelope[][],
	outcomes: Map<Envelope, EnvelopeOutcome>,
): Promise<RequestReport[]> {
	const runStartedAt = Date.now();
	// Each request's outcome is entered as soon as it is known, so that whatever ends the run
	// later, what went out is in `outcomes`.
	const enter = ({ request, batch, sent, failure }: RequestReport) => {
		batch.forEach((envelope, k) => {
			const item = sent[k];
			if (item) outcomes.set(envelope, { outcome: 'sent', item });
			else if (failure) {
				const where = `request ${request} of ${batches.length}`;
				outcomes.set(envelope, {
					outcome: failure.outcome,
					failure,
					where,
					...(failure.outcome === 'unknown' ? { triedAt: runStartedAt } : {}),
				});
			}
		});
	};
	const { reports, notAttempted } = await sendAll(
		batches,
		(batch, control) => sendBatch.call(this, batch, credentials, options, settings, control),
		options,
		settings.batchInterval,
		enter,
		credentials,
	);
	for (const envelope of notAttempted) {
		outcomes.set(envelope, {
			outcome: 'notSent',
			failure: NOT_ATTEMPTED,
			where: NOT_ATTEMPTED_WHERE,
		});
	}
	await resolveUnknown.call(this, outcomes, runStartedAt, {
		settings,
		parallelRequests: options.parallelRequests,
	});
	return reports;
}
