import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { positiveInteger } from '../../shared/validation';
import { readSenderIdBody, runSenderIdOperation, senderIdFields } from './fields';

const showOnlyForSenderIdUpdate = { resource: ['senderId'], operation: ['update'] };

export const senderIdUpdateDescription: INodeProperties[] = [
	{
		displayName:
			'All four fields are sent and replace the current ones. Changes that need review put the Sender ID back to PENDING until the service approves them again.',
		name: 'updateNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showOnlyForSenderIdUpdate },
	},
	{
		displayName: 'Sender ID',
		name: 'id',
		type: 'number',
		required: true,
		default: 0,
		description: 'The numeric ID of the Sender ID to update, as returned by Create',
		displayOptions: { show: showOnlyForSenderIdUpdate },
	},
	...senderIdFields('update'),
];

/** Sender ID → Update: the API takes the Sender ID's number as body field `senderId`. */
export async function update(this: IExecuteFunctions) {
	return await runSenderIdOperation.call(this, 'update', function (itemIndex) {
		const ref = { node: this.getNode(), itemIndex, field: 'id', label: 'Sender ID' };
		const senderId = positiveInteger(ref, this.getNodeParameter('id', itemIndex, 0));
		return { senderId, ...readSenderIdBody.call(this, itemIndex) };
	});
}
