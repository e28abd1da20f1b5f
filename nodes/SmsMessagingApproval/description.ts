// The approval node's parameters: message, response type, approval options, wait time limit.
import {
	SEND_AND_WAIT_OPERATION,
	type INodeProperties,
	type IWebhookDescription,
	type NodeHint,
} from 'n8n-workflow';

import { messageField, recipientNumberField, senderIdField } from '../shared/n8n/messageFields';
import { formOptions, formProperties } from './formDescription';

export const approvalProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Send and Wait for Response',
				// n8n 2.x offers a node with webhooks and this operation to AI agents as a Human review tool.
				value: SEND_AND_WAIT_OPERATION,
				action: 'Send an SMS and wait for a response',
				description:
					'Send one SMS per input item, each with a link to a page where the recipient approves (or declines), types an answer or fills in a form; the workflow waits for the first answer',
			},
		],
		default: SEND_AND_WAIT_OPERATION,
	},
	{
		displayName:
			'One SMS to each input item, all in one request; the first answer of any recipient resumes the workflow, once. n8n\'s note on several items, "This action will run only once, for the first input item", means here: it waits once, and every item gets its SMS (for one SMS only, turn on Execute Once in Settings). Each SMS ends with the recipient\'s own link, about 184 characters: at least 2 SMS parts.',
		name: 'approvalNotice',
		type: 'notice',
		default: '',
	},
	senderIdField,
	recipientNumberField,
	{
		...messageField,
		description:
			"Text for this recipient, read from each item; the link to the answer page is added after it on a new line. Each recipient's page shows their own message.",
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'approval',
		options: [
			{
				name: 'Approval',
				value: 'approval',
				description: 'The recipient approves (or declines) on the page behind the link',
			},
			{
				name: 'Free Text',
				value: 'freeText',
				description: 'The recipient types an answer on the page; it comes out as data.text',
			},
			{
				name: 'Custom Form',
				value: 'customForm',
				description:
					"The recipient fills in a form of your fields; each answer comes out under its field's label",
			},
		],
	},
	...formProperties,
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { responseType: ['approval'] } },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						default: 'single',
						options: [
							{ name: 'Approve Only', value: 'single' },
							{ name: 'Approve and Decline', value: 'double' },
						],
					},
					{
						displayName: 'Approve Button Label',
						name: 'approveLabel',
						type: 'string',
						default: 'Approve',
					},
					{
						displayName: 'Decline Button Label',
						name: 'disapproveLabel',
						type: 'string',
						default: 'Decline',
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Limit Wait Time',
				name: 'limitWaitTime',
				type: 'fixedCollection',
				description:
					'Whether to stop waiting after a time, counted from when the SMS went out. The node then outputs one item, { "data": { "approved": false }, "timedOut": true } (Free Text and Custom Form: "data": {}), whatever its input held; an answer after it is refused.',
				default: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' },
				},
				options: [
					{
						displayName: 'Values',
						name: 'values',
						values: [
							{
								displayName: 'Limit Type',
								name: 'limitType',
								type: 'options',
								default: 'afterTimeInterval',
								description: 'Whether to wait for a time interval or until a date and time',
								options: [
									{ name: 'After Time Interval', value: 'afterTimeInterval' },
									{ name: 'At Specified Time', value: 'atSpecifiedTime' },
								],
							},
							{
								displayName: 'Amount',
								name: 'resumeAmount',
								type: 'number',
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
								typeOptions: { minValue: 0, numberPrecision: 2 },
								default: 1,
								description: 'The time to wait',
							},
							{
								displayName: 'Unit',
								name: 'resumeUnit',
								type: 'options',
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
								options: [
									{ name: 'Minutes', value: 'minutes' },
									{ name: 'Hours', value: 'hours' },
									{ name: 'Days', value: 'days' },
								],
								default: 'hours',
								description: 'Unit of the interval value',
							},
							{
								displayName: 'Max Date and Time',
								name: 'maxDateAndTime',
								type: 'dateTime',
								displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
								default: '',
								description: 'Continue execution after the specified date and time',
							},
						],
					},
				],
			},
			...formOptions,
		],
	},
];

/**
 * The waiting execution's webhooks, at `<webhook-waiting base>/<execution id>/<node id>`: GET shows
 * the page (whatever its query), a POST of the page's form records the answer. `restartWebhook` makes them n8n's own
 * waiting webhooks, which resume the execution with what `webhook()` returns: nothing is
 * registered with a third party.
 */
const answerWebhook = (httpMethod: 'GET' | 'POST'): IWebhookDescription => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
});

export const ANSWER_WEBHOOKS = [answerWebhook('GET'), answerWebhook('POST')];

/**
 * Shown in the output pane, beside n8n's own note for any `sendAndWait` operation with several
 * input items ("This action will run only once, for the first input item"), which is not what
 * this node does.
 */
export const ONE_SMS_PER_ITEM_HINT: NodeHint = {
	message:
		'This node sends one SMS to each input item (unless Execute Once is on in its Settings), not only to the first: every recipient gets a link of their own, and the first answer of any of them resumes the workflow, once.',
	type: 'info',
	location: 'outputPane',
	whenToDisplay: 'always',
	displayCondition: '={{ $input.all().length > 1 }}',
};
