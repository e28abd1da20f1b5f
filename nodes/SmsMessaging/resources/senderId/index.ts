import type { INodeProperties } from 'n8n-workflow';

import { create, senderIdCreateDescription } from './create';
import { senderIdUpdateDescription, update } from './update';

export const senderIdDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['senderId'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Register a sender ID',
				description:
					'Register a sender name for approval. It starts as PENDING and can send once approved (1 to 3 business weeks).',
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update a sender ID',
				description: 'Change the name, purpose, access or sample of a Sender ID',
			},
		],
		default: 'create',
	},
	...senderIdCreateDescription,
	...senderIdUpdateDescription,
];

export { create, update };
