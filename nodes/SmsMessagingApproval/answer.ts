// What happens when a recipient opens their link or posts its page: the webhook's answer.
import type {
	IBinaryKeyData,
	IDataObject,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { LINK_PARAMETER } from '../shared/approvalLink';
import { checkAnswer, inputName } from './form/checks';
import { postedFiles, storeFiles } from './form/files';
import type { FieldsForm } from './form/form';
import { formPage } from './form/formPage';
import { pageHeaders } from './form/headers';
import {
	alreadyAnsweredPage,
	choicePage,
	expiredPage,
	recordedPage,
	refusedPage,
} from './form/page';
import {
	claimAnswer,
	countRefusedFiles,
	hasExpired,
	recipientOf,
	takesFiles,
	type Wait,
} from './waitKey';

type Outcome = { status: number; html: string; data?: IDataObject; binary?: IBinaryKeyData };

const isMultipart = (context: IWebhookFunctions) =>
	/^multipart\/form-data\b/i.test(String(context.getHeaderData()['content-type'] ?? ''));

/**
 * The fields a POST of the page's form gave. n8n (1.82 to 2.41) hands a multipart body over as
 * `{ data: fields, files }`, one value unwrapped from its list; a urlencoded one (pages served
 * before this package posted multipart) as the fields themselves.
 */
function postedFields(this: IWebhookFunctions): IDataObject {
	const body = this.getBodyData();
	if (!isMultipart(this)) return body;
	const { data } = body;
	return data && typeof data === 'object' && !Array.isArray(data) ? (data as IDataObject) : {};
}

/** The approval page, or what a POST of one of its buttons records. */
function approvalOutcome(
	wait: Wait,
	recipient: number,
	method: string,
	body: IDataObject,
): Outcome {
	const message = wait.messages[recipient];
	const form = wait.form as Extract<Wait['form'], { kind: 'approval' }>;
	if (method !== 'POST') return { status: 200, html: choicePage(message, form) };
	const offered = form.disapproveLabel === undefined ? ['true'] : ['true', 'false'];
	if (typeof body.approved !== 'string' || !offered.includes(body.approved)) {
		return { status: 400, html: choicePage(message, form) };
	}
	const approved = body.approved === 'true';
	const label = approved ? form.approveLabel : form.disapproveLabel!;
	return { status: 200, html: recordedPage(label), data: { approved } };
}

/** What a link that takes no more files is told under each file field it sent one to. */
const NO_MORE_FILES =
	'Nothing was stored: this link sent files that were not what they said too often, and takes no more files. Ask the sender for a new link.';

/**
 * What a POST of a form records: every field checked as the page promises, each file stored and
 * its content checked; a refused answer gets the page back with each wrong field named and the
 * rest as given, and records nothing. A link that sent files refused for their content too often
 * stores no more (waitKey.ts, takesFiles).
 */
async function formOutcome(
	this: IWebhookFunctions,
	wait: Wait,
	recipient: number,
	body: IDataObject,
): Promise<Outcome> {
	const form = wait.form as FieldsForm;
	const message = wait.messages[recipient];
	const files = isMultipart(this) ? this.getBodyData().files : undefined;
	const filesOf = (name: string) => postedFiles(files, name);
	const checked = checkAnswer(form, body, filesOf);
	if (!checked.ok) {
		const { given, problems, cut } = checked;
		return { status: 400, html: formPage(form, message, given, problems, cut) };
	}
	const sent = form.fields.map(
		(field, at) => field.type === 'file' && filesOf(inputName(at)).length > 0,
	);
	if (sent.includes(true) && !takesFiles(wait, recipient)) {
		const problems = sent.map((each) => (each ? NO_MORE_FILES : undefined));
		return { status: 429, html: formPage(form, message, checked.given, problems) };
	}
	const { binary, problems, values } = await storeFiles.call(this, form.fields, (position) =>
		filesOf(inputName(position)),
	);
	if (problems.some((problem) => problem !== undefined)) {
		countRefusedFiles(wait, recipient);
		return { status: 400, html: formPage(form, message, checked.given, problems) };
	}
	// A file field's value as stored: the type its content is, the name it is stored under.
	for (const [position, value] of values) {
		Object.defineProperty(checked.data, form.fields[position].label, {
			value,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	const hasBinary = Object.keys(binary).length > 0;
	return {
		status: 200,
		html: recordedPage(),
		data: checked.data,
		...(hasBinary ? { binary } : {}),
	};
}

/** The page for one recipient, or what a POST of it records. */
async function handle(
	this: IWebhookFunctions,
	wait: Wait,
	recipient: number,
	method: string,
): Promise<Outcome> {
	// Only a POST of the page's form records: a GET (a link preview, a scanner) only shows the page.
	const body = method === 'POST' ? postedFields.call(this) : {};
	if (wait.form.kind === 'approval') return approvalOutcome(wait, recipient, method, body);
	if (method !== 'POST')
		return { status: 200, html: formPage(wait.form, wait.messages[recipient]) };
	return await formOutcome.call(this, wait, recipient, body);
}

/**
 * A request to a recipient's link: the link checked first (403), then the time limit (410), then
 * the page or the answer; the first answer that passes resumes the execution. Every page goes out
 * with the headers of headers.ts.
 */
export async function answerRequest(
	this: IWebhookFunctions,
	stored: Wait | undefined,
): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const response = this.getResponseObject();
	// Every page of a wait goes out with its form's policy; the refused page with none.
	const done = (status: number, html: string, form?: Wait['form']): IWebhookResponseData => {
		for (const [name, value] of Object.entries(pageHeaders(form))) response.setHeader(name, value);
		response.type('html');
		response.status(status).send(html);
		return { noWebhookResponse: true };
	};
	const recipient = stored && recipientOf(stored, request.query[LINK_PARAMETER]);
	if (stored === undefined || recipient === undefined) return done(403, refusedPage());
	const { form } = stored;
	// Checked when the link is opened: n8n's wait tracker resumes the execution up to a minute after the limit.
	if (hasExpired(stored)) return done(410, expiredPage(), form);
	const outcome = await handle.call(this, stored, recipient, request.method);
	if (outcome.data === undefined) return done(outcome.status, outcome.html, form);
	// Checked again after the files were stored: the limit may have passed meanwhile.
	if (hasExpired(stored)) return done(410, expiredPage(), form);
	if (!claimAnswer(stored)) return done(409, alreadyAnsweredPage(), form);
	done(outcome.status, outcome.html, form);
	const answer = { data: outcome.data, answeredBy: stored.numbers[recipient] };
	const item = outcome.binary ? { json: answer, binary: outcome.binary } : { json: answer };
	return { noWebhookResponse: true, workflowData: [[item]] };
}
