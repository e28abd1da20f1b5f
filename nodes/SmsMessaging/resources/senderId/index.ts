// The Sender ID resource: its operations and how each is routed.
import type { INodeProperties } from 'n8n-workflow';

import { fullAnswerAsItem, senderIdRequest, type CheckedField } from '../../routing';
import { senderIdCreateDescription, senderIdCreateFields } from './create';
import { senderIdUpdateDescription, senderIdUpdateFields } from './update';

const parametersOf = (fields: CheckedField[]) => fields.map((field) => field.parameter);

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
				action: 'Create a sender ID',
				description:
					'Register a sender name for approval. It starts as PENDING and can send once approved (1 to 3 business weeks).',
				routing: {
					request: { method: 'POST', url: '/sender-ids' },
					// Routing's hook around the request: the checks, the retries and the reading of
					// the answer (one request per item).
					send: { paginate: true },
					operations: {
						pagination: senderIdRequest('create', parametersOf(senderIdCreateFields)),
					},
					output: { postReceive: [fullAnswerAsItem] },
				},
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update a sender ID',
				description:
					'Change the name, purpose, access or sample of a Sender ID, given by its number. A change that needs review puts it back to PENDING.',
				routing: {
					request: { method: 'PUT', url: '/sender-ids' },
					send: { paginate: true },
					operations: {
						pagination: senderIdRequest('update', parametersOf(senderIdUpdateFields)),
					},
					output: { postReceive: [fullAnswerAsItem] },
				},
			},
		],
		default: 'create',
	},
	...senderIdCreateDescription,
	...senderIdUpdateDescription,
];
