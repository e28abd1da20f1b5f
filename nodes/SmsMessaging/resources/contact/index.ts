import type { INodeProperties } from 'n8n-workflow';

import { contactGetManyDescription, getAll } from './getAll';

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
			},
		],
		default: 'getAll',
	},
	...contactGetManyDescription,
];

export { getAll };
