// SMS → Send's parameters, as the editor shows them.

import type { INodeProperties } from 'n8n-workflow';

import {
	messageField,
	recipientNumberField,
	senderIdField,
} from '../../../../shared/n8n/messageFields';
import { DEFAULT_PARALLEL_REQUESTS } from '../../../../shared/requests/transport';

const showOnlySmsSend = { resource: ['sms'], operation: ['send'] };

export const smsSendDescription: INodeProperties[] = [
	{
		displayName:
			'Each input item becomes one message (an envelope). All items of a run go out together in as few requests as the batch size allows. Every message costs at least one credit; a long message costs one credit per SMS part.',
		name: 'sendNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showOnlySmsSend },
	},
	{ ...senderIdField, displayOptions: { show: showOnlySmsSend } },
	{ ...recipientNumberField, displayOptions: { show: showOnlySmsSend } },
	{ ...messageField, displayOptions: { show: showOnlySmsSend } },
	{
		displayName: 'Reference',
		name: 'thirdPartyRef',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.orderId }}',
		description:
			'Your own reference for this message, echoed back on its outgoing record. Leave empty to send none.',
		displayOptions: { show: showOnlySmsSend },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: showOnlySmsSend },
		options: [
			{
				displayName: 'After a Failed Request',
				name: 'onRequestFailure',
				type: 'options',
				default: 'stop',
				description:
					'What to do with the remaining requests when one request of the run fails for good',
				options: [
					{
						name: 'Stop',
						value: 'stop',
						description: 'Send nothing more; the remaining items are reported as not attempted',
					},
					{
						name: 'Continue',
						value: 'continue',
						description: 'Go on with the remaining requests',
					},
				],
			},
			{
				displayName: 'Batch Size',
				name: 'batchSize',
				type: 'number',
				default: 100,
				typeOptions: { minValue: 1, maxValue: 1000 },
				description:
					'How many messages go in one request to the API. Fewer requests are faster; the API publishes no maximum.',
			},
			{
				displayName: 'Default Country Code',
				name: 'defaultCountryCode',
				type: 'string',
				default: '',
				placeholder: 'e.g. 44 or GB',
				description:
					"The country of numbers written without + or 00: its calling code (44, +44) or ISO code (GB). Each number is read by that country's rules: 07700 900123 with 44 goes to 447700900123, (212) 555-1234 with 1 (the US has no trunk 0) to 12125551234, and one that cannot be a number there is read as already carrying its country code. Without it a number with a leading 0 or an area code in parentheses is refused.",
			},
			{
				displayName: 'Dry Run',
				name: 'dryRun',
				type: 'boolean',
				default: false,
				description:
					'Whether to only check the items and estimate their cost, without sending anything. Each item shows its number as it would be sent (and as written, where reading it changed it), encoding, SMS parts and estimated credits.',
			},
			{
				displayName: 'Max Attempts',
				name: 'maxAttempts',
				type: 'number',
				default: 4,
				typeOptions: { minValue: 1, maxValue: 10 },
				description:
					'Attempts in a row per request, the first included, when the API asks to slow down (429) or is unavailable (503) in its own answer format, or refuses the connection: only failures that prove nothing was sent are retried. Only an accepted request of this run in between starts the count again, and one request never waits more than 2 minutes in all.',
			},
			{
				displayName: 'Max Messages per Run',
				name: 'maxMessages',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0 },
				description:
					'Refuse the whole run, before sending anything, when it would send more messages than this. 0 means no cap. Recommended when an AI agent uses this node.',
			},
			{
				displayName: 'Requests in Parallel',
				name: 'parallelRequests',
				type: 'number',
				default: DEFAULT_PARALLEL_REQUESTS,
				typeOptions: { minValue: 0, maxValue: 16 },
				description:
					'How many send requests may be in flight at once, after the first request of the run has gone out alone. 0 is Auto: it starts at 4 and adapts to the API, with more while requests succeed and fewer after a 429, a 503 or slower answers, never above 32, shared by the runs that use this credential at once. 1 to 16 fixes it (1 sends one request after another). A 429 or 503 that is waited out (its Retry-After, or a backoff) holds back all of them meanwhile.',
			},
		],
	},
];
