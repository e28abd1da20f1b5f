import type { IExecuteFunctions } from 'n8n-workflow';

import type { Envelope } from '../envelopes';
import { sendAndAccount, type Account } from './account';
import { planRun } from './plan';
import { runError } from './runError';

// Sending messages, for every node of the package: the plan (every item checked before the first
// request), the request of one batch, the scheduler of the run's requests, the account of every
// envelope's outcome and the run's error. SMS → Send builds on the parts (it adds Continue On
// Fail, the dry run and its ledger); other nodes send through `sendInOneRequest`.

export { outcomeItem, sendAndAccount, type Account } from './account';
export { planRun, type RunPlan } from './plan';
export { runError } from './runError';

/**
 * Sends every input item's message in one request, through Send's checks, request and outcome
 * rules. `prepare` sees the checked envelopes before anything is sent: it may refuse them (by
 * throwing) or change their text. Anything short of every message provably sent throws, and the
 * error says which items went out. No ledger is kept: running the node again sends again.
 */
export async function sendInOneRequest(
	this: IExecuteFunctions,
	prepare: (envelopes: Envelope[]) => void,
): Promise<void> {
	// Without Continue On Fail, the checks refuse the whole run on the first bad item.
	const plan = await planRun.call(this, false);
	prepare(plan.envelopes);
	const batches = [plan.envelopes];
	const accounts = new Map<Envelope, Account>();
	const reports = await sendAndAccount.call(this, plan, batches, accounts);
	if ([...accounts.values()].some(({ outcome }) => outcome !== 'sent')) {
		throw runError(this.getNode(), reports, accounts, [], batches.length, {
			retrySkipsSent: false,
		});
	}
}
