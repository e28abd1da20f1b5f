// The Contact resource: its operations and how each is routed.
import type { INodeProperties } from 'n8n-workflow';

import { fullAnswerAsItem } from '../../routing';
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
				// The contact list accepts no `sort` parameter (spec 4.5): nothing here sends one.
				routing: {
					request: { method: 'GET', url: '/contacts' },
					output: { postReceive: [fullAnswerAsItem] },
				},
			},
		],
		default: 'getAll',
	},
	...contactGetManyDescription,
];
