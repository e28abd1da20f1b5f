import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import type { Envelope } from '../SmsMessaging/shared/envelopes';
import {
	planRun,
	runError,
	sendAndAccount,
	type Account,
} from '../SmsMessaging/resources/sms/send';

/** n8n 1.x checks a waiting execution's signature only once a node asked for it; 2.x always does. */
type SignatureOptIn = { setSignatureValidationRequired?: () => void };

/**
 * The link to the page where the recipient answers: n8n's signed resume URL where n8n has one, so
 * that n8n itself refuses a link that was not made for this execution and node. Older n8n 1.x
 * lines have no signature; their link is the execution's resume URL and the node's id.
 */
export function answerLink(this: IExecuteFunctions): string {
	if (typeof this.getSignedResumeUrl === 'function') {
		(this as IExecuteFunctions & SignatureOptIn).setSignatureValidationRequired?.();
		return this.getSignedResumeUrl();
	}
	const resumeUrl = this.evaluateExpression('{{ $execution.resumeUrl }}', 0) as string;
	return `${resumeUrl}/${encodeURIComponent(this.getNode().id)}`;
}

/**
 * Sends every input item's message with the link after it, in one request, through Send's own
 * checks, request and outcome rules. Anything short of every message provably sent throws (Send's
 * run error says which items went out): nothing may wait for an answer to an SMS that may not exist.
 */
export async function sendWithLink(this: IExecuteFunctions, link: string): Promise<void> {
	const node = this.getNode();
	// Without Continue On Fail, Send's checks refuse the whole run on the first bad item.
	const plan = await planRun.call(this, false);
	const { envelopes } = plan;
	const senderIds = [...new Set(envelopes.map(({ senderId }) => senderId))];
	if (senderIds.length > 1) {
		throw new NodeOperationError(
			node,
			`All messages of one approval go out in one request, so they need one Sender ID; the items use ${senderIds.map((id) => JSON.stringify(id)).join(', ')}`,
			{ description: 'Nothing was sent.', itemIndex: 0, level: 'warning' },
		);
	}
	for (const { envelope } of envelopes) envelope.message = `${envelope.message}\n${link}`;
	// One request, whatever Send's default batch size: one approval is one send.
	const batches = [envelopes];
	const accounts = new Map<Envelope, Account>();
	const reports = await sendAndAccount.call(this, plan, batches, accounts);
	if ([...accounts.values()].some(({ outcome }) => outcome !== 'sent')) {
		// The approval keeps no ledger: a retry sends its messages again, and the summary says so.
		throw runError(node, reports, accounts, [], batches.length, { retrySkipsSent: false });
	}
}
