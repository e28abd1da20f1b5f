// SMS → Get Delivery Status: its parameters, and each item's message found in the SMS list.

import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { maskedSmsRecord } from '../../../shared/approvalLink';
import { errorItem, nodeError } from '../../../shared/requests/errors';
import { itemParameterReader } from '../../../shared/input/itemParameters';
import { repeatedPagesError } from '../../../shared/lists/list';
import { apiTime, apiZoneOf, hasOffset } from '../../../shared/input/apiTime';
import type { FoundMessage, SentMessage } from '../../../shared/lists/matching';
import { findSentMessages, type SmsPageReader } from '../../../shared/lists/sentMessages';
import {
	CLOCK_MARGIN_MS,
	futureText,
	olderText,
	seemsText,
	SET_API_TIME_ZONE,
	utcDay,
	windowStartMs,
} from '../../../shared/lists/sentWindow';
import { smsListReader } from '../../../shared/lists/smsListReader';
import { sharedLimiter } from '../../../shared/requests/limiter';
import { apiCredentials, RunProgress } from '../../../shared/requests/transport';
import { requestSettings, type RequestSettings } from '../../../shared/requests/requestOptions';
import {
	dateTime,
	fieldsOf,
	integerInRange,
	isSet,
	phoneNumber,
	requiredText,
} from '../../../shared/input/validation';

const showOnlyForSmsGetStatus = { resource: ['sms'], operation: ['getStatus'] };

