// Contact → Get Many: its parameters.
import type { INodeProperties } from 'n8n-workflow';

import { listControls } from '../../listControls';
import { searchFilter, userIdFilter } from '../../../shared/lists/smsFilters';

const showOnlyForContactGetMany = { resource: ['contact'], operation: ['getAll'] };

export const contactGetManyDescription: INodeProperties[] = listControls(
	showOnlyForContactGetMany,
	[
		searchFilter(
			'e.g. Jane',
			'Text to look for in the contact name, phone number and e-mail address',
		),
		userIdFilter('contacts'),
	],
);
