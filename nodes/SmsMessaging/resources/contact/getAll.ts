import type { INodeProperties } from 'n8n-workflow';

import { listControls } from '../../shared/descriptions';
import { sendChecked } from '../../shared/routing';
import { positiveInteger } from '../../shared/validation';

const showOnlyForContactGetMany = { resource: ['contact'], operation: ['getAll'] };

// The contact list accepts no `sort` parameter (spec 4.5): nothing here may send one.
export const contactGetManyDescription: INodeProperties[] = [
	...listControls(showOnlyForContactGetMany),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: showOnlyForContactGetMany },
		options: [
			{
				displayName: 'Search',
				name: 'query',
				type: 'string',
				default: '',
				placeholder: 'e.g. Jane',
				description: 'Text to look for in the contact name, phone number and e-mail address',
				routing: { send: { type: 'query', property: 'query' } },
			},
			{
				displayName: 'User ID',
				name: 'userId',
				type: 'number',
				default: 1,
				description:
					'Only contacts of this user. Admin accounts only: other accounts get a permission error (403).',
				routing: {
					send: {
						preSend: [sendChecked('qs', 'userId', 'filters.userId', 'User ID', positiveInteger)],
					},
				},
			},
		],
	},
];
