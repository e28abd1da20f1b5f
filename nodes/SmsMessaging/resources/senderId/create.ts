// Sender ID → Create: its parameters.
import type { INodeProperties } from 'n8n-workflow';

import { senderIdFields } from './fields';

/** The checked fields of Sender ID → Create, in the order they are checked. */
export const senderIdCreateFields = senderIdFields('create');

export const senderIdCreateDescription: INodeProperties[] = [
	{
		displayName:
			'A new Sender ID starts as PENDING: it cannot be used for sending until the service approves it, which takes 1 to 3 business weeks. You get a notification on approval.',
		name: 'pendingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { resource: ['senderId'], operation: ['create'] } },
	},
	...senderIdCreateFields.map((field) => field.property),
];
