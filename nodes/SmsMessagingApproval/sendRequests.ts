// Sends the approval SMS, each with its recipient's link, in one request through Send's rules.
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { LINK_PARAMETER } from '../shared/approvalLink';
import { signedResumeUrl, unsignedResumeUrl } from '../shared/n8n/n8nInternals';
import { nothingSentError } from '../shared/input/validation';
import { apiCredentials } from '../shared/requests/transport';
import { sendInOneRequest } from '../shared/send';
import type { AnswerForm } from './form/form';
import { hostOf, refuseUnreachableLink } from './reachableLink';
import { linkValue, newWait, type Wait } from './waitKey';

/**
 * One recipient's link to the page where they answer: n8n's signed resume URL where n8n has one
 * (n8n itself then refuses a link that was not made for this execution and node), with the
 * recipient's own code in it, which the node checks itself on every line. n8n 1.82 has no signed
 * links; there the link is the execution's resume URL and the node's id, with the code.
 */
function answerLink(this: IExecuteFunctions, value: string): string {
	const parameters = { [LINK_PARAMETER]: value };
	const signed = signedResumeUrl(this, parameters);
	if (signed !== undefined) return signed;
	const link = new URL(unsignedResumeUrl(this));
	link.searchParams.set(LINK_PARAMETER, value);
	return link.toString();
}

/**
 * Each recipient's link, in envelope order. A webhook address n8n cannot read as a URL (a host no
 * browser takes, such as an IPv6 zone) fails n8n's own URL with a bare "Invalid URL": it is
 * refused instead, named, as no phone could open it.
 */
function linksOf(this: IExecuteFunctions, codes: string[], apiHost: string | undefined): string[] {
	try {
		return codes.map((code, recipient) => answerLink.call(this, linkValue(recipient, code)));
	} catch (error) {
		const { input } = error as { input?: unknown };
		if (typeof input === 'string') refuseUnreachableLink(this.getNode(), input, apiHost);
		throw new NodeOperationError(this.getNode(), error as Error);
	}
}

/**
 * Sends every input item's message with its recipient's own link after it, in one request,
 * through Send's own checks, request and outcome rules, and returns the wait the links answer.
 * Anything short of every message provably sent throws (the run error says which items went
 * out): nothing may wait for an answer to an SMS that may not exist.
 */
export async function sendWithLinks(this: IExecuteFunctions, form: AnswerForm): Promise<Wait> {
	const node = this.getNode();
	const apiHost = hostOf(String((await apiCredentials(this)).sendBaseUrl ?? ''));
	let wait: Wait | undefined;
	await sendInOneRequest.call(this, (envelopes) => {
		const senderIds = [...new Set(envelopes.map(({ senderId }) => senderId))];
		if (senderIds.length > 1) {
			throw nothingSentError(
				node,
				`All messages of one approval go out in one request, so they need one Sender ID; the items use ${senderIds.map((id) => JSON.stringify(id)).join(', ')}`,
			);
		}
		const numbers = envelopes.map(({ envelope }) => envelope.number);
		const made = newWait(
			numbers,
			envelopes.map(({ envelope }) => envelope.message),
			form,
		);
		const links = linksOf.call(this, made.codes, apiHost);
		if (links.length) refuseUnreachableLink(node, links[0], apiHost);
		envelopes.forEach(({ envelope }, recipient) => {
			envelope.message = `${envelope.message}\n${links[recipient]}`;
		});
		wait = made.wait;
	});
	return wait!;
}
