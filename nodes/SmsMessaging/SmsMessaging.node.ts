import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { contactDescription } from './resources/contact';
import { senderIdDescription } from './resources/senderId';
import { send, smsDescription } from './resources/sms';
import { MAIN_CONNECTION, SMS_ICON } from './shared/descriptions';

export class SmsMessaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'SMS Messaging',
		name: 'smsMessaging',
		icon: SMS_ICON,
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Send SMS through the Messaging Service API, register Sender IDs, and list sent messages and contacts',
		defaults: { name: 'SMS Messaging' },
		usableAsTool: true,
		inputs: [MAIN_CONNECTION],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		// Every operation but Send runs on n8n's routing, from these defaults and the routing of
		// its fields; the credential adds the header each endpoint authenticates with.
		requestDefaults: {
			baseURL: '={{ $credentials.baseUrl.replace(/\\/+$/, "") }}',
			headers: { Accept: 'application/json' },
			json: true,
			// The answer of every status is read by the operations' postReceive (shared/routing.ts).
			ignoreHttpStatusErrors: true,
		},
		hints: [
			{
				message:
					'A Sender ID whose status is PENDING cannot send SMS until the service approves it, which takes 1 to 3 business weeks. You get a notification on approval.',
				type: 'info',
				location: 'outputPane',
				whenToDisplay: 'afterExecution',
				displayCondition: '={{ $parameter["resource"] === "senderId" }}',
			},
		],
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

	// Declarative where routing fits: Sender ID and both lists run on n8n's routing. Send is the one
	// custom operation, because routing makes one request per item while Send puts many items'
	// envelopes into one request.
	customOperations = {
		sms: { send },
	};
}
