import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { listControls } from '../../shared/descriptions';
import { sendChecked } from '../../shared/routing';
import { apiDate, positiveInteger, uuid } from '../../shared/validation';

const showOnlyForSmsGetMany = { resource: ['sms'], operation: ['getAll'] };

/** The API takes the sort as one `field,direction` value; routing would send an array as sort[0]=…. */
async function sendSort(this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
	const { sortField, sortDirection } = this.getNodeParameter('options', {}) as {
		sortField?: string;
		sortDirection?: string;
	};
	if (sortField === undefined && sortDirection === undefined) return requestOptions;
	requestOptions.qs = {
		...requestOptions.qs,
		sort: `${sortField ?? 'id'},${sortDirection ?? 'desc'}`,
	};
	return requestOptions;
}

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
				routing: {
					send: {
						preSend: [sendChecked('qs', 'campaign-id', 'filters.campaignId', 'Campaign ID', uuid)],
					},
				},
			},
			{
				displayName: 'Search',
				name: 'query',
				type: 'string',
				default: '',
				placeholder: 'e.g. order 1234',
				description: 'Text to look for in the message content and the recipient number',
				routing: { send: { type: 'query', property: 'query' } },
			},
			{
				displayName: 'Sent After',
				name: 'startDate',
				type: 'dateTime',
				default: '',
				description:
					'Only messages sent after this date. Only the date counts; the time of day is ignored.',
				routing: {
					send: {
						preSend: [sendChecked('qs', 'start-date', 'filters.startDate', 'Sent After', apiDate)],
					},
				},
			},
			{
				displayName: 'Sent Before',
				name: 'endDate',
				type: 'dateTime',
				default: '',
				description:
					'Only messages sent before this date. Only the date counts; the time of day is ignored.',
				routing: {
					send: {
						preSend: [sendChecked('qs', 'end-date', 'filters.endDate', 'Sent Before', apiDate)],
					},
				},
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'DELIVERED',
				description: 'Only messages in this delivery state',
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
				routing: { send: { type: 'query', property: 'status' } },
			},
			{
				displayName: 'User ID',
				name: 'userId',
				type: 'number',
				default: 1,
				description:
					'Only messages of this user. Admin accounts only: other accounts get a permission error (403).',
				routing: {
					send: {
						preSend: [sendChecked('qs', 'userId', 'filters.userId', 'User ID', positiveInteger)],
					},
				},
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: showOnlyForSmsGetMany },
		routing: { send: { preSend: [sendSort] } },
		options: [
			{
				displayName: 'Sort By',
				name: 'sortField',
				type: 'options',
				default: 'id',
				description:
					'Field to order the messages by. Without it the API orders by ID, newest first.',
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
				options: [
					{ name: 'Ascending', value: 'asc' },
					{ name: 'Descending', value: 'desc' },
				],
			},
		],
	},
];
