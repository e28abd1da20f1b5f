import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { errorItem, nodeError } from '../../../shared/errors';
import { itemParameterReader } from '../../../shared/itemParameters';
import { findSentMessages, recordKey, type SentMessage } from '../../../shared/sentMessages';
import { windowStartDay } from '../../../shared/sentWindow';
import { smsListReader } from '../../../shared/smsListReader';
import { sharedLimiter } from '../../../shared/limiter';
import { CREDENTIAL_TYPE } from '../../../shared/transport';
import { requestSettings } from '../../../shared/requestOptions';
import {
	fieldsOf,
	integerInRange,
	isSet,
	phoneNumber,
	requiredText,
} from '../../../shared/validation';

const showOnlyForSmsGetStatus = { resource: ['sms'], operation: ['getStatus'] };

export const smsGetStatusDescription: INodeProperties[] = [
	{
		displayName:
			'Each input item is looked up in the SMS list by its number and exact text. Placed after SMS → Send, it needs no configuration. Reads the list only: it costs no credits.',
		name: 'getStatusNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showOnlyForSmsGetStatus },
	},
	{
		displayName: 'Recipient Number',
		name: 'recipient',
		type: 'string',
		required: true,
		default: '={{ $json.recipient }}',
		placeholder: 'e.g. 254712345678',
		description:
			"The number the message was sent to, with country code. The default reads SMS → Send's output field recipient. Spaces, dashes, dots, parentheses and a leading + or 00 are ignored, as Send ignores them.",
		displayOptions: { show: showOnlyForSmsGetStatus },
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		default: '={{ $json.message }}',
		typeOptions: { rows: 2 },
		description:
			"The text exactly as it was sent. The default reads SMS → Send's output field message.",
		displayOptions: { show: showOnlyForSmsGetStatus },
	},
	{
		displayName: 'Message ID',
		name: 'messageId',
		type: 'string',
		default: '={{ $json.id }}',
		description:
			"Optional: the message ID SMS → Send gave the message; the default reads it from Send's output. Among records with the same number and text, the one with this ID is preferred. Leave empty when unknown.",
		displayOptions: { show: showOnlyForSmsGetStatus },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: showOnlyForSmsGetStatus },
		options: [
			{
				displayName: 'Lookback Days',
				name: 'lookbackDays',
				type: 'number',
				default: 2,
				typeOptions: { minValue: 1, maxValue: 31 },
				description:
					'How many days before today (UTC) the message may have been sent, from 1 to 31. A longer window reads more of the list.',
			},
		],
	},
];

interface Lookup {
	itemIndex: number;
	lookbackDays: number;
	message: SentMessage;
}

/** Reads and checks every item's parameters; a bad item is refused before any request. */
function readLookup(
	this: IExecuteFunctions,
	read: Record<'recipient' | 'message' | 'messageId', (itemIndex: number) => unknown>,
	itemIndex: number,
): Lookup {
	const ref = fieldsOf(this.getNode(), itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const lookbackDays = isSet(options.lookbackDays)
		? integerInRange(ref('options.lookbackDays', 'Lookback Days'), options.lookbackDays, 1, 31)
		: 2;
	const messageId = read.messageId(itemIndex);
	return {
		itemIndex,
		lookbackDays,
		message: {
			recipient: phoneNumber(ref('recipient', 'Recipient Number'), read.recipient(itemIndex)),
			text: requiredText(ref('message', 'Message'), read.message(itemIndex)),
			...(isSet(messageId) ? { messageId: String(messageId as string | number) } : {}),
		},
	};
}

/**
 * SMS → Get Delivery Status: one result per item, its SMS record as the list gives it. Items are
 * looked up together (shared/sentMessages.ts): the window's list is read once for many items, a
 * few items in a large window are searched by number; all with n8n's Request Options (Proxy,
 * Timeout, Ignore SSL Issues) and the retries of Get Many.
 */
export async function getStatus(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	const results: INodeExecutionData[] = new Array(items.length);
	const fail = (caught: unknown, itemIndex: number) => {
		const error = nodeError(node, caught, itemIndex);
		if (!continueOnFail) throw error;
		results[itemIndex] = errorItem(error, itemIndex);
	};

	let settings: ReturnType<typeof requestSettings>;
	try {
		settings = requestSettings.call(this);
	} catch (caught) {
		const error = nodeError(node, caught, 0);
		if (!continueOnFail) throw error;
		return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
	}
	const read = {
		recipient: itemParameterReader(this, 'recipient', ''),
		message: itemParameterReader(this, 'message', ''),
		messageId: itemParameterReader(this, 'messageId', ''),
	};
	// Every item is checked before the first request: without Continue On Fail one bad item
	// stops the run with nothing read.
	const byWindow = new Map<number, Lookup[]>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const lookup = readLookup.call(this, read, itemIndex);
			byWindow.set(lookup.lookbackDays, [...(byWindow.get(lookup.lookbackDays) ?? []), lookup]);
		} catch (caught) {
			fail(caught, itemIndex);
		}
	}
	if (byWindow.size === 0) return [results];

	const credentials = await this.getCredentials<{ baseUrl: string; apiToken: string }>(
		CREDENTIAL_TYPE,
	);
	const gate = sharedLimiter(credentials.baseUrl, credentials.apiToken);
	// Items with different Lookback Days are looked up window by window, the narrowest first; a
	// record given to an item of one window is not given to an item of another.
	const taken = new Set<string>();
	const windows = [...byWindow].sort(([a], [b]) => a - b);
	for (const [lookbackDays, lookups] of windows) {
		const firstItem = lookups[0].itemIndex;
		const readPage = smsListReader.call(this, credentials, {
			request: settings.request,
			gate,
			itemIndex: firstItem,
		});
		let found: Awaited<ReturnType<typeof findSentMessages>>;
		try {
			found = await findSentMessages(
				lookups.map(({ message }) => message),
				{ lookbackDays, readPage, parallel: gate.window, taken },
			);
		} catch (caught) {
			// The list could not be read: no item of this window has an answer.
			for (const { itemIndex } of lookups) fail(caught, itemIndex);
			continue;
		}
		lookups.forEach(({ itemIndex, message }, k) => {
			const record = found[k];
			if (record) {
				taken.add(recordKey(record));
				results[itemIndex] = { json: record, pairedItem: { item: itemIndex } };
				return;
			}
			const id = message.messageId === undefined ? '' : ` (message ID ${message.messageId})`;
			fail(
				new NodeOperationError(
					node,
					`The message to ${message.recipient} is not in the SMS list of the last ${lookbackDays} days`,
					{
						itemIndex,
						description: `No message to ${message.recipient} with exactly this text${id} was sent on or after ${windowStartDay(lookbackDays)} (UTC), or every one there belongs to another item of this run. Check the number and the text, or raise Lookback Days.`,
					},
				),
				itemIndex,
			);
		});
	}
	return [results];
}
