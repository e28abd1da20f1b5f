// Return All, Limit and Filters, shared by the two Get Many operations.
import type { INodeProperties } from 'n8n-workflow';

import type { SmsListFilter } from '../shared/lists/smsFilters';
import { checkedRouting, getManyPages, type CheckedParameter } from './routing';

type ShowFor = { resource: string[]; operation: string[] };

/** A list filter as its parameter in the `filters` collection, checked and sent by routing. */
function filterParameter({ property, check, query }: SmsListFilter): CheckedParameter {
	return {
		parameter: `filters.${property.name}`,
		label: property.displayName,
		check,
		send: { type: 'query', property: query },
		optional: true,
	};
}

/**
 * Return All, Limit and Filters of a Get Many operation (both lists page the same way). Return All
 * and Limit are read per item by the request hook, which also checks every filter given.
 */
export function listControls(showFor: ShowFor, filters: SmsListFilter[]): INodeProperties[] {
	const parameters = filters.map(filterParameter);
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			displayOptions: { show: showFor },
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			// Pages are read with and without Return All: a Limit over 100 takes several pages.
			routing: { send: { paginate: true }, operations: { pagination: getManyPages(parameters) } },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			displayOptions: { show: { ...showFor, returnAll: [false] } },
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
		},
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			displayOptions: { show: showFor },
			options: filters.map((filter, k) => ({
				...filter.property,
				routing: checkedRouting(parameters[k]),
			})),
		},
	];
}
