// Looking up in the SMS list the messages of a run whose outcome is unknown.

import type { IExecuteFunctions } from 'n8n-workflow';

import type { Envelope } from './envelopes';
import { repeatedPagesError } from '../lists/list';
import type { FoundMessage, SentMessage } from '../lists/matching';
import { findSentMessages } from '../lists/sentMessages';
import { apiZoneOf } from '../input/apiTime';
import { CLOCK_MARGIN_MS } from '../lists/sentWindow';
import { smsListReader } from '../lists/smsListReader';
import { runLimiter } from '../requests/limiter';
import { apiCredentials, RunProgress } from '../requests/transport';
import type { RequestSettings } from '../requests/requestOptions';

/**
 * A message of the run the API accepted, with the id of its outgoing record, or of its SMS record
 * when an earlier look found it in the list (`listed`).
 */
export interface SentOfRun {
	envelope: Envelope;
	id: unknown;
	listed: boolean;
	/** When Send saw the API accept it (n8n's clock, ms), when its answer said so. */
	acceptedAt?: number;
}

/** A message of the run the API accepted, as the SMS list lookup looks for it. */
function sentMessage({ envelope, id, listed, acceptedAt }: SentOfRun, since: number): SentMessage {
	const known = typeof id === 'number' || typeof id === 'string' ? id : undefined;
	return {
		recipient: envelope.envelope.number,
		text: envelope.envelope.message,
		...(listed ? { recordId: known } : { messageId: known }),
		since,
		...(acceptedAt === undefined ? {} : { sentAt: acceptedAt }),
	};
}

/**
 * Looks up, in the SMS list, messages whose send had an unknown outcome, with `findSentMessages`
 * (recipient after Send's normalisation and text as a service may store it, never one record for
 * two messages). Only records sent since `runStartedAt` (when the first try that may have sent
 * them started, less `CLOCK_MARGIN_MS`) count, and the run's sent messages with the same number
 * and text take their records first (they are known to be in the list: by id where Send's ids
 * are the list's, else the most recent ones), so that no sent message is another one's proof: a
 * message of unknown outcome is found only when the list holds more matching records than they
 * took. Times without an offset are read in the zone the run's sent messages show (their records'
 * `sentAt` against when Send saw them accepted), else in the credential's API Time Zone; where the
 * list's times contradict that setting, nothing is proven (`FoundMessage.future`). Gives each
 * envelope what the list gave it; throws when the list cannot be read.
 * Reads as many pages at once as the run's Requests in Parallel allows (1: one at a time), Auto
 * with the credential's other runs.
 */
export async function lookUpSent(
	this: IExecuteFunctions,
	envelopes: Envelope[],
	{
		runStartedAt,
		sent,
		settings,
		parallelRequests,
	}: {
		runStartedAt: number;
		sent: SentOfRun[];
		settings: RequestSettings;
		/** Send's Requests in Parallel: 0 is Auto. */
		parallelRequests: number;
	},
): Promise<FoundMessage[]> {
	const credentials = await apiCredentials(this);
	const zone = apiZoneOf(this.getNode(), credentials);
	const since = runStartedAt - CLOCK_MARGIN_MS;
	const limiter = runLimiter(parallelRequests, credentials.baseUrl, credentials.apiToken);
	const readPage = smsListReader.call(this, credentials, {
		request: settings.request,
		control: { gate: limiter, run: new RunProgress() },
	});
	const key = ({ envelope }: Envelope) => JSON.stringify([envelope.number, envelope.message]);
	const keys = new Set(envelopes.map(key));
	const sentAlike = sent.filter(({ envelope }) => keys.has(key(envelope)));
	const wanted = [
		...sentAlike.map((message) => sentMessage(message, since)),
		...envelopes.map(({ envelope }) => ({
			recipient: envelope.number,
			text: envelope.message,
			since,
		})),
	];
	const records = await findSentMessages(wanted, {
		readPage,
		parallel: () => limiter.window,
		repeated: repeatedPagesError(this.getNode(), 'the outcome stays unknown'),
		anchors: sent
			.filter((message) => !sentAlike.includes(message))
			.map((m) => sentMessage(m, since)),
		zone,
	});
	return records.slice(sentAlike.length);
}
