// A run's requests: the first alone, then the others in parallel, in batch order, until stopped.

import { sleep } from 'n8n-workflow';

import type { Envelope } from './envelopes';
import { runLimiter } from '../requests/limiter';
import { RunProgress, type RequestControl } from '../requests/transport';
import type { SendOptions } from './options';
import type { RequestResult } from './request';

export interface RequestReport extends RequestResult {
	/** The request's number in the run, from 1. */
	request: number;
	batch: Envelope[];
}

/**
 * Sends the batches: the first alone (a wrong token, Sender ID or balance then fails one request,
 * not several), then the others as many at a time as `options.parallelRequests` says: a number
 * fixes it, 0 (Auto) leaves it to the credential's shared limiter
 * (nodes/shared/requests/limiter.ts). Requests start in batch order and at least `batchInterval`
 * apart. With After a Failed Request = Stop, no request starts once one has failed for good: those
 * in flight finish and are reported, the others are not attempted. A 429 or 503 that is waited out
 * (its Retry-After, or a backoff) holds back all of them meanwhile
 * (nodes/shared/requests/transport.ts).
 */
export async function sendAll(
	batches: Envelope[][],
	sendOne: (batch: Envelope[], control: RequestControl) => Promise<RequestResult | undefined>,
	options: Pick<SendOptions, 'onRequestFailure' | 'parallelRequests'>,
	batchInterval: number,
	onReport: (report: RequestReport) => void,
	{ sendBaseUrl, apiToken }: { sendBaseUrl: string; apiToken: string },
): Promise<{ reports: RequestReport[]; notAttempted: Envelope[] }> {
	const reports: RequestReport[] = [];
	const notAttempted: Envelope[] = [];
	let stopped = false;
	const limiter = runLimiter(options.parallelRequests, sendBaseUrl, apiToken);
	const control: RequestControl = { gate: limiter, stopped: () => stopped, run: new RunProgress() };
	let nextStart = 0;
	const send = async (index: number) => {
		if (batchInterval > 0) {
			// Batch Interval spaces the starts of requests, whatever runs in parallel.
			const now = Date.now();
			const at = Math.max(now, nextStart);
			nextStart = at + batchInterval;
			if (at > now) await sleep(at - now);
		}
		const batch = batches[index];
		let result: RequestResult | undefined;
		try {
			result = await sendOne(batch, control);
		} catch (caught) {
			// Whatever went wrong, the request may have gone out: never a reason to send it again.
			const reason = caught instanceof Error ? caught.message : String(caught);
			result = {
				sent: batch.map(() => undefined),
				failure: { outcome: 'unknown', message: `May have been sent: ${reason}` },
			};
		}
		if (!result) {
			for (const envelope of batch) notAttempted.push(envelope);
			return;
		}
		reports[index] = { request: index + 1, batch, ...result };
		onReport(reports[index]);
		if (result.failure && options.onRequestFailure === 'stop') stopped = true;
	};
	let next = 0;
	const worker = async () => {
		while (!stopped && next < batches.length) await send(next++);
	};
	if (batches.length > 0) await send(next++);
	// As many workers as the window may ever hold: the limiter decides how many send at once.
	const workers = Math.min(limiter.cap, batches.length - next);
	await Promise.all(Array.from({ length: workers }, worker));
	for (const batch of batches.slice(next))
		for (const envelope of batch) notAttempted.push(envelope);
	// Reports in request order; the indexes of requests that never went out are holes.
	return { reports: reports.filter(Boolean), notAttempted };
}
