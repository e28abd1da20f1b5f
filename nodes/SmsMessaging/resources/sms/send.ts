import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeProperties,
	type IPairedItemData,
	type JsonObject,
} from 'n8n-workflow';

import { errorItem, nodeError, unwrapData } from '../../shared/errors';
import { itemParameterReader } from '../../shared/itemParameters';
import { estimateParts } from '../../shared/smsParts';
import {
	CREDENTIAL_TYPE,
	DEFAULT_PARALLEL_REQUESTS,
	DEFAULT_RETRY,
	requestSettings,
	requestWithRetry,
	RetryGate,
	unansweredText,
	type RequestControl,
	type RequestSettings,
	type RetryPolicy,
} from '../../shared/transport';
import {
	booleanValue,
	integerInRange,
	isSet,
	oneOf,
	phoneNumber,
	requiredText,
	senderIdName,
	fieldsOf,
} from '../../shared/validation';

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
				displayName: 'Dry Run',
				name: 'dryRun',
				type: 'boolean',
				default: false,
				description:
					'Whether to only check the items and estimate their cost, without sending anything. Each item shows its normalised number, encoding, SMS parts and estimated credits.',
			},
			{
				displayName: 'Max Attempts',
				name: 'maxAttempts',
				type: 'number',
				default: 4,
				typeOptions: { minValue: 1, maxValue: 10 },
				description:
					'Attempts per request when the API asks to slow down (429), is unavailable (503) or refuses the connection. Only failures that prove nothing was sent are retried.',
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
				typeOptions: { minValue: 1, maxValue: 16 },
				description:
					'How many send requests may be in flight at once, after the first request of the run has gone out alone. 1 sends one request after another. A 429 or 503 on any request holds back all of them.',
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

interface SendOptions {
	batchSize: number;
	dryRun: boolean;
	maxAttempts: number;
	maxMessages: number;
	onRequestFailure: 'stop' | 'continue';
	parallelRequests: number;
}

/** Why the items of one request did not go out as sent. */
interface Failure {
	status: 'failed' | 'deliveryUnknown';
	message: string;
	description?: string;
	httpCode?: string;
}

/** What happened to the items of one request. */
type Outcome =
	| { status: 'sent'; items: INodeExecutionData[] }
	| Failure
	/** The run stopped before this request went out. */
	| { status: 'notAttempted' };

interface BatchReport {
	request: number;
	batch: Envelope[];
	outcome: Exclude<Outcome, { status: 'notAttempted' }>;
}

type ParameterReaders = Record<
	'senderId' | 'number' | 'message' | 'thirdPartyRef',
	(itemIndex: number) => unknown
>;

function readEnvelope(
	this: IExecuteFunctions,
	read: ParameterReaders,
	itemIndex: number,
): Envelope {
	const ref = fieldsOf(this.getNode(), itemIndex);
	const thirdPartyRef = read.thirdPartyRef(itemIndex);
	const envelope: Envelope['envelope'] = {
		number: phoneNumber(ref('number', 'Recipient Number'), read.number(itemIndex)),
		message: requiredText(ref('message', 'Message'), read.message(itemIndex)),
	};
	if (isSet(thirdPartyRef)) {
		envelope.thirdPartyRef = requiredText(ref('thirdPartyRef', 'Reference'), thirdPartyRef);
	}
	return {
		itemIndex,
		senderId: senderIdName(ref('senderId', 'Sender ID'), read.senderId(itemIndex)),
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
function itemRanges(envelopes: Envelope[]): string {
	const sorted = envelopes.map((e) => e.itemIndex).sort((a, b) => a - b);
	const ranges: string[] = [];
	for (let i = 0; i < sorted.length; i++) {
		const start = sorted[i];
		while (i + 1 < sorted.length && sorted[i + 1] === sorted[i] + 1) i++;
		ranges.push(start === sorted[i] ? `${start}` : `${start}-${sorted[i]}`);
	}
	return ranges.join(', ');
}

/** Why the outgoing records cannot be matched to the envelopes sent, if they cannot. */
function outgoingsMismatch(outgoings: unknown, batch: Envelope[]): string | undefined {
	if (!Array.isArray(outgoings)) return 'its answer has no "outgoings" list';
	if (outgoings.length !== batch.length) {
		return `${outgoings.length} outgoing records came back for ${batch.length} messages`;
	}
	// Only references that were sent can be compared: the API echoes what it was given.
	const misordered = batch.some(
		({ envelope }, k) =>
			envelope.thirdPartyRef !== undefined &&
			(outgoings[k] as IDataObject | undefined)?.thirdPartyRef !== envelope.thirdPartyRef,
	);
	return misordered ? 'the outgoing records do not echo the references sent, in order' : undefined;
}

const DELIVERY_UNKNOWN_HINT =
	'The API may have accepted these messages. Check SMS → Get Many (search by number or text) before sending them again.';

/** Sends one batch and accounts for every envelope in it. */
export async function sendBatch(
	this: IExecuteFunctions,
	batch: Envelope[],
	credentials: { sendBaseUrl: string; apiToken: string },
	options: SendOptions,
	settings: RequestSettings,
	control: RequestControl,
): Promise<Outcome> {
	const node = this.getNode();
	const context = { operation: 'sms:send' as const, apiToken: credentials.apiToken };
	const policy: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: options.maxAttempts };
	const delivery = await requestWithRetry.call(
		this,
		{
			method: 'POST',
			baseURL: credentials.sendBaseUrl,
			url: '/outgoings/send',
			body: { senderId: batch[0].senderId, envelopes: batch.map(({ envelope }) => envelope) },
			json: true,
			...settings.request,
			timeout: settings.request.timeout ?? 60_000,
		},
		policy,
		control,
	);
	if (delivery.outcome === 'notStarted') return { status: 'notAttempted' };
	if (delivery.outcome !== 'answered') {
		const code = delivery.code ? `Network error code: ${delivery.code}.` : undefined;
		if (delivery.outcome === 'notSent') {
			return {
				status: 'failed',
				message: `Not sent: ${unansweredText(delivery)}`,
				description: [code, 'Nothing reached the API, so these messages can be sent again.']
					.filter(Boolean)
					.join('\n'),
			};
		}
		return {
			status: 'deliveryUnknown',
			message: `Delivery unknown: ${unansweredText(delivery)}`,
			description: [code, DELIVERY_UNKNOWN_HINT].filter(Boolean).join('\n'),
		};
	}

	const { response } = delivery;
	const { statusCode } = response;
	let data: JsonObject;
	try {
		data = unwrapData(node, statusCode, response.body, context);
	} catch (caught) {
		const error = caught as NodeApiError;
		// A 2xx was accepted (and charged) even when its answer cannot be read; a gateway
		// timeout may hide a processed request.
		const unknown = statusCode < 300 || statusCode === 502 || statusCode === 504;
		return {
			status: unknown ? 'deliveryUnknown' : 'failed',
			message: unknown ? `Delivery unknown: ${error.message}` : error.message,
			description: unknown
				? [error.description, DELIVERY_UNKNOWN_HINT].filter(Boolean).join('\n')
				: (error.description ?? undefined),
			httpCode: String(statusCode),
		};
	}

	const { outgoings, balance } = data;
	const mismatch = outgoingsMismatch(outgoings, batch);
	if (mismatch) {
		return {
			status: 'deliveryUnknown',
			message: `Delivery unknown: the API accepted the request (HTTP ${statusCode}) but ${mismatch}`,
			description: DELIVERY_UNKNOWN_HINT,
			httpCode: String(statusCode),
		};
	}
	return {
		status: 'sent',
		items: batch.map(({ itemIndex }, k) => ({
			json: { ...((outgoings as IDataObject[])[k] as IDataObject), balance } as JsonObject,
			pairedItem: { item: itemIndex },
		})),
	};
}

/** The error that stops a run, saying exactly which items went out and which did not. */
export function runError(
	node: INode,
	reports: BatchReport[],
	notAttempted: Envelope[],
	requests: number,
): NodeApiError {
	const failures = reports.filter((r) => r.outcome.status !== 'sent');
	const first = failures[0].outcome as Failure;
	const lines: string[] = [];
	for (const { request, batch, outcome } of failures) {
		if (outcome.status === 'sent') continue;
		const what = outcome.status === 'failed' ? 'failed' : 'delivery unknown';
		lines.push(
			`Request ${request} of ${requests} ${what} for items ${itemRanges(batch)}: ${outcome.message}`,
		);
		if (outcome.description) lines.push(outcome.description);
		if (outcome.status === 'deliveryUnknown') {
			lines.push(`Envelopes: ${JSON.stringify(batch.map(({ envelope }) => envelope))}`);
		}
	}
	const sent = reports.filter((r) => r.outcome.status === 'sent');
	if (sent.length) {
		const count = sent.reduce((n, { batch }) => n + batch.length, 0);
		const where = sent.map(
			({ request, batch }) => `request ${request}: items ${itemRanges(batch)}`,
		);
		lines.push(
			`Already sent and charged (${count} messages): ${where.join('; ')}. Do not run these items again or they are sent twice.`,
		);
	} else {
		lines.push('No message of this run was sent.');
	}
	if (notAttempted.length) lines.push(`Not attempted: items ${itemRanges(notAttempted)}.`);
	return new NodeApiError(
		node,
		{ message: first.message, httpCode: first.httpCode ?? null },
		{
			message: first.message,
			description: lines.join('\n'),
			httpCode: first.httpCode,
			itemIndex: failures[0].batch[0].itemIndex,
		},
	);
}

function dryRunItems(envelopes: Envelope[]): INodeExecutionData[] {
	const estimates = envelopes.map(({ envelope }) => estimateParts(envelope.message));
	const totalCredits = estimates.reduce((sum, { parts }) => sum + parts, 0);
	return envelopes.map(({ itemIndex, senderId, envelope }, k) => ({
		json: {
			dryRun: true,
			senderId,
			...envelope,
			encoding: estimates[k].encoding,
			characters: estimates[k].length,
			parts: estimates[k].parts,
			estimatedCredits: estimates[k].parts,
			totalMessages: envelopes.length,
			totalEstimatedCredits: totalCredits,
		},
		pairedItem: { item: itemIndex },
	}));
}

/**
 * The run's options, checked before anything is sent: set by an expression, a batch size of 0
 * would never end and one of "abc" would send an empty request.
 */
function readOptions(this: IExecuteFunctions): SendOptions {
	const given = this.getNodeParameter('options', 0, {}) as IDataObject;
	const ref = fieldsOf(this.getNode(), 0, 'options');
	const option = <T>(field: keyof SendOptions, fallback: T, check: (value: unknown) => T): T =>
		isSet(given[field]) ? check(given[field]) : fallback;
	return {
		batchSize: option('batchSize', 100, (v) =>
			integerInRange(ref('batchSize', 'Batch Size'), v, 1, 1000),
		),
		dryRun: option('dryRun', false, (v) => booleanValue(ref('dryRun', 'Dry Run'), v)),
		maxAttempts: option('maxAttempts', DEFAULT_RETRY.maxAttempts, (v) =>
			integerInRange(ref('maxAttempts', 'Max Attempts'), v, 1, 10),
		),
		maxMessages: option('maxMessages', 0, (v) =>
			integerInRange(ref('maxMessages', 'Max Messages per Run'), v, 0),
		),
		onRequestFailure: option('onRequestFailure', 'stop', (v) =>
			oneOf(ref('onRequestFailure', 'After a Failed Request'), v, ['stop', 'continue']),
		) as SendOptions['onRequestFailure'],
		parallelRequests: option('parallelRequests', DEFAULT_PARALLEL_REQUESTS, (v) =>
			integerInRange(ref('parallelRequests', 'Requests in Parallel'), v, 1, 16),
		),
	};
}

interface RunPlan {
	options: SendOptions;
	settings: RequestSettings;
	envelopes: Envelope[];
	/** Error items of the items that were refused (only with Continue On Fail). */
	refused: INodeExecutionData[];
	credentials: { sendBaseUrl: string; apiToken: string };
}

/**
 * Everything checked before the first request: the options, n8n's Request Options, every item's
 * envelope, the cap on messages and the credential.
 */
export async function planRun(this: IExecuteFunctions, continueOnFail: boolean): Promise<RunPlan> {
	const options = readOptions.call(this);
	const settings = requestSettings.call(this);
	const read: ParameterReaders = {
		senderId: itemParameterReader(this, 'senderId', ''),
		number: itemParameterReader(this, 'number', ''),
		message: itemParameterReader(this, 'message', ''),
		thirdPartyRef: itemParameterReader(this, 'thirdPartyRef', ''),
	};
	const envelopes: Envelope[] = [];
	const refused: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < this.getInputData().length; itemIndex++) {
		try {
			envelopes.push(readEnvelope.call(this, read, itemIndex));
		} catch (caught) {
			// Nothing has been sent yet: without Continue On Fail one bad item stops the whole run.
			const error = nodeError(this.getNode(), caught, itemIndex);
			if (!continueOnFail) throw error;
			refused.push(errorItem(error, itemIndex));
		}
	}
	if (options.maxMessages > 0 && envelopes.length > options.maxMessages) {
		throw new NodeOperationError(
			this.getNode(),
			`This run would send ${envelopes.length} messages, more than Max Messages per Run (${options.maxMessages})`,
			{ description: 'Nothing was sent. Raise the cap in Options, or send fewer items.' },
		);
	}
	const credentials = await this.getCredentials<{ sendBaseUrl: string; apiToken: string }>(
		CREDENTIAL_TYPE,
	);
	return { options, settings, envelopes, refused, credentials };
}

/** The error item of one envelope that did not go out as sent; `outcome` says what happened. */
function outcomeItem(
	node: INode,
	failure: Pick<Failure, 'message' | 'description' | 'httpCode'>,
	{ itemIndex, envelope }: Envelope,
	outcome: string,
): INodeExecutionData {
	const description = [
		`Outcome: ${outcome}.`,
		failure.description,
		`Envelope: ${JSON.stringify(envelope)}`,
	];
	const details = {
		message: failure.message,
		description: description.filter(Boolean).join('\n'),
		itemIndex,
	};
	const error = failure.httpCode
		? new NodeApiError(
				node,
				{ message: failure.message },
				{ ...details, httpCode: failure.httpCode },
			)
		: new NodeOperationError(node, failure.message, details);
	return errorItem(error, itemIndex);
}

/**
 * Sends the batches, `options.parallelRequests` at a time after the first, which goes alone (a
 * wrong token, Sender ID or balance then fails one request, not several). Requests start in batch
 * order and at least `batchInterval` apart. With After a Failed Request = Stop, no request starts
 * once one has failed for good: those in flight finish and are reported, the others are not
 * attempted. A 429 or 503 on any request holds back all of them (one gate for the run).
 */
export async function sendAll(
	batches: Envelope[][],
	sendOne: (batch: Envelope[], control: RequestControl) => Promise<Outcome>,
	options: SendOptions,
	batchInterval: number,
): Promise<{ reports: BatchReport[]; notAttempted: Envelope[] }> {
	const reports: BatchReport[] = [];
	const notAttempted: Envelope[] = [];
	let stopped = false;
	const control: RequestControl = { gate: new RetryGate(), stopped: () => stopped };
	let nextStart = 0;
	const send = async (index: number) => {
		if (batchInterval > 0) {
			// Batch Interval spaces the starts of requests, whatever runs in parallel.
			const now = Date.now();
			const at = Math.max(now, nextStart);
			nextStart = at + batchInterval;
			if (at > now) await sleep(at - now);
		}
		const batch = batches[index];
		const outcome = await sendOne(batch, control);
		if (outcome.status === 'notAttempted') {
			notAttempted.push(...batch);
			return;
		}
		reports[index] = { request: index + 1, batch, outcome };
		if (outcome.status !== 'sent' && options.onRequestFailure === 'stop') stopped = true;
	};
	let next = 0;
	const worker = async () => {
		while (!stopped && next < batches.length) await send(next++);
	};
	if (batches.length > 0) await send(next++);
	const workers = Math.min(options.parallelRequests, batches.length - next);
	await Promise.all(Array.from({ length: workers }, worker));
	notAttempted.push(...batches.slice(next).flat());
	// Reports in request order; the indexes of requests that never went out are holes.
	return { reports: reports.filter(Boolean), notAttempted };
}

/**
 * SMS → Send: every item of the run goes out as an envelope, in as few requests as the batch
 * size allows, after all of them are checked; every item is accounted for whatever the API or the
 * network does.
 */
export async function send(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	let plan: RunPlan;
	try {
		plan = await planRun.call(this, continueOnFail);
	} catch (caught) {
		const error = nodeError(node, caught, 0);
		if (!continueOnFail) throw error;
		// A refused run sends nothing, so no item may pass through as if it had been sent: n8n would
		// pass the input on if this threw under Continue On Fail.
		return [items.map((_, itemIndex) => errorItem(error, itemIndex))];
	}
	const { options, settings, envelopes, refused, credentials } = plan;
	const results: INodeExecutionData[] = new Array(items.length);
	const place = (item: INodeExecutionData) => {
		results[(item.pairedItem as IPairedItemData).item] = item;
	};
	refused.forEach(place);
	if (options.dryRun) {
		dryRunItems(envelopes).forEach(place);
		return [results];
	}

	// Request Options → Batching: no request carries more than Items per Batch envelopes.
	const batches = toBatches(envelopes, Math.min(options.batchSize, settings.itemsPerBatch));
	const { reports, notAttempted } = await sendAll(
		batches,
		(batch, control) => sendBatch.call(this, batch, credentials, options, settings, control),
		options,
		settings.batchInterval,
	);

	const failed = reports.some(({ outcome }) => outcome.status !== 'sent');
	if (failed && !continueOnFail) throw runError(node, reports, notAttempted, batches.length);

	for (const { request, batch, outcome } of reports) {
		if (outcome.status === 'sent') {
			outcome.items.forEach(place);
			continue;
		}
		const what = outcome.status === 'failed' ? 'failed' : 'delivery unknown';
		for (const envelope of batch) {
			place(
				outcomeItem(node, outcome, envelope, `${what}, request ${request} of ${batches.length}`),
			);
		}
	}
	const skipped = {
		message: 'Not attempted: an earlier request of this run failed',
		description: 'Nothing of it was sent, so it can be sent again.',
	};
	for (const envelope of notAttempted) place(outcomeItem(node, skipped, envelope, 'not attempted'));
	return [results];
}
