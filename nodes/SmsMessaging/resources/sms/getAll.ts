// SMS → Get Many: its parameters and filters.
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { listControls } from '../../listControls';
import {
	SMS_LIST_FILTERS,
	SMS_STATUS_OPTIONS,
	SMS_STATUSES,
	type SmsListFilter,
} from '../../../shared/lists/smsFilters';
import { apiDate, oneOf } from '../../../shared/input/validation';

const showOnlyForSmsGetMany = { resource: ['sms'], operation: ['getAll'] };

/** Sent After: the API's start-date, "messages sent after this date" (spec 4.4). */
const sentAfter: SmsListFilter = {
	property: {
		displayName: 'Sent After',
		name: 'startDate',
		type: 'dateTime',
		default: '',
		description:
			"Only messages sent after this date: the API's start-date. Only the date is sent (as YYYY-MM-DD); the time of day is ignored.",
	},
	check: apiDate,
	query: 'start-date',
};

/** Sent Before: the API's end-date, "messages sent before this date" (spec 4.4). */
const sentBefore: SmsListFilter = {
	property: {
		displayName: 'Sent Before',
		name: 'endDate',
		type: 'dateTime',
		default: '',
		description:
			"Only messages sent before this date: the API's end-date. Messages sent on the date itself are not listed; to include a day, pick the day after it. Only the date is sent (as YYYY-MM-DD); the time of day is ignored.",
	},
	check: apiDate,
	query: 'end-date',
};

const status: SmsListFilter = {
	property: {
		displayName: 'Status',
		name: 'status',
		type: 'options',
		default: 'DELIVERED',
		description: 'Only messages in this delivery state',
		options: SMS_STATUS_OPTIONS,
	},
	check: (ref, value) => oneOf(ref, value, SMS_STATUSES),
	query: 'status',
};

export const smsGetManyDescription: INodeProperties[] = [
	...listControls(showOnlyForSmsGetMany, [
		SMS_LIST_FILTERS.campaignId,
		SMS_LIST_FILTERS.query,
		sentAfter,
		sentBefore,
		status,
		SMS_LIST_FILTERS.userId,
	]),
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
