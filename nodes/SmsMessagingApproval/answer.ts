// What happens when a recipient opens their link or posts its page: the webhook's answer.
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { LINK_PARAMETER } from '../shared/approvalLink';
import { checkAnswer } from './form/checks';
import { formPage } from './form/formPage';
import { alreadyAnsweredPage, choicePage, expiredPage, recordedPage, refusedPage } from './form/page';
import { claimAnswer, hasExpired, recipientOf, type Wait } from './waitKey';

type Outcome = { status: number; html: string; data?: IDataObject };

/**
 * The fields a POST of the page's form gave. n8n (1.82 to 2.41) hands a multipart body over as
 * `{ data: fields, files }`, one value unwrapped from its list; a urlencoded one (pages served
 * before this package posted multipart) as the fields themselves.
 */
function postedFields(this: IWebhookFunctions): IDataObject {
	const body = this.getBodyData();
	const type = String(this.getHeaderData()['content-type'] ?? '');
	if (!/^multipart\/form-data\b/i.test(type)) return body;
	const { data } = body;
	return data && typeof data === 'object' && !Array.isArray(data) ? (data as IDataObject) : {};
}

/** The page for one recipient, or what a POST of it records. */
function handle(wait: Wait, recipient: number, method: string, body: IDataObject): Outcome {
	const message = wait.messages[recipient];
	const { form } = wait;
	// Only a POST of the page's form records: a GET (a link preview, a scanner) only shows the page.
	if (form.kind === 'approval') {
		if (method !== 'POST') return { status: 200, html: choicePage(message, form) };
		const offered = form.disapproveLabel === undefined ? ['true'] : ['true', 'false'];
		if (typeof body.approved !== 'string' || !offered.includes(body.approved)) {
			return { status: 400, html: choicePage(message, form) };
		}
		const approved = body.approved === 'true';
		const label = approved ? form.approveLabel : form.disapproveLabel!;
		return { status: 200, html: recordedPage(label), data: { approved } };
	}
	if (method !== 'POST') return { status: 200, html: formPage(form, message) };
	const checked = checkAnswer(form, body);
	if (!checked.ok) {
		return { status: 400, html: formPage(form, message, checked.given, checked.problems) };
	}
	return { status: 200, html: recordedPage(), data: checked.data };
}

/**
 * A request to a recipient's link: the link checked first (403), then the time limit (410), then
 * the page or the answer; the first answer that passes resumes the execution.
 */
export function answerRequest(
	this: IWebhookFunctions,
	stored: Wait | undefined,
): IWebhookResponseData {
	const request = this.getRequestObject();
	const response = this.getResponseObject();
	response.setHeader('Cache-Control', 'no-store');
	response.setHeader('Referrer-Policy', 'no-referrer');
	response.type('html');
	const done = (status: number, html: string): IWebhookResponseData => {
		response.status(status).send(html);
		return { noWebhookResponse: true };
	};
	const recipient = stored && recipientOf(stored, request.query[LINK_PARAMETER]);
	if (stored === undefined || recipient === undefined) return done(403, refusedPage());
	// Checked when the link is opened: n8n's wait tracker resumes the execution up to a minute after the limit.
	if (hasExpired(stored)) return done(410, expiredPage());
	const body = request.method === 'POST' ? postedFields.call(this) : {};
	const outcome = handle(stored, recipient, request.method, body);
	if (outcome.data === undefined) return done(outcome.status, outcome.html);
	if (!claimAnswer(stored)) return done(409, alreadyAnsweredPage());
	done(outcome.status, outcome.html);
	const answer = { data: outcome.data, answeredBy: stored.numbers[recipient] };
	return { noWebhookResponse: true, workflowData: [[{ json: answer }]] };
}
