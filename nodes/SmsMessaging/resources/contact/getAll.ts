import type { INodeProperties } from 'n8n-workflow';

import { listControls, searchFilter, userIdFilter } from '../../shared/descriptions';

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
			searchFilter(
				'e.g. Jane',
				'Text to look for in the contact name, phone number and e-mail address',
			),
			userIdFilter('contacts'),
		],
	},
];
