import type { INodeProperties } from 'n8n-workflow';

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
	];
}
