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
import {
	executionNodeContext,
	outputOnTimeLimit,
	waitingNodeContext,
} from '../shared/n8nInternals';
import { ANSWER_WEBHOOKS, approvalProperties } from './description';
import { alreadyAnsweredPage, choicePage, recordedPage, refusedPage, type Choices } from './page';
import { sendWithLinks } from './sendRequests';
import { claimAnswer, isWait, LINK_PARAMETER, recipientOf } from './waitKey';
import { waitTill } from './waitTime';

/** Where the node keeps its wait in the execution's node context. */
const WAIT_FIELD = 'approvalWait';

/** What the node outputs when the time limit passes before an answer (docs/approval.md). */
const timedOut = (): INodeExecutionData => ({
	json: { data: { approved: false }, timedOut: true },
});

function readChoices(this: IExecuteFunctions): Choices {
	const values = this.getNodeParameter('approvalOptions.values', 0, {}) as IDataObject;
	const approveLabel = String(values.approveLabel || 'Approve');
	if (values.approvalType !== 'double') return { approveLabel };
	return { approveLabel, disapproveLabel: String(values.disapproveLabel || 'Decline') };
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
			const wait = await sendWithLinks.call(this, readChoices.call(this));
			// The answer's webhook reads the wait from the waiting execution's data.
			executionNodeContext(this)[WAIT_FIELD] = wait;
			outputOnTimeLimit(this, [timedOut()]);
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
		response.setHeader('Cache-Control', 'no-store');
		response.setHeader('Referrer-Policy', 'no-referrer');
		response.type('html');
		// The link must be one this wait sent: checked before anything else is read or recorded.
		const stored = waitingNodeContext(this)?.[WAIT_FIELD];
		const wait = isWait(stored) ? stored : undefined;
		const recipient = wait && recipientOf(wait, request.query[LINK_PARAMETER]);
		if (wait === undefined || recipient === undefined) {
			response.status(403).send(refusedPage());
			return { noWebhookResponse: true };
		}
		const given = request.method === 'POST' ? this.getBodyData().approved : request.query.approved;
		const offered = wait.disapproveLabel === undefined ? ['true'] : ['true', 'false'];
		if (typeof given !== 'string' || !offered.includes(given)) {
			// No choice (the page itself) or one the page does not offer: nothing is recorded.
			const status = request.method === 'POST' || given !== undefined ? 400 : 200;
			response.status(status).send(choicePage(wait.message, wait));
			return { noWebhookResponse: true };
		}
		if (!claimAnswer(wait)) {
			response.status(409).send(alreadyAnsweredPage());
			return { noWebhookResponse: true };
		}
		const approved = given === 'true';
		response.status(200).send(recordedPage(approved ? wait.approveLabel : wait.disapproveLabel!));
		const answer = { data: { approved }, answeredBy: wait.numbers[recipient] };
		return { noWebhookResponse: true, workflowData: [[{ json: answer }]] };
	}
}
