import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { filterField, listControls } from '../../shared/descriptions';
import { checkedRouting } from '../../shared/routing';
import { SMS_LIST_FILTERS, SMS_STATUS_OPTIONS, SMS_STATUSES } from '../../shared/smsFilters';
import { apiDate, oneOf } from '../../shared/validation';

const showOnlyForSmsGetMany = { resource: ['sms'], operation: ['getAll'] };

export const smsGetManyDescription: INodeProperties[] = [
	...listControls(showOnlyForSmsGetMany),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: showOnlyForSmsGetMany },
		options: [
			filterField(SMS_LIST_FILTERS.campaignId),
			filterField(SMS_LIST_FILTERS.query),
			{
				displayName: 'Sent After',
				name: 'startDate',
				type: 'dateTime',
				default: '',
				description:
					'Only messages sent on or after this day (sent as start-date). Only the date counts; the time of day is ignored.',
				routing: checkedRouting({
					parameter: 'filters.startDate',
					label: 'Sent After',
					check: apiDate,
					send: { type: 'query', property: 'start-date' },
					optional: true,
				}),
			},
			{
				displayName: 'Sent Before',
				name: 'endDate',
				type: 'dateTime',
				default: '',
				description:
					'Only messages sent before this day begins (sent as end-date): the day itself is not included. Only the date counts; the time of day is ignored.',
				routing: checkedRouting({
					parameter: 'filters.endDate',
					label: 'Sent Before',
					check: apiDate,
					send: { type: 'query', property: 'end-date' },
					optional: true,
				}),
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'DELIVERED',
				description: 'Only messages in this delivery state',
				routing: checkedRouting({
					parameter: 'filters.status',
					label: 'Status',
					check: (ref, value) => oneOf(ref, value, SMS_STATUSES),
					send: { type: 'query', property: 'status' },
					optional: true,
				}),
				options: SMS_STATUS_OPTIONS,
			},
			filterField(SMS_LIST_FILTERS.userId),
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: showOnlyForSmsGetMany },
		options: [
			{
				displayName: 'Sort By',
				name: 'sortField',
				type: 'options',
				default: 'id',
				description:
					'Field to order the messages by. Without it the API orders by ID, newest first.',
				routing: { send: { preSend: [sortQuery] } },
				options: [
					{ name: 'ID', value: 'id' },
					{ name: 'Sent At', value: 'sentAt' },
					{ name: 'Status', value: 'status' },
				],
			},
			{
				displayName: 'Sort Direction',
				name: 'sortDirection',
				type: 'options',
				default: 'desc',
				routing: { send: { preSend: [sortQuery] } },
				options: [
					{ name: 'Ascending', value: 'asc' },
					{ name: 'Descending', value: 'desc' },
				],
			},
		],
	},
];

/** preSend of both sort options: the API takes the sort as one `field,direction` value. */
async function sortQuery(this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
	const { sortField, sortDirection } = this.getNodeParameter('options', {}) as IDataObject;
	(requestOptions.qs as IDataObject).sort =
		`${String(sortField ?? 'id')},${String(sortDirection ?? 'desc')}`;
	return requestOptions;
}
