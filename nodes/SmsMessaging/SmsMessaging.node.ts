import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';

import { contactDescription, getAll as getManyContacts } from './resources/contact';
import { create, senderIdDescription, update } from './resources/senderId';
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

	// Every operation is a custom operation, because declarative routing can express none of what
	// users need here: Send batches items into envelopes; every operation checks all items before
	// the first request (routing starts each item's request in turn, so a bad item k would not stop
	// items before it); and hints that depend on the answer (a PENDING Sender ID, a list cut short
	// by the Limit) need an execute context.
	customOperations = {
		senderId: { create, update },
		sms: { send, getAll: getManySms },
		contact: { getAll: getManyContacts },
	};
}
