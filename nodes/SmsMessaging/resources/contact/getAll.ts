import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { listControls } from '../../shared/descriptions';
import { getMany } from '../../shared/list';
import { isSet, positiveInteger } from '../../shared/validation';

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
			},
			{
				displayName: 'User ID',
				name: 'userId',
				type: 'number',
				default: 1,
				description:
					'Only contacts of this user. Admin accounts only: other accounts get a permission error (403).',
			},
		],
	},
];

/** One item's filters as the API's query parameters, checked; never a `sort` (spec 4.5). */
function contactQuery(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const { query, userId } = this.getNodeParameter('filters', itemIndex, {}) as {
		query?: string;
		userId?: unknown;
	};
	const result: IDataObject = {};
	if (isSet(query)) result.query = query;
	if (isSet(userId)) {
		const ref = { node: this.getNode(), itemIndex, field: 'filters.userId', label: 'User ID' };
		result.userId = positiveInteger(ref, userId);
	}
	return result;
}

/** Contact → Get Many: the contacts, optionally matching a search, page after page. */
export async function getAll(this: IExecuteFunctions) {
	return await getMany.call(this, '/contacts', contactQuery);
}
