// The SMS resource: its operations and how each is routed (Send is a custom operation).
import type { INodeProperties } from 'n8n-workflow';

import { fullAnswerAsItem } from '../../routing';
import { smsGetManyDescription } from './getAll';
import { getStatus, smsGetStatusDescription } from './getStatus';
import { send, smsSendDescription } from './send';

export const smsDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['sms'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many messages',
				description:
					'List sent messages with their delivery status (DELIVERED, SENT, FAILED, PENDING), newest first unless sorted',
				routing: {
					request: { method: 'GET', url: '/sms' },
					output: { postReceive: [fullAnswerAsItem] },
				},
			},
			{
				name: 'Get Delivery Status',
				value: 'getStatus',
				action: 'Get the delivery status of sent messages',
				description:
					'Find what became of messages sent earlier (DELIVERED, SENT, FAILED or PENDING): one result per item, its SMS record, looked up by recipient number and exact text. Pass the items SMS → Send output, or items with a number and the text as sent. Reads the list only; costs no credits.',
			},
			{
				name: 'Send',
				value: 'send',
				action: 'Send an SMS',
				description:
					'Send one SMS per input item to a phone number with country code, batched into few requests. Costs credits: at least one per message part.',
			},
		],
		default: 'send',
	},
	...smsSendDescription,
	...smsGetManyDescription,
	...smsGetStatusDescription,
];

export { getStatus, send };
