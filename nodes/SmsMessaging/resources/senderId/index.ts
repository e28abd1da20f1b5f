import type { INodeProperties } from 'n8n-workflow';

import { unwrapResponse } from '../../shared/routing';
import { senderIdCreateDescription } from './create';
import { senderIdUpdateDescription } from './update';

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
				routing: {
					request: { method: 'POST', url: '/sender-ids' },
					output: { postReceive: [unwrapResponse] },
				},
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update a sender ID',
				description: 'Change the name, purpose, access or sample of a Sender ID',
				routing: {
					request: { method: 'PUT', url: '/sender-ids' },
					output: { postReceive: [unwrapResponse] },
				},
			},
		],
		default: 'create',
	},
	...senderIdCreateDescription,
	...senderIdUpdateDescription,
];
