import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { signedResumeUrl, unsignedResumeUrl } from '../shared/n8nInternals';
import { sendInOneRequest } from '../shared/send';

/**
 * The link to the page where the recipient answers: n8n's signed resume URL where n8n has one, so
 * that n8n itself refuses a link that was not made for this execution and node. Older n8n 1.x
 * lines have no signature; their link is the execution's resume URL and the node's id.
 */
export function answerLink(this: IExecuteFunctions): string {
	return signedResumeUrl(this) ?? unsignedResumeUrl(this);
}

/**
 * Sends every input item's message with the link after it, in one request, through Send's own
 * checks, request and outcome rules. Anything short of every message provably sent throws (the
 * run error says which items went out): nothing may wait for an answer to an SMS that may not exist.
 */
export async function sendWithLink(this: IExecuteFunctions, link: string): Promise<void> {
	const node = this.getNode();
	await sendInOneRequest.call(this, (envelopes) => {
		const senderIds = [...new Set(envelopes.map(({ senderId }) => senderId))];
		if (senderIds.length > 1) {
			throw new NodeOperationError(
				node,
				`All messages of one approval go out in one request, so they need one Sender ID; the items use ${senderIds.map((id) => JSON.stringify(id)).join(', ')}`,
				{ description: 'Nothing was sent.', itemIndex: 0, level: 'warning' },
			);
		}
		for (const { envelope } of envelopes) envelope.message = `${envelope.message}\n${link}`;
	});
}
