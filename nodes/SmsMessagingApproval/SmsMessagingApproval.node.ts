// The SMS Messaging Approval node: sends each item's SMS with a link, then waits for the answer.
import {
	WAIT_INDEFINITELY,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { maskApprovalCodes } from '../shared/approvalLink';
import { MAIN_CONNECTION, SMS_ICON } from '../shared/n8n/descriptions';
import { errorItem, nodeError } from '../shared/requests/errors';
import {
	executionNodeContext,
	outputOnTimeLimit,
	waitingNodeContext,
} from '../shared/n8n/n8nInternals';
import { answerRequest } from './answer';
import { ANSWER_WEBHOOKS, approvalProperties, ONE_SMS_PER_ITEM_HINT } from './description';
import { readForm, type AnswerForm } from './form/form';
import { sendWithLinks } from './sendRequests';
import { isWait } from './waitKey';
import { limitEnd, readTimeLimit } from './waitTime';

/** Where the node keeps its wait in the execution's node context. */
const WAIT_FIELD = 'approvalWait';

/**
 * What the node outputs when the time limit passes before an answer (docs/approval.md): never an
 * approval, and no form's answer.
 */
const timedOut = (form: AnswerForm): INodeExecutionData => ({
	json: { data: form.kind === 'approval' ? { approved: false } : {}, timedOut: true },
});

export class SmsMessagingApproval implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'SMS Messaging Approval',
		name: 'smsMessagingApproval',
		icon: SMS_ICON,
		group: ['output'],
		version: 1,
		subtitle: 'One SMS per item, then wait for the first answer',
		description:
			'Send an SMS with a link and wait until the recipient approves or declines, types an answer or fills in a form on the page behind it',
		defaults: { name: 'SMS Messaging Approval' },
		usableAsTool: true,
		inputs: [MAIN_CONNECTION],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		// n8n's own waiting webhooks (restartWebhook): nothing is registered with a third party.
		webhooks: ANSWER_WEBHOOKS,
		properties: approvalProperties,
		// n8n's editor says of any `sendAndWait` operation with several input items "This action
		// will run only once, for the first input item": true of n8n's own, not of this node.
		hints: [ONE_SMS_PER_ITEM_HINT],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		try {
			// Everything that can refuse the run is read before the SMS go out.
			const limit = readTimeLimit.call(this);
			const form = readForm.call(this);
			const wait = await sendWithLinks.call(this, form);
			wait.until = limitEnd(limit);
			// The answer's webhook reads the wait from the waiting execution's data.
			executionNodeContext(this)[WAIT_FIELD] = wait;
			outputOnTimeLimit(this, [timedOut(form)]);
			await this.putExecutionToWait(
				wait.until === undefined ? WAIT_INDEFINITELY : new Date(wait.until),
			);
			return [items];
		} catch (caught) {
			const error = nodeError(this.getNode(), caught, 0);
			// An error that quotes what went out (an unknown outcome's envelopes) keeps no link that answers.
			error.message = maskApprovalCodes(error.message);
			if (typeof error.description === 'string') {
				error.description = maskApprovalCodes(error.description);
			}
			if (!this.continueOnFail()) throw error;
			// Nothing waits: every item comes out as the error, paired.
			return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
		}
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const stored = waitingNodeContext(this)?.[WAIT_FIELD];
		return await answerRequest.call(this, isWait(stored) ? stored : undefined);
	}
}
