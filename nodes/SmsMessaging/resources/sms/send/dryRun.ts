// SMS → Send's Dry Run: each item as it would go out, its SMS parts and estimated credits.

import type { INodeExecutionData } from 'n8n-workflow';

import type { Envelope } from '../../../../shared/send/envelopes';
import { estimateParts } from './smsParts';

/**
 * Dry Run: each envelope as it would go out (the number as sent, and as written where reading it
 * changed it), its encoding, SMS parts and estimated credits.
 */
export function dryRunItems(envelopes: Envelope[]): INodeExecutionData[] {
	const estimates = envelopes.map(({ envelope }) => estimateParts(envelope.message));
	const totalCredits = estimates.reduce((sum, { parts }) => sum + parts, 0);
	return envelopes.map(({ itemIndex, senderId, envelope, numberAsWritten }, k) => ({
		json: {
			dryRun: true,
			senderId,
			...envelope,
			...(numberAsWritten === undefined ? {} : { numberAsWritten }),
			encoding: estimates[k].encoding,
			characters: estimates[k].length,
			parts: estimates[k].parts,
			estimatedCredits: estimates[k].parts,
			totalMessages: envelopes.length,
			totalEstimatedCredits: totalCredits,
		},
		pairedItem: { item: itemIndex },
	}));
}
