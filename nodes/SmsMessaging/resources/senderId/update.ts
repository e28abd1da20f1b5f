import type { INodeProperties } from 'n8n-workflow';

import { sendChecked } from '../../shared/routing';
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
		routing: {
			send: { preSend: [sendChecked('senderId', 'id', 'Sender ID', positiveInteger)] },
		},
	},
	...senderIdFields('update'),
];
