import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type JsonObject,
} from 'n8n-workflow';

import { unexpectedBodyError, unwrapData } from '../../shared/errors';
import { CREDENTIAL_TYPE } from '../../shared/routing';
import { phoneNumber, requiredText, senderIdName, type FieldRef } from '../../shared/validation';

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
	{
		displayName: 'Sender ID',
		name: 'senderId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. ACMESHOP',
		description:
			'The approved Sender ID name shown to recipients (at most 11 characters). A PENDING Sender ID cannot send yet.',
		displayOptions: { show: showOnlySmsSend },
	},
	{
		displayName: 'Recipient Number',
		name: 'number',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 254712345678 or {{ $json.phone }}',
		description:
			'Phone number with country code, read from each item. Spaces, dashes, dots, parentheses and a leading + or 00 are removed before sending.',
		displayOptions: { show: showOnlySmsSend },
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		placeholder: 'e.g. Hi {{ $json.name }}, your order has shipped.',
		description:
			'Text for this recipient, read from each item. Up to 160 plain characters (70 with emoji or non-Latin letters) fit in one SMS part; longer texts are split and cost a credit per part.',
		displayOptions: { show: showOnlySmsSend },
	},
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
				displayName: 'Batch Size',
				name: 'batchSize',
				type: 'number',
				default: 100,
				typeOptions: { minValue: 1, maxValue: 1000 },
				description:
					'How many messages go in one request to the API. Fewer requests are faster; the API publishes no maximum.',
			},
		],
	},
];

/** One input item turned into what the API calls an envelope. */
interface Envelope {
	itemIndex: number;
	senderId: string;
	envelope: { number: string; message: string; thirdPartyRef?: string };
}

interface SendOutcome {
	batch: Envelope[];
	request: number;
}

function field(this: IExecuteFunctions, itemIndex: number, name: string, label: string): FieldRef {
	return { node: this.getNode(), itemIndex, field: name, label };
}

function readEnvelope(this: IExecuteFunctions, itemIndex: number): Envelope {
	const param = (name: string) => this.getNodeParameter(name, itemIndex, '') as unknown;
	const ref = field.bind(this, itemIndex);
	const thirdPartyRef = param('thirdPartyRef');
	const envelope: Envelope['envelope'] = {
		number: phoneNumber(ref('number', 'Recipient Number'), param('number')),
		message: requiredText(ref('message', 'Message'), param('message')),
	};
	if (thirdPartyRef !== '' && thirdPartyRef !== undefined && thirdPartyRef !== null) {
		envelope.thirdPartyRef = requiredText(ref('thirdPartyRef', 'Reference'), thirdPartyRef);
	}
	return {
		itemIndex,
		senderId: senderIdName(ref('senderId', 'Sender ID'), param('senderId')),
		envelope,
	};
}

/** Envelopes go out in input order, split by Sender ID (one per request) and by batch size. */
function toBatches(envelopes: Envelope[], batchSize: number): Envelope[][] {
	const bySender = new Map<string, Envelope[]>();
	for (const envelope of envelopes) {
		const group = bySender.get(envelope.senderId) ?? [];
		group.push(envelope);
		bySender.set(envelope.senderId, group);
	}
	const batches: Envelope[][] = [];
	for (const group of bySender.values()) {
		for (let start = 0; start < group.length; start += batchSize) {
			batches.push(group.slice(start, start + batchSize));
		}
	}
	return batches;
}

/** "0-99, 150" for item indexes 0 to 99 and 150. */
function itemRanges(indexes: number[]): string {
	const sorted = [...indexes].sort((a, b) => a - b);
	const ranges: string[] = [];
	for (let i = 0; i < sorted.length; i++) {
		const start = sorted[i];
		while (i + 1 < sorted.length && sorted[i + 1] === sorted[i] + 1) i++;
		ranges.push(start === sorted[i] ? `${start}` : `${start}-${sorted[i]}`);
	}
	return ranges.join(', ');
}

