import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { listControls, searchFilter, userIdFilter } from '../../shared/descriptions';
import { checkedRouting } from '../../shared/routing';
import { apiDate, oneOf, uuid } from '../../shared/validation';

const showOnlyForSmsGetMany = { resource: ['sms'], operation: ['getAll'] };

const SMS_STATUSES = ['DELIVERED', 'FAILED', 'PENDING', 'SENT'];

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
			{
				displayName: 'Campaign ID',
				name: 'campaignId',
				type: 'string',
				default: '',
				placeholder: 'e.g. 3f2b8c1e-9d4a-4b7e-8f21-5c6d7e8f9a0b',
				description: 'Only messages of this campaign (a UUID)',
				routing: checkedRouting({
					parameter: 'filters.campaignId',
					label: 'Campaign ID',
					check: uuid,
					send: { type: 'query', property: 'campaign-id' },
					optional: true,
				}),
			},
			searchFilter(
				'e.g. order 1234',
				'Text to look for in the message content and the recipient number',
			),
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
					'Only messages sent on or before this day (sent as end-date). Only the date counts; the time of day is ignored.',
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
				options: [
					{ name: 'Delivered', value: 'DELIVERED', description: "Reached the recipient's phone" },
					{ name: 'Failed', value: 'FAILED', description: 'Could not be delivered' },
					{ name: 'Pending', value: 'PENDING', description: 'Waiting to be sent' },
					{
						name: 'Sent',
						value: 'SENT',
						description: 'Handed to the network, delivery not yet confirmed',
					},
				],
			},
			userIdFilter('messages'),
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
