import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { positiveInteger, uuid, type FieldRef } from './validation';

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
 * A filter of the SMS list that SMS → Get Many and the trigger share: its field in the `filters`
 * collection, the check its value gets, and the query parameter the checked value is sent as.
 */
export interface SmsListFilter {
	property: INodeProperties;
	check: (ref: FieldRef, value: unknown) => unknown;
	query: string;
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
	query: {
		property: {
			displayName: 'Search',
			name: 'query',
			type: 'string',
			default: '',
			placeholder: 'e.g. order 1234',
			description: 'Text to look for in the message content and the recipient number',
		},
		check: (_ref, value) => value,
		query: 'query',
	},
	userId: {
		property: {
			displayName: 'User ID',
			name: 'userId',
			type: 'number',
			default: 1,
			description:
				'Only messages of this user. Admin accounts only: other accounts get a permission error (403).',
		},
		check: positiveInteger,
		query: 'userId',
	},
};
