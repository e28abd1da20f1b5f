import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { unwrapData } from '../../shared/errors';
import {
	runPerItem,
	type ApiCredentials,
	type ItemResult,
	type PerItemOperation,
} from '../../shared/perItem';
import { DEFAULT_RETRY, requestWithRetry, unansweredText } from '../../shared/transport';
import { oneOf, requiredText, senderIdName, type FieldRef } from '../../shared/validation';

const PURPOSES: INodePropertyOptions[] = [
	{
		name: 'Notification',
		value: 'NOTIFICATION',
		description: 'Alerts and reminders, such as appointment reminders',
	},
	{
		name: 'Promotional',
		value: 'PROMOTIONAL',
		description: 'Marketing messages and offers',
	},
	{
		name: 'Transactional',
		value: 'TRANSACTIONAL',
		description: 'Messages a customer expects, such as one-time codes and order updates',
	},
];

const ACCESS: INodePropertyOptions[] = [
	{ name: 'Private', value: 'PRIVATE', description: 'Only your account' },
	{ name: 'Public', value: 'PUBLIC', description: 'Visible to other users of the service' },
];

/** Name, purpose, access and sample: the body both create and update send. */
export function senderIdFields(operation: 'create' | 'update'): INodeProperties[] {
	const show = { resource: ['senderId'], operation: [operation] };
	return [
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. ACMESHOP',
			description:
				'The sender name recipients see instead of a phone number: 1 to 11 characters, usually letters and digits',
			displayOptions: { show },
		},
		{
			displayName: 'Purpose',
			name: 'purpose',
			type: 'options',
			required: true,
			default: 'TRANSACTIONAL',
			description: 'What kind of messages this Sender ID will send',
			displayOptions: { show },
			options: PURPOSES,
		},
		{
			displayName: 'Access',
			name: 'access',
			type: 'options',
			required: true,
			default: 'PRIVATE',
			description: 'Who can see this Sender ID',
			displayOptions: { show },
			options: ACCESS,
		},
		{
			displayName: 'Sample Message',
			name: 'sample',
			type: 'string',
			required: true,
			default: '',
			typeOptions: { rows: 3 },
			placeholder: 'e.g. Your order 1234 has shipped and arrives on Friday.',
			description:
				'An example of a message you will send with this Sender ID. The service reviews it before approving the Sender ID.',
			displayOptions: { show },
		},
	];
}

export interface SenderIdBody extends IDataObject {
	name: string;
	purpose: string;
	access: string;
	sample: string;
}

/** One item's name, purpose, access and sample, checked. */
export function readSenderIdBody(this: IExecuteFunctions, itemIndex: number): SenderIdBody {
	const ref = (field: string, label: string): FieldRef => ({
		node: this.getNode(),
		itemIndex,
		field,
		label,
	});
	const value = (name: string) => this.getNodeParameter(name, itemIndex, '') as unknown;
	const values = (options: INodePropertyOptions[]) => options.map((option) => String(option.value));
	return {
		name: senderIdName(ref('name', 'Name'), value('name')),
		purpose: oneOf(ref('purpose', 'Purpose'), value('purpose'), values(PURPOSES)),
		access: oneOf(ref('access', 'Access'), value('access'), values(ACCESS)),
		sample: requiredText(ref('sample', 'Sample Message'), value('sample')),
	};
}

const UNKNOWN_OUTCOME = {
	create:
		'The Sender ID may have been registered. Check your Sender IDs with the service before running this item again, or it may be registered twice.',
	update: 'The update may have been applied. Running it again sends the same values.',
};

/**
 * Sends one item's create or update and gives the Sender ID the API answered with. A Sender ID
 * that is PENDING cannot send yet, which the answer shows and the hint says.
 */
async function senderIdRequest(
	this: IExecuteFunctions,
	operation: 'create' | 'update',
	body: IDataObject,
	itemIndex: number,
	credentials: ApiCredentials,
): Promise<ItemResult> {
	const node = this.getNode();
	const delivery = await requestWithRetry.call(
		this,
		{
			method: operation === 'create' ? 'POST' : 'PUT',
			baseURL: credentials.baseUrl,
			url: '/sender-ids',
			body,
			json: true,
		},
		DEFAULT_RETRY,
	);
	if (delivery.outcome !== 'answered') {
		const notSent = delivery.outcome === 'notSent';
		throw new NodeOperationError(
			node,
			`Item ${itemIndex}: ${notSent ? 'not sent: ' : ''}${unansweredText(delivery)}`,
			{
				itemIndex,
				description: notSent
					? 'Nothing reached the API; running it again is safe.'
					: UNKNOWN_OUTCOME[operation],
			},
		);
	}
	const data = unwrapData(node, delivery.response.statusCode, delivery.response.body, {
		operation: `senderId:${operation}`,
		itemIndex,
		apiToken: credentials.apiToken,
		senderId: body.senderId,
	});
	if (data.status !== 'PENDING') return { records: [data] };
	const name = `${String(data.name ?? body.name)} (ID ${String(data.id)})`;
	return {
		records: [data],
		hint: {
			message: `Sender ID ${name} is PENDING: it cannot send SMS until the service approves it, which takes 1 to 3 business weeks. You get a notification on approval.`,
			label: name,
		},
	};
}

/** Runs Create or Update for every item, with `read` giving each item's checked body. */
export async function runSenderIdOperation(
	this: IExecuteFunctions,
	operation: 'create' | 'update',
	read: PerItemOperation<SenderIdBody>['read'],
): Promise<INodeExecutionData[][]> {
	return await runPerItem.call(this, {
		read,
		async run(body: SenderIdBody, itemIndex: number, credentials: ApiCredentials) {
			return await senderIdRequest.call(this, operation, body, itemIndex, credentials);
		},
		hintSummary: '{count} Sender IDs are PENDING: they cannot send SMS until approved',
	});
}
