import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';

import { contactDescription, getAll as getManyContacts } from './resources/contact';
import { senderIdDescription } from './resources/senderId';
import { getAll as getManySms, send, smsDescription } from './resources/sms';

export class SmsMessaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'SMS Messaging',
		name: 'smsMessaging',
		icon: { light: 'file:../../icons/sms.svg', dark: 'file:../../icons/sms.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Send SMS through the Messaging Service API, register Sender IDs, and list sent messages and contacts',
		defaults: { name: 'SMS Messaging' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		hints: [
			{
				message:
					'A Sender ID with status PENDING cannot send yet: the service reviews it first, which takes 1 to 3 business weeks, and notifies you on approval.',
				type: 'info',
				location: 'outputPane',
				whenToDisplay: 'afterExecution',
				displayCondition: '={{ $parameter["resource"] === "senderId" }}',
			},
		],
		requestDefaults: {
			baseURL: '={{ $credentials.baseUrl }}',
			headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
			// Error statuses reach unwrapResponse, which turns the API's error body into the message.
			ignoreHttpStatusErrors: true,
		},
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Contact', value: 'contact' },
					{ name: 'Sender ID', value: 'senderId' },
					{ name: 'SMS', value: 'sms' },
				],
				default: 'sms',
			},
			...senderIdDescription,
			...smsDescription,
			...contactDescription,
		],
	};

	// Where routing cannot express the behaviour: Send batches items into envelopes, and Get Many
	// adds a hint to the output when the Limit cut a list short, which only an execute context can.
	customOperations = {
		sms: { send, getAll: getManySms },
		contact: { getAll: getManyContacts },
	};
}
