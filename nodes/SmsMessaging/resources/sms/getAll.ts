import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { listControls } from '../../shared/descriptions';
import { getMany } from '../../shared/list';
import { apiDate, isSet, positiveInteger, uuid, type FieldRef } from '../../shared/validation';

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
			{
				displayName: 'Campaign ID',
				name: 'campaignId',
				type: 'string',
				default: '',
				placeholder: 'e.g. 3f2b8c1e-9d4a-4b7e-8f21-5c6d7e8f9a0b',
				description: 'Only messages of this campaign (a UUID)',
			},
			{
				displayName: 'Search',
				name: 'query',
				type: 'string',
				default: '',
				placeholder: 'e.g. order 1234',
				description: 'Text to look for in the message content and the recipient number',
			},
			{
				displayName: 'Sent After',
				name: 'startDate',
				type: 'dateTime',
				default: '',
				description:
					'Only messages sent after this date. Only the date counts; the time of day is ignored.',
			},
			{
				displayName: 'Sent Before',
				name: 'endDate',
				type: 'dateTime',
				default: '',
				description:
					'Only messages sent before this date. Only the date counts; the time of day is ignored.',
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
			},
			{
				displayName: 'User ID',
				name: 'userId',
				type: 'number',
				default: 1,
				description:
					'Only messages of this user. Admin accounts only: other accounts get a permission error (403).',
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

interface SmsFilters {
	campaignId?: unknown;
	query?: string;
	startDate?: unknown;
	endDate?: unknown;
	status?: string;
	userId?: unknown;
}

/** One item's filters and sort as the API's query parameters, checked. */
function smsQuery(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as SmsFilters;
	const { sortField, sortDirection } = this.getNodeParameter('options', itemIndex, {}) as {
		sortField?: string;
		sortDirection?: string;
	};
	const ref = (field: keyof SmsFilters, label: string): FieldRef => ({
		node: this.getNode(),
		itemIndex,
		field: `filters.${field}`,
		label,
	});
	const query: IDataObject = {};
	if (isSet(filters.status)) query.status = filters.status;
	if (isSet(filters.startDate))
		query['start-date'] = apiDate(ref('startDate', 'Sent After'), filters.startDate);
	if (isSet(filters.endDate))
		query['end-date'] = apiDate(ref('endDate', 'Sent Before'), filters.endDate);
	if (isSet(filters.campaignId))
		query['campaign-id'] = uuid(ref('campaignId', 'Campaign ID'), filters.campaignId);
	if (isSet(filters.query)) query.query = filters.query;
	if (isSet(filters.userId))
		query.userId = positiveInteger(ref('userId', 'User ID'), filters.userId);
	// The API takes the sort as one `field,direction` value.
	if (sortField !== undefined || sortDirection !== undefined) {
		query.sort = `${sortField ?? 'id'},${sortDirection ?? 'desc'}`;
	}
	return query;
}

/** SMS → Get Many: the sent messages, filtered and sorted, page after page. */
export async function getAll(this: IExecuteFunctions) {
	return await getMany.call(this, '/sms', smsQuery);
}
