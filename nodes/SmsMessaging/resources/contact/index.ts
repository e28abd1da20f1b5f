import type { INodeProperties } from 'n8n-workflow';

import { unwrapResponse } from '../../shared/routing';
import { contactGetManyDescription } from './getAll';

export const contactDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contact'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many contacts',
				description:
					'List contacts, newest first, optionally matching a search. Soft-deleted contacts are included with "deletedAt" set.',
				routing: {
					request: { method: 'GET', url: '/contacts' },
					output: { postReceive: [unwrapResponse] },
				},
			},
		],
		default: 'getAll',
	},
	...contactGetManyDescription,
];