export const smsGetStatusDescription: INodeProperties[] = [
	{
		displayName:
			'Each input item is looked up in the SMS list by its number and text (spaces around it, line breaks and Unicode forms aside). Placed after SMS → Send, it needs no configuration. Reads the list only: it costs no credits.',
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
			"The number the message was sent to, with country code. The default reads SMS → Send's output field recipient. It is read as Send reads numbers: spaces, dashes, dots, parentheses, a leading + or 00 and a (0) after the country code are ignored; a number with a leading 0 needs its country code.",
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
			"The text as it was sent (spaces around it, line breaks and Unicode forms may differ). The default reads SMS → Send's output field message.",
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
		displayName: 'Sent At',
		name: 'sentAt',
		type: 'string',
		default: '={{ $json.sentAt }}',
		placeholder: 'e.g. 2026-11-25T09:30:00Z',
		description:
			"When the message went out (ISO 8601). The default reads SMS → Send's output field sentAt. An older message with the same number and text is then never taken for it, and a message the list does not show yet is an error. Leave empty to take the most recent matching message of the lookback window.",
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

/** One item's lookup: its message, and the days it may have been sent in. */
interface Lookup {
	itemIndex: number;
	lookbackDays: number;
	/** When the message went out, when the item says so (ms). */
	sentAt?: number;
	message: SentMessage;
}

/** How long after it went out a message not in the list is "not in the list yet". */
const NOT_LISTED_YET_MS = 3_600_000;

/** Reads and checks one item's parameters, or throws an error naming the item and the field. */
function readLookup(
	this: IExecuteFunctions,
	read: Record<'recipient' | 'message' | 'messageId' | 'sentAt', (itemIndex: number) => unknown>,
	itemIndex: number,
	zone: string,
): Lookup {
	const ref = fieldsOf(this.getNode(), itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const lookbackDays = isSet(options.lookbackDays)
		? integerInRange(ref('options.lookbackDays', 'Lookback Days'), options.lookbackDays, 1, 31)
		: 2;
	const messageId = read.messageId(itemIndex);
	const givenSentAt = read.sentAt(itemIndex);
	const given = isSet(givenSentAt) ? dateTime(ref('sentAt', 'Sent At'), givenSentAt) : undefined;
	// A Sent At without an offset (the list's own, as Send gives a message it found there) is the
	// API's local time, in the credential's API Time Zone; one with an offset is n8n's own moment.
	const local = given !== undefined && typeof givenSentAt === 'string' && !hasOffset(givenSentAt);
	const sentAt = local ? apiTime(givenSentAt, zone) : given;
	// Records as old as the window, or as the message less the clocks' difference, whichever is later.
	const since = Math.max(windowStartMs(lookbackDays), (sentAt ?? -Infinity) - CLOCK_MARGIN_MS);
	return {
		itemIndex,
		lookbackDays,
		...(sentAt === undefined ? {} : { sentAt }),
		message: {
			recipient: phoneNumber(ref('recipient', 'Recipient Number'), read.recipient(itemIndex)),
			text: requiredText(ref('message', 'Message'), read.message(itemIndex)),
			...(isSet(messageId) ? { messageId: String(messageId as string | number) } : {}),
			since,
			...(given !== undefined && !local ? { sentAt: given } : {}),
		},
	};
}

/**
 * The error of an item whose message the list does not show, or whose times contradict the
 * credential's API Time Zone (`future`).
 */
function notFound(
	node: INode,
	lookup: Lookup,
	{ future, older, seems, zone = 'UTC' }: FoundMessage,
): Error {
	if (future) {
		return new NodeOperationError(
			node,
			`The SMS list's times contradict the credential's API Time Zone (${zone})`,
			{
				itemIndex: lookup.itemIndex,
				description: `${futureText(future, zone)} No message is taken for this one by such times. ${SET_API_TIME_ZONE}`,
			},
		);
	}
	if (older && seems) return notListed(node, lookup, seemsText(older, seems, zone), seems);
	return notListed(node, lookup, older ? olderText(older, zone) : '');
}

/**
 * The error of an item whose message the list does not show (`older`: what an older one says;
 * `seems`: the zone the list's times seem written in, by that one).
 */
function notListed(
	node: INode,
	{ itemIndex, lookbackDays, sentAt, message }: Lookup,
	older: string,
	seems?: string,
): Error {
	const id = message.messageId === undefined ? '' : ` (message ID ${message.messageId})`;
	const unless = seems === undefined ? '' : `, or the API writes its times in ${seems}`;
	if (sentAt !== undefined && Date.now() - sentAt < NOT_LISTED_YET_MS) {
		return new NodeOperationError(
			node,
			`The message to ${message.recipient} is not in the SMS list yet${unless}`,
			{
				itemIndex,
				description: `It went out at ${new Date(sentAt).toISOString()}, and the API lists a message some time after it accepts it. Run Get Delivery Status again later, for instance after a Wait node. An older message with the same number and text${id} is never taken for it.${older}`,
			},
		);
	}
	return new NodeOperationError(
		node,
		`The message to ${message.recipient} is not in the SMS list of the last ${lookbackDays} days${unless}`,
		{
			itemIndex,
			description: `No message to ${message.recipient} with this text${id} was sent on or after ${sentAt === undefined ? `${utcDay(windowStartMs(lookbackDays))} (UTC)` : new Date(message.since).toISOString()}, or every one there belongs to another item of this run. Check the number and the text, or raise Lookback Days.${older}`,
		},
	);
}

/**
 * Every item's lookup, each checked before the first request: without Continue On Fail one bad
 * item stops the run with nothing read. `fail`: what becomes of an item that is refused.
 */
function readLookups(
	this: IExecuteFunctions,
	itemCount: number,
	zone: string,
	fail: (caught: unknown, itemIndex: number) => void,
): Lookup[] {
	const read = {
		recipient: itemParameterReader(this, 'recipient', ''),
		message: itemParameterReader(this, 'message', ''),
		messageId: itemParameterReader(this, 'messageId', ''),
		sentAt: itemParameterReader(this, 'sentAt', ''),
	};
	const lookups: Lookup[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			lookups.push(readLookup.call(this, read, itemIndex, zone));
		} catch (caught) {
			fail(caught, itemIndex);
		}
	}
	return lookups;
}

/**
 * Reads the SMS list with the credential's shared limiter (Auto), as many pages at once as its
 * window allows, with n8n's Request Options; errors name the first item looked up.
 */
async function smsListFor(
	this: IExecuteFunctions,
	settings: RequestSettings,
	itemIndex: number,
): Promise<{ readPage: SmsPageReader; parallel: () => number }> {
	const credentials = await apiCredentials(this);
	const limiter = sharedLimiter(credentials.baseUrl, credentials.apiToken);
	const readPage = smsListReader.call(this, credentials, {
		request: settings.request,
		control: { gate: limiter, run: new RunProgress() },
		itemIndex,
	});
	return { readPage, parallel: () => limiter.window };
}

/**
 * SMS → Get Delivery Status: one result per item, its SMS record as the list gives it. Items are
 * looked up together (nodes/shared/lists/sentMessages.ts): the list is read once for all of them,
 * from the earliest any of them may have been sent; a few items in a large window are searched by
 * number; all with n8n's Request Options (Proxy, Timeout, Ignore SSL Issues) and the retries of
 * Get Many.
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

	let settings: RequestSettings;
	let zone: string;
	try {
		settings = requestSettings.call(this);
		zone = apiZoneOf(node, await apiCredentials(this));
	} catch (caught) {
		const error = nodeError(node, caught, 0);
		if (!continueOnFail) throw error;
		return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
	}
	const lookups = readLookups.call(this, items.length, zone, fail);
	if (lookups.length === 0) return [results];

	const first = lookups[0].itemIndex;
	const smsList = await smsListFor.call(this, settings, first);
	let found: FoundMessage[];
	try {
		found = await findSentMessages(
			lookups.map(({ message }) => message),
			{ ...smsList, zone, repeated: repeatedPagesError(node, 'running it again is safe', first) },
		);
	} catch (caught) {
		// The list could not be read: no item has an answer.
		for (const { itemIndex } of lookups) fail(caught, itemIndex);
		return [results];
	}
	lookups.forEach((lookup, k) => {
		const { record } = found[k];
		if (record)
			results[lookup.itemIndex] = {
				json: maskedSmsRecord(record),
				pairedItem: { item: lookup.itemIndex },
			};
		else fail(notFound(node, lookup, found[k]), lookup.itemIndex);
	});
	return [results];
}