async function postBatch(
	this: IExecuteFunctions,
	batch: Envelope[],
	credentials: { sendBaseUrl: string; apiToken: string },
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const context = { operation: 'sms:send' as const, apiToken: credentials.apiToken };
	const response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
		method: 'POST',
		baseURL: credentials.sendBaseUrl,
		url: '/outgoings/send',
		body: { senderId: batch[0].senderId, envelopes: batch.map(({ envelope }) => envelope) },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	})) as { statusCode: number; body: unknown };

	const data = unwrapData(node, response.statusCode, response.body, context);
	const { outgoings, balance } = data;
	if (!Array.isArray(outgoings) || outgoings.length !== batch.length) {
		throw unexpectedBodyError(
			node,
			response.statusCode,
			`${batch.length} messages were sent but ${Array.isArray(outgoings) ? outgoings.length : 'no'} outgoing records came back`,
			context,
		);
	}
	return batch.map(({ itemIndex }, k) => ({
		json: { ...(outgoings[k] as IDataObject), balance } as JsonObject,
		pairedItem: { item: itemIndex },
	}));
}

function describeFailure(
	error: NodeApiError,
	failed: SendOutcome,
	accepted: SendOutcome[],
	notAttempted: Envelope[],
	requests: number,
): NodeApiError {
	const lines = [
		`Request ${failed.request} of ${requests} failed for items ${itemRanges(failed.batch.map((e) => e.itemIndex))}: ${error.message}`,
	];
	if (error.description) lines.push(error.description);
	if (accepted.length) {
		const sent = accepted.map(
			({ batch, request }) => `request ${request}: items ${itemRanges(batch.map((e) => e.itemIndex))}`,
		);
		lines.push(
			`Already sent and charged (${accepted.reduce((n, { batch }) => n + batch.length, 0)} messages): ${sent.join('; ')}. Do not run these items again or they are sent twice.`,
		);
	} else {
		lines.push('No message of this run was sent.');
	}
	if (notAttempted.length) {
		lines.push(`Not attempted: items ${itemRanges(notAttempted.map((e) => e.itemIndex))}.`);
	}
	return new NodeApiError(
		error.node,
		{ message: error.message, httpCode: error.httpCode },
		{
			message: error.message,
			description: lines.join('\n'),
			httpCode: error.httpCode ?? undefined,
			itemIndex: failed.batch[0].itemIndex,
		},
	);
}

/**
 * SMS → Send. Declarative routing makes one request per item; this sends every item of the run
 * as envelopes of as few requests as the batch size allows, after checking all of them.
 */
export async function send(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const batchSize = this.getNodeParameter('options.batchSize', 0, 100) as number;
	const results: INodeExecutionData[] = new Array(items.length);
	const errorItem = (itemIndex: number, error: { message: string; description?: string | null }) => {
		results[itemIndex] = {
			json: { error: error.message, ...(error.description ? { details: error.description } : {}) },
			pairedItem: { item: itemIndex },
		};
	};

	const envelopes: Envelope[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			envelopes.push(readEnvelope.call(this, itemIndex));
		} catch (error) {
			// Nothing has been sent yet: without Continue On Fail one bad item stops the whole run.
			if (!this.continueOnFail()) throw new NodeOperationError(this.getNode(), error as Error);
			errorItem(itemIndex, error as Error);
		}
	}

	const credentials = await this.getCredentials<{ sendBaseUrl: string; apiToken: string }>(
		CREDENTIAL_TYPE,
	);
	const batches = toBatches(envelopes, batchSize);
	const accepted: SendOutcome[] = [];
	for (const [index, batch] of batches.entries()) {
		const outcome = { batch, request: index + 1 };
		try {
			const sent = await postBatch.call(this, batch, credentials);
			for (const item of sent) results[(item.pairedItem as { item: number }).item] = item;
			accepted.push(outcome);
		} catch (caught) {
			const error =
				caught instanceof NodeApiError ? caught : new NodeApiError(this.getNode(), caught as JsonObject);
			if (!this.continueOnFail()) {
				const notAttempted = batches.slice(index + 1).flat();
				throw describeFailure(error, outcome, accepted, notAttempted, batches.length);
			}
			for (const { itemIndex } of batch) errorItem(itemIndex, error);
		}
	}
	return [results];
}
