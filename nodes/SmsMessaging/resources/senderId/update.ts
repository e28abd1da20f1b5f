import type { INodeProperties } from 'n8n-workflow';

import { checkedRouting } from '../../shared/routing';
import { positiveInteger } from '../../shared/validation';
import { senderIdFields } from './fields';

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
		// The API takes the Sender ID's number as body field `senderId`.
		routing: checkedRouting({
			parameter: 'id',
			label: 'Sender ID',
			check: positiveInteger,
			send: { type: 'body', property: 'senderId' },
		}),
	},
	...senderIdFields('update'),
];
