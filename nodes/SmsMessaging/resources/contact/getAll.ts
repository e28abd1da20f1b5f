import type { INodeProperties } from 'n8n-workflow';

import { filterField, listControls } from '../../shared/descriptions';
import { searchFilter, userIdFilter } from '../../shared/smsFilters';

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
			filterField(
				searchFilter(
					'e.g. Jane',
					'Text to look for in the contact name, phone number and e-mail address',
				),
			),
			filterField(userIdFilter('contacts')),
		],
	},
];
