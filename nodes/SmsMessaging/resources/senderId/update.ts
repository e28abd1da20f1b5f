// Sender ID → Update: its parameters.
import type { INodeProperties } from 'n8n-workflow';

import { bodyField } from '../../routing';
import { positiveInteger } from '../../../shared/input/validation';
import { senderIdFields } from './fields';

const showOnlyForSenderIdUpdate = { resource: ['senderId'], operation: ['update'] };

/** The checked fields of Sender ID → Update, in the order they are checked. */
export const senderIdUpdateFields = [
	bodyField(
		{
			displayName: 'Sender ID Number',
			name: 'id',
			type: 'number',
			required: true,
			// 0 is no Sender ID (every ID the API gives is 1 or more): a run left at 0 is refused,
			// naming this field, before any request.
			default: 0,
			placeholder: 'e.g. 42',
			description:
				'The number that identifies the Sender ID to update: the ID that Create returned, not its name',
			displayOptions: { show: showOnlyForSenderIdUpdate },
		},
		positiveInteger,
		// The API takes the Sender ID's number as body field `senderId`.
		'senderId',
	),
	...senderIdFields('update'),
];

export const senderIdUpdateDescription: INodeProperties[] = [
	{
		displayName:
			'All four fields are sent and replace the current ones. Changes that need review put the Sender ID back to PENDING until the service approves them again.',
		name: 'updateNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showOnlyForSenderIdUpdate },
	},
	...senderIdUpdateFields.map((field) => field.property),
];
