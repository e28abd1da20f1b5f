import type { INodeProperties } from 'n8n-workflow';

import { checkedRouting, getManyPages } from './routing';
import { positiveInteger } from './validation';

type ShowFor = { resource: string[]; operation: string[] };

/** Return All and Limit for a Get Many operation; both lists page the same way. */
export function listControls(showFor: ShowFor): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			displayOptions: { show: showFor },
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			// Pages are read with and without Return All: a Limit over 100 takes several pages.
			routing: { send: { paginate: true }, operations: { pagination: getManyPages } },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			displayOptions: { show: { ...showFor, returnAll: [false] } },
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			routing: {
				...checkedRouting({ parameter: 'limit', label: 'Limit', check: positiveInteger }),
				output: { maxResults: '={{ $value }}' },
			},
		},
	];
}

/** The Search filter of both lists, sent as `query`. */
export function searchFilter(placeholder: string, description: string): INodeProperties {
	return {
		displayName: 'Search',
		name: 'query',
		type: 'string',
		default: '',
		placeholder,
		description,
		routing: checkedRouting({
			parameter: 'filters.query',
			label: 'Search',
			check: (_ref, value) => value,
			send: { type: 'query', property: 'query' },
			optional: true,
		}),
	};
}

/** The User ID filter of both lists, for admin accounts. */
export function userIdFilter(records: string): INodeProperties {
	return {
		displayName: 'User ID',
		name: 'userId',
		type: 'number',
		// Empty: adding the filter must not silently narrow the list to some user.
		default: '',
		placeholder: 'e.g. 12',
		description: `Only ${records} of this user. Admin accounts only: other accounts get a permission error (403).`,
		routing: checkedRouting({
			parameter: 'filters.userId',
			label: 'User ID',
			check: positiveInteger,
			send: { type: 'query', property: 'userId' },
			optional: true,
		}),
	};
}
