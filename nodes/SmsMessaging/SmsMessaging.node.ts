// The SMS Messaging node: metadata, credential, request defaults and the Resource selector.
import type { INodeType, INodeTypeDescription } from 'n8n-workflow';

import { contactDescription } from './resources/contact';
import { senderIdDescription } from './resources/senderId';
import { getStatus, send, smsDescription } from './resources/sms';
import { MAIN_CONNECTION, SMS_ICON } from '../shared/n8n/descriptions';

export class SmsMessaging implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'SMS Messaging',
		name: 'smsMessaging',
		icon: SMS_ICON,
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		// What an AI model reads about this node when a user sets its tool description by hand
		// (n8n starts that field from here); n8n's automatic one is the action plus the node name.
		description:
			'Send SMS to phone numbers with country code (each message costs credits), check their delivery, register Sender IDs (a new one is PENDING and cannot send until approved, in 1 to 3 business weeks), and list sent messages with their delivery status, and contacts',
		defaults: { name: 'SMS Messaging' },
		// The object form, not `true`: n8n 1.82 to 1.84 make a tool only of `usableAsTool: true`, by
		// structuredClone, which the routing hooks (functions) cannot pass, and then n8n does not start.
		// There the node loads without its AI tool; from 1.85 on every form gives the tool.
		usableAsTool: { replacements: {} },
		inputs: [MAIN_CONNECTION],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		// Every operation but Send runs on n8n's routing, from these defaults and the routing of
		// its fields; the credential adds the header each endpoint authenticates with.
		requestDefaults: {
			baseURL: '={{ $credentials.baseUrl.trim().replace(/\\/+$/, "") }}',
			headers: { Accept: 'application/json' },
			json: true,
			// The answer of every status is read by the operations' postReceive (routing.ts).
			ignoreHttpStatusErrors: true,
		},
		// n8n evaluates a hint's displayCondition against the node's parameters and input, not its
		// output, so the hint cannot look for a PENDING item. Create is the operation whose every
		// result is PENDING (the spec: "PENDING after creation"); Update's result may be APPROVED.
		hints: [
			{
				message:
					'A new Sender ID is PENDING: it cannot send SMS until the service approves it, which takes 1 to 3 business weeks. You get a notification on approval.',
				type: 'info',
				location: 'outputPane',
				whenToDisplay: 'afterExecution',
				displayCondition:
					'={{ $parameter["resource"] === "senderId" && $parameter["operation"] === "create" }}',
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

	// Declarative where routing fits: Sender ID and both lists run on n8n's routing. Send and Get
	// Delivery Status are custom operations, because routing makes one request per item while Send
	// puts many items' envelopes into one request and Get Delivery Status looks many items up in
	// one read of the list.
	customOperations = {
		sms: { getStatus, send },
	};

	// No methods of its own, but present: n8n 1.82 gives a declarative node without `methods` a
	// routing `execute`, and its engine then refuses every node that has customOperations too.
	methods = {};
}
