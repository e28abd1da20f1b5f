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

import {
	envelopeKey,
	matchOutgoings,
	readEnvelope,
	toBatches,
	type Envelope,
	type EnvelopeReaders,
} from '../../shared/envelopes';
import { errorItem, nodeError, readAnswer } from '../../shared/errors';
import { itemParameterReader } from '../../shared/itemParameters';
import {
	NOT_REACHED_HINT,
	itemRanges,
	OUTCOME_WORDS,
	REFUSED_HINT,
	runSummary,
	statusOutcome,
	UNKNOWN_HINT,
	type SendOutcome,
} from '../../shared/outcome';
import { readLedger, writeLedger, type LedgerEntry } from '../../shared/sendLedger';
import { lookUpSent } from '../../shared/sendLookup';
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
	fieldsOf,
	httpUrl,
	integerInRange,
	isSet,
	oneOf,
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

interface SendOptions {
	batchSize: number;
	dryRun: boolean;
	maxAttempts: number;
	maxMessages: number;
	onRequestFailure: 'stop' | 'continue';
	parallelRequests: number;
}

/** Why messages did not go out as sent, in the words the run reports. */
interface Failure {
	outcome: 'notSent' | 'unknown';
	message: string;
	description?: string;
	httpCode?: string;
}

/** What one request did: every envelope's output item when sent, and why the others were not. */
interface RequestResult {
	/** By position in the batch: the item of a sent envelope, undefined for the others. */
	sent: Array<INodeExecutionData | undefined>;
	/** Set when any envelope of the request was not sent: what happened to those. */
	failure?: Failure;
}

interface RequestReport extends RequestResult {
	request: number;
	batch: Envelope[];
}

const join = (...lines: Array<string | undefined | null>) => lines.filter(Boolean).join('\n');

/** Sends one batch and accounts for every envelope in it; undefined when it was never made. */
async function sendBatch(
	this: IExecuteFunctions,
	batch: Envelope[],
	credentials: { sendBaseUrl: string; apiToken: string },
	options: SendOptions,
	settings: RequestSettings,
	control: RequestControl,
): Promise<RequestResult | undefined> {
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
	if (delivery.outcome === 'notStarted') return undefined;
	const none = batch.map(() => undefined);
	if (delivery.outcome !== 'answered') {
		const code = delivery.code ? `Network error code: ${delivery.code}.` : undefined;
		const notSent = delivery.outcome === 'notSent';
		return {
			sent: none,
			failure: {
				outcome: delivery.outcome,
				message: `${notSent ? 'Not sent' : 'Delivery unknown'}: ${unansweredText(delivery)}`,
				description: join(code, notSent ? NOT_REACHED_HINT : UNKNOWN_HINT),
			},
		};
	}

	const { statusCode, body } = delivery.response;
	const httpCode = String(statusCode);
	const answer = readAnswer(node, statusCode, body, context);
	if ('error' in answer) {
		const { error } = answer;
		// A 2xx whose body cannot be read was still accepted, and charged.
		const outcome = statusOutcome(statusCode) === 'notSent' ? 'notSent' : 'unknown';
		const hint = outcome === 'notSent' ? REFUSED_HINT : UNKNOWN_HINT;
		const description = error.description ?? '';
		return {
			sent: none,
			failure: {
				outcome,
				message: outcome === 'notSent' ? error.message : `Delivery unknown: ${error.message}`,
				description: join(description, description.includes(hint) ? undefined : hint),
				httpCode,
			},
		};
	}

	const { outgoings, balance } = answer.data;
	const records = matchOutgoings(outgoings, batch);
	const sent = records.map((record, k) =>
		record
			? { json: { ...record, balance } as JsonObject, pairedItem: { item: batch[k].itemIndex } }
			: undefined,
	);
	const missing = records.filter((record) => !record).length;
	if (missing === 0) return { sent };
	const why = Array.isArray(outgoings)
		? `no outgoing record echoes the number, text and reference of ${missing} of its ${batch.length} messages`
		: 'its answer has no "outgoings" list';
	return {
		sent,
		failure: {
			outcome: 'unknown',
			message: `Delivery unknown: the API accepted the request (HTTP ${statusCode}) but ${why}`,
			description: UNKNOWN_HINT,
			httpCode,
		},
	};
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
 * envelope, the cap on messages and the credential's URLs.
 */
export async function planRun(this: IExecuteFunctions, continueOnFail: boolean): Promise<RunPlan> {
	const options = readOptions.call(this);
	const settings = requestSettings.call(this);
	const node = this.getNode();
	const read: EnvelopeReaders = {
		senderId: itemParameterReader(this, 'senderId', ''),
		number: itemParameterReader(this, 'number', ''),
		message: itemParameterReader(this, 'message', ''),
		thirdPartyRef: itemParameterReader(this, 'thirdPartyRef', ''),
	};
	const envelopes: Envelope[] = [];
	const refused: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < this.getInputData().length; itemIndex++) {
		try {
			envelopes.push(readEnvelope(node, read, itemIndex));
		} catch (caught) {
			// Nothing has been sent yet: without Continue On Fail one bad item stops the whole run.
			const error = nodeError(node, caught, itemIndex);
			if (!continueOnFail) throw error;
			refused.push(errorItem(error, itemIndex));
		}
	}
	if (options.maxMessages > 0 && envelopes.length > options.maxMessages) {
		throw new NodeOperationError(
			node,
			`This run would send ${envelopes.length} messages, more than Max Messages per Run (${options.maxMessages})`,
			{ description: 'Nothing was sent. Raise the cap in Options, or send fewer items.' },
		);
	}
	const credentials = await this.getCredentials<{
		baseUrl: string;
		sendBaseUrl: string;
		apiToken: string;
	}>(CREDENTIAL_TYPE);
	const ref = fieldsOf(node, undefined);
	httpUrl(ref('baseUrl', 'Base URL'), credentials.baseUrl);
	httpUrl(ref('sendBaseUrl', 'Send Base URL'), credentials.sendBaseUrl);
	return { options, settings, envelopes, refused, credentials };
}

