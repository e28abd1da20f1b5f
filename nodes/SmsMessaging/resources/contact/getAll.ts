import type { INodeProperties } from 'n8n-workflow';

import { listControls } from '../../shared/descriptions';
import { checkedRouting } from '../../shared/routing';
import { positiveInteger } from '../../shared/validation';

const showOnlyForContactGetMany = { resource: ['contact'], operation: ['getAll'] };

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
				routing: checkedRouting({
					parameter: 'filters.query',
					label: 'Search',
					check: (_ref, value) => value,
					send: { type: 'query', property: 'query' },
					optional: true,
				}),
			},
			{
				displayName: 'User ID',
				name: 'userId',
				type: 'number',
				default: 1,
				description:
					'Only contacts of this user. Admin accounts only: other accounts get a permission error (403).',
				routing: checkedRouting({
					parameter: 'filters.userId',
					label: 'User ID',
					check: positiveInteger,
					send: { type: 'query', property: 'userId' },
					optional: true,
				}),
			},
		],
	},
];
