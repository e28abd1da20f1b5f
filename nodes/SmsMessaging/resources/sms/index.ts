import type { INodeProperties } from 'n8n-workflow';

import { apiAnswer } from '../../shared/routing';
import { smsGetManyDescription } from './getAll';
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
					output: { postReceive: [apiAnswer('list')] },
				},
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
];

export { send };