/** The error item of one envelope that did not go out as sent; `outcome` says what happened. */
function outcomeItem(
	node: INode,
	failure: Omit<Failure, 'outcome'>,
	{ itemIndex, envelope }: Envelope,
	outcome: string,
): INodeExecutionData {
	const details = {
		message: failure.message,
		description: join(
			`Outcome: ${outcome}.`,
			failure.description,
			`Envelope: ${JSON.stringify(envelope)}`,
		),
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
async function sendAll(
	batches: Envelope[][],
	sendOne: (batch: Envelope[], control: RequestControl) => Promise<RequestResult | undefined>,
	options: SendOptions,
	batchInterval: number,
): Promise<{ reports: RequestReport[]; notAttempted: Envelope[] }> {
	const reports: RequestReport[] = [];
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
		const result = await sendOne(batch, control);
		if (!result) {
			notAttempted.push(...batch);
			return;
		}
		reports[index] = { request: index + 1, batch, ...result };
		if (result.failure && options.onRequestFailure === 'stop') stopped = true;
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

/** What became of one envelope of the run, and where it is told. */
export type Account =
	| { outcome: 'sent'; item: INodeExecutionData }
	| {
			outcome: 'notSent' | 'unknown';
			failure: Omit<Failure, 'outcome'>;
			where: string;
			/** unknown: when the try that made the request started (ms), for the SMS list lookup. */
			triedAt?: number;
	  };

const NOT_ATTEMPTED_WHERE = 'not attempted';

const NOT_ATTEMPTED = {
	message: 'Not attempted: an earlier request of this run failed',
	description: 'Nothing of it was sent, so it can be sent again.',
};

const EARLIER_UNKNOWN_HINT =
	"An earlier try of this node in this execution (n8n's Retry On Fail, or the failed execution this one retries) may have sent it, so it was not sent again. " +
	UNKNOWN_HINT;

/**
 * The error that stops a run, saying exactly which items went out, which did not and which may
 * have: each failed request, then the run's account of every item.
 */
export function runError(
	node: INode,
	reports: RequestReport[],
	accounts: Map<Envelope, Account>,
	recalled: Envelope[],
	requests: number,
	{ retrySkipsSent = true }: { retrySkipsSent?: boolean } = {},
): NodeApiError {
	const open = (batch: Envelope[]) =>
		batch.filter((envelope) => accounts.get(envelope)?.outcome !== 'sent');
	const failed = reports.filter((report) => report.failure && open(report.batch).length > 0);
	const lines: string[] = [];
	for (const { request, batch, failure } of failed) {
		const { outcome, message } = failure!;
		const left = open(batch);
		// What the run found out since (the SMS list lookup) is in the account, not the report.
		const account = accounts.get(left[0]);
		const description = account?.outcome === 'sent' ? undefined : account?.failure.description;
		lines.push(
			`Request ${request} of ${requests}, items ${itemRanges(left.map((e) => e.itemIndex))}, ${OUTCOME_WORDS[outcome]}: ${message}`,
		);
		if (description) lines.push(description);
		if (outcome === 'unknown') {
			lines.push(`Envelopes: ${JSON.stringify(left.map(({ envelope }) => envelope))}`);
		}
	}
	const notAttempted = [...accounts]
		.filter(([, account]) => account.outcome === 'notSent' && account.where === NOT_ATTEMPTED_WHERE)
		.map(([{ itemIndex }]) => itemIndex);
	if (notAttempted.length) {
		lines.push(`Not attempted, as the run stopped first: items ${itemRanges(notAttempted)}.`);
	}
	if (recalled.length) {
		lines.push(
			`Items ${itemRanges(recalled.map((e) => e.itemIndex))} went out in an earlier try of this node in this execution (n8n's Retry On Fail, or the failed execution this one retries) and were not sent again.`,
		);
	}
	const found = [...accounts]
		.filter(([, account]) => account.outcome === 'sent' && account.item.json.foundInSmsList)
		.map(([{ itemIndex }]) => itemIndex);
	if (found.length) {
		lines.push(
			`Items ${itemRanges(found)} had an unknown outcome but were then found in the SMS list, so they were sent.`,
		);
	}
	const byOutcome: Record<SendOutcome, number[]> = { sent: [], notSent: [], unknown: [] };
	for (const [{ itemIndex }, account] of accounts) byOutcome[account.outcome].push(itemIndex);
	lines.push(...runSummary(byOutcome, { retrySkipsSent }));
	// The headline: the first failed request, or else (its items all found sent since) the first
	// item that is not sent, in its own words.
	const firstOpen = [...accounts]
		.filter(([, account]) => account.outcome !== 'sent')
		.sort(([a], [b]) => a.itemIndex - b.itemIndex)[0];
	const openFailure = firstOpen?.[1].outcome === 'sent' ? undefined : firstOpen?.[1].failure;
	const first = failed[0]?.failure ?? openFailure ?? { message: 'Delivery unknown' };
	const itemIndex = firstOpen?.[0].itemIndex;
	return new NodeApiError(
		node,
		{ message: first.message, httpCode: first.httpCode ?? null },
		{ message: first.message, description: lines.join('\n'), httpCode: first.httpCode, itemIndex },
	);
}

/**
 * A message found in the SMS list after an unknown outcome, in the shape of Send's other items
 * (the outgoing record's fields, from the envelope and the list's record), so that what follows
 * Send reads it alike (SMS → Get Delivery Status reads `recipient`, `message` and `id`). The list's
 * record is kept whole in `smsRecord`; `credits` and `balance` are not known.
 */
function foundItemJson({ senderId, envelope }: Envelope, record: IDataObject): JsonObject {
	return {
		id: record.id,
		senderId,
		recipient: envelope.number,
		message: envelope.message,
		status: record.status,
		...(envelope.thirdPartyRef === undefined ? {} : { thirdPartyRef: envelope.thirdPartyRef }),
		foundInSmsList: true,
		smsRecord: record,
	} as JsonObject;
}

/**
 * Messages whose outcome is unknown are looked up in the SMS list, from when the try that sent
 * them started: those found there were sent (`foundItemJson`); the others stay unknown, with why.
 * Never a reason to send anything again.
 */
async function resolveUnknown(
	this: IExecuteFunctions,
	accounts: Map<Envelope, Account>,
	runStartedAt: number,
	settings: RequestSettings,
): Promise<void> {
	const unknown = [...accounts].filter(([, account]) => account.outcome === 'unknown');
	if (unknown.length === 0) return;
	const sent = [...accounts].flatMap(([envelope, account]) =>
		account.outcome === 'sent' ? [{ envelope, id: account.item.json.id }] : [],
	);
	// Messages an earlier try may have sent count from when that try started.
	const since = Math.min(
		runStartedAt,
		...unknown.map(([, account]) =>
			account.outcome === 'unknown' ? (account.triedAt ?? runStartedAt) : runStartedAt,
		),
	);
	let records: Array<IDataObject | undefined>;
	try {
		records = await lookUpSent.call(
			this,
			unknown.map(([envelope]) => envelope),
			{ runStartedAt: since, sent, settings },
		);
	} catch (caught) {
		const why = `Not checked in the SMS list: ${(caught as Error).message}.`;
		for (const [, account] of unknown) {
			if (account.outcome !== 'sent') {
				account.failure = {
					...account.failure,
					description: join(account.failure.description, why),
				};
			}
		}
		return;
	}
	unknown.forEach(([envelope, account], k) => {
		const record = records[k];
		if (record) {
			accounts.set(envelope, {
				outcome: 'sent',
				item: { json: foundItemJson(envelope, record), pairedItem: { item: envelope.itemIndex } },
			});
		} else if (account.outcome !== 'sent') {
			account.failure = {
				...account.failure,
				description: join(
					account.failure.description,
					'Not found in the SMS list when this run looked it up; it may still appear there.',
				),
			};
		}
	});
}

/**
 * Sends the batches and enters every envelope's outcome in `accounts`: sent (with its record), not
 * sent, or may have been sent; the last are looked up in the SMS list. Send and the approval
 * node (SmsMessagingApproval) send through this.
 */
export async function sendAndAccount(
	this: IExecuteFunctions,
	{ options, settings, credentials }: Pick<RunPlan, 'options' | 'settings' | 'credentials'>,
	batches: Envelope[][],
	accounts: Map<Envelope, Account>,
): Promise<RequestReport[]> {
	const runStartedAt = Date.now();
	const { reports, notAttempted } = await sendAll(
		batches,
		(batch, control) => sendBatch.call(this, batch, credentials, options, settings, control),
		options,
		settings.batchInterval,
	);
	for (const { request, batch, sent, failure } of reports) {
		batch.forEach((envelope, k) => {
			const item = sent[k];
			if (item) accounts.set(envelope, { outcome: 'sent', item });
			else if (failure) {
				const where = `request ${request} of ${batches.length}`;
				accounts.set(envelope, {
					outcome: failure.outcome,
					failure,
					where,
					...(failure.outcome === 'unknown' ? { triedAt: runStartedAt } : {}),
				});
			}
		});
	}
	for (const envelope of notAttempted) {
		accounts.set(envelope, {
			outcome: 'notSent',
			failure: NOT_ATTEMPTED,
			where: NOT_ATTEMPTED_WHERE,
		});
	}
	await resolveUnknown.call(this, accounts, runStartedAt, settings);
	return reports;
}

/**
 * SMS → Send: every item of the run goes out as an envelope, in as few requests as the batch
 * size allows, after all of them are checked; every item is accounted for whatever the API or the
 * network does. A try of the same run (n8n's Retry On Fail, or a retried execution) sends only
 * what no earlier try sent or may have sent.
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
	const { options, settings, envelopes, refused } = plan;
	const results: INodeExecutionData[] = new Array(items.length);
	const place = (item: INodeExecutionData) => {
		results[(item.pairedItem as IPairedItemData).item] = item;
	};
	refused.forEach(place);
	if (options.dryRun) {
		dryRunItems(envelopes).forEach(place);
		return [results];
	}

	// What earlier tries of this run sent, or may have sent, is not sent again.
	const ledger = readLedger(this);
	const accounts = new Map<Envelope, Account>();
	const recalled: Envelope[] = [];
	const toSend: Envelope[] = [];
	for (const envelope of envelopes) {
		const earlier = ledger.get(envelope.itemIndex);
		if (earlier?.key !== envelopeKey(envelope)) {
			toSend.push(envelope);
		} else if (earlier.outcome === 'sent') {
			recalled.push(envelope);
			const item = { json: earlier.json as JsonObject, pairedItem: { item: envelope.itemIndex } };
			accounts.set(envelope, { outcome: 'sent', item });
		} else {
			const failure = {
				message: earlier.message ?? 'Delivery unknown',
				description: EARLIER_UNKNOWN_HINT,
			};
			accounts.set(envelope, {
				outcome: 'unknown',
				failure,
				where: 'an earlier try',
				triedAt: earlier.triedAt,
			});
		}
	}

	// Request Options → Batching: no request carries more than Items per Batch envelopes.
	const batches = toBatches(toSend, Math.min(options.batchSize, settings.itemsPerBatch));
	const reports = await sendAndAccount.call(this, plan, batches, accounts);

	// Kept for the next try while anything is not sent; gone once everything is.
	const failed = [...accounts.values()].some(({ outcome }) => outcome !== 'sent');
	const kept = new Map<number, LedgerEntry>();
	if (failed) {
		for (const [envelope, account] of accounts) {
			if (account.outcome === 'notSent') continue;
			kept.set(envelope.itemIndex, {
				key: envelopeKey(envelope),
				outcome: account.outcome,
				...(account.outcome === 'sent'
					? { json: account.item.json }
					: { message: account.failure.message, triedAt: account.triedAt }),
			});
		}
	}
	writeLedger(this, kept);

	if (failed && !continueOnFail) {
		throw runError(node, reports, accounts, recalled, batches.length);
	}
	for (const [envelope, account] of accounts) {
		if (account.outcome === 'sent') place(account.item);
		else {
			const outcome = `${OUTCOME_WORDS[account.outcome]}, ${account.where}`;
			place(outcomeItem(node, account.failure, envelope, outcome));
		}
	}
	return [results];
}
