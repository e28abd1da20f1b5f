// The SMS statuses and the list filters Get Many and the trigger share (campaign, search, user).
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { positiveInteger, uuid, type FieldRef } from '../input/validation';

/** The delivery states of a sent message (spec 2.5), as SMS → Get Many and the trigger offer them. */
export const SMS_STATUS_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Delivered', value: 'DELIVERED', description: "Reached the recipient's phone" },
	{ name: 'Failed', value: 'FAILED', description: 'Could not be delivered' },
	{ name: 'Pending', value: 'PENDING', description: 'Waiting to be sent' },
	{
		name: 'Sent',
		value: 'SENT',
		description: 'Handed to the network, delivery not yet confirmed',
	},
];

export const SMS_STATUSES = SMS_STATUS_OPTIONS.map((option) => option.value as string);

/**
 * A filter of a list (SMS → Get Many and the trigger share the SMS list's; Contact → Get Many
 * uses Search and User ID): its field in the `filters`
 * collection, the check its value gets, and the query parameter the checked value is sent as.
 */
export interface SmsListFilter {
	property: INodeProperties;
	check: (ref: FieldRef, value: unknown) => unknown;
	query: string;
}

/** The Search filter of a list, sent as `query`. */
export function searchFilter(placeholder: string, description: string): SmsListFilter {
	return {
		property: {
			displayName: 'Search',
			name: 'query',
			type: 'string',
			default: '',
			placeholder,
			description,
		},
		check: (_ref, value) => value,
		query: 'query',
	};
}

/** The User ID filter of a list, for admin accounts. */
export function userIdFilter(records: string): SmsListFilter {
	return {
		property: {
			displayName: 'User ID',
			name: 'userId',
			type: 'number',
			// 0 is no user: a filter added and left at 0 is refused, naming the field, rather than
			// silently narrowing the list to some user.
			default: 0,
			placeholder: 'e.g. 12',
			description: `Only ${records} of this user. Admin accounts only: other accounts get a permission error (403).`,
		},
		check: positiveInteger,
		query: 'userId',
	};
}

export const SMS_LIST_FILTERS: Record<'campaignId' | 'query' | 'userId', SmsListFilter> = {
	campaignId: {
		property: {
			displayName: 'Campaign ID',
			name: 'campaignId',
			type: 'string',
			default: '',
			placeholder: 'e.g. 3f2b8c1e-9d4a-4b7e-8f21-5c6d7e8f9a0b',
			description: 'Only messages of this campaign (a UUID)',
		},
		check: uuid,
		query: 'campaign-id',
	},
	query: searchFilter(
		'e.g. order 1234',
		'Text to look for in the message content and the recipient number',
	),
	userId: userIdFilter('messages'),
};
