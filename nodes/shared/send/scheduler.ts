import { sleep } from 'n8n-workflow';

import type { Envelope } from '../envelopes';
import { RetryGate, type RequestControl } from '../transport';
import type { SendOptions } from './options';
import type { RequestResult } from './request';

export interface RequestReport extends RequestResult {
	/** The request's number in the run, from 1. */
	request: number;
	batch: Envelope[];
}

/**
 * Sends the batches, `options.parallelRequests` at a time after the first, which goes alone (a
 * wrong token, Sender ID or balance then fails one request, not several). Requests start in batch
 * order and at least `batchInterval` apart. With After a Failed Request = Stop, no request starts
 * once one has failed for good: those in flight finish and are reported, the others are not
 * attempted. A 429 or 503 on any request holds back all of them (one gate for the run).
 */
export async function sendAll(
	batches: Envelope[][],
	sendOne: (batch: Envelope[], control: RequestControl) => Promise<RequestResult | undefined>,
	options: Pick<SendOptions, 'onRequestFailure' | 'parallelRequests'>,
	batchInterval: number,
	onReport: (report: RequestReport) => void,
): Promise<{ reports: RequestReport[]; notAttempted: Envelope[] }> {
	const reports: RequestReport[] = [];
	const notAttempted: Envelope[] = [];
	let stopped = false;
	const control: RequestControl = { gate: new RetryGate(), stopped: () => stopped };
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
				failure: { outcome: 'unknown', message: `Delivery unknown: ${reason}` },
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
	const workers = Math.min(options.parallelRequests, batches.length - next);
	await Promise.all(Array.from({ length: workers }, worker));
	for (const batch of batches.slice(next))
		for (const envelope of batch) notAttempted.push(envelope);
	// Reports in request order; the indexes of requests that never went out are holes.
	return { reports: reports.filter(Boolean), notAttempted };
}
