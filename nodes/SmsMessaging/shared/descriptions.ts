import { NodeConnectionTypes, type Icon, type INodeProperties } from 'n8n-workflow';

import { checkedRouting, getManyPages } from './routing';
import type { SmsListFilter } from './smsFilters';
import { positiveInteger } from './validation';

/** The icon of both nodes (paths from their folders under nodes/). */
export const SMS_ICON: Icon = {
	light: 'file:../../icons/sms.svg',
	dark: 'file:../../icons/sms.dark.svg',
};

/**
 * n8n's main connection, for every node's inputs and outputs. The n8n-workflow of n8n 1.82 (1.80)
 * has no NodeConnectionTypes yet: reading `.Main` there threw, and no node of the package loaded.
 */
export const MAIN_CONNECTION =
	(NodeConnectionTypes as Partial<typeof NodeConnectionTypes> | undefined)?.Main ?? 'main';

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

/** A list filter as a field of a Get Many operation, checked and sent by routing. */
export function filterField({ property, check, query }: SmsListFilter): INodeProperties {
	return {
		...property,
		routing: checkedRouting({
			parameter: `filters.${property.name}`,
			label: property.displayName,
			check,
			send: { type: 'query', property: query },
			optional: true,
		}),
	};
}
