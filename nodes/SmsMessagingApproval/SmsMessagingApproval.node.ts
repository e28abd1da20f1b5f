import {
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { MAIN_CONNECTION, SMS_ICON } from '../shared/descriptions';
import { errorItem, nodeError } from '../shared/errors';
import { ANSWER_WEBHOOKS, approvalProperties } from './description';
import { choicePage, recordedPage, type Choices } from './page';
import { answerLink, sendWithLink } from './sendRequests';
import { waitTill } from './waitTime';

function readChoices(this: IWebhookFunctions): Choices {
	const values = this.getNodeParameter('approvalOptions.values', {}) as IDataObject;
	const approveLabel = String(values.approveLabel || 'Approve');
	if (values.approvalType !== 'double') return { approveLabel };
	return { approveLabel, disapproveLabel: String(values.disapproveLabel || 'Decline') };
}

/** The message the page shows: the first item's, as the SMS carried it (without the link). */
function pageMessage(this: IWebhookFunctions): string {
	try {
		return String(this.getNodeParameter('message', ''));
	} catch {
		// An expression that only the execution could resolve (an AI tool's $tool, say).
		return '';
	}
}

export class SmsMessagingApproval implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'SMS Messaging Approval',
		name: 'smsMessagingApproval',
		icon: SMS_ICON,
		group: ['output'],
		version: 1,
		subtitle: 'Send and wait for approval',
		description:
			'Send an SMS with a link and wait until the recipient approves (or declines) on the page behind it',
		defaults: { name: 'SMS Messaging Approval' },
		usableAsTool: true,
		inputs: [MAIN_CONNECTION],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		// n8n's own waiting webhooks (restartWebhook): nothing is registered with a third party.
		webhooks: ANSWER_WEBHOOKS,
		properties: approvalProperties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		try {
			// Everything that can refuse the run is read before the SMS go out.
			const until = waitTill.call(this);
			await sendWithLink.call(this, answerLink.call(this));
			await this.putExecutionToWait(until);
			return [items];
		} catch (caught) {
			const error = nodeError(this.getNode(), caught, 0);
			if (!this.continueOnFail()) throw error;
			// Nothing waits: every item comes out as the error, paired.
			return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
		}
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const response = this.getResponseObject();
		const choices = readChoices.call(this);
		const given = request.method === 'POST' ? this.getBodyData().approved : request.query.approved;
		const offered = choices.disapproveLabel === undefined ? ['true'] : ['true', 'false'];
		response.setHeader('Cache-Control', 'no-store');
		response.setHeader('Referrer-Policy', 'no-referrer');
		response.type('html');
		if (typeof given !== 'string' || !offered.includes(given)) {
			// No choice (the page itself) or one the page does not offer: nothing is recorded.
			const status = request.method === 'POST' || given !== undefined ? 400 : 200;
			response.status(status).send(choicePage(pageMessage.call(this), choices));
			return { noWebhookResponse: true };
		}
		const approved = given === 'true';
		response
			.status(200)
			.send(recordedPage(approved ? choices.approveLabel : choices.disapproveLabel!));
		return { noWebhookResponse: true, workflowData: [[{ json: { data: { approved } } }]] };
	}
}
