import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import { unwrapData } from '../SmsMessaging/shared/errors';
import { checkedPage, collectPages } from '../SmsMessaging/shared/list';
import { SMS_LIST_FILTERS, SMS_STATUSES } from '../SmsMessaging/shared/smsFilters';
import {
	CREDENTIAL_TYPE,
	DEFAULT_RETRY,
	requestWithRetry,
	unansweredText,
} from '../SmsMessaging/shared/transport';
import { integerInRange, isSet, oneOrMoreOf } from '../SmsMessaging/shared/validation';

const DAY_MS = 86_400_000;

/** The order a message goes through, so that one seen SENT and DELIVERED in a poll comes out so. */
const LIFECYCLE = ['PENDING', 'SENT', 'DELIVERED', 'FAILED'];

/** What the trigger watches, checked: the list query every status shares, and its scope. */
interface Watch {
	statuses: string[];
	query: IDataObject;
	/** The filters and Lookback Days: when they change, what was remembered no longer applies. */
	scope: string;
}

/**
 * What the trigger remembers between polls, in the workflow's static data: per watched status,
 * the ids of the messages in the window already seen in it. Ids only, so it stays small, and only
 * of messages still in the window, so it stays bounded.
 */
interface Remembered {
	scope?: string;
	seen?: Record<string, number[]>;
}

interface Credentials {
	baseUrl: string;
	apiToken: string;
}

/** Checks every parameter before any request; a bad one stops the poll naming its field. */
function readWatch(this: IPollFunctions): Watch {
	const node = this.getNode();
	const ref = (field: string, label: string) => ({ node, field, label });
	const statuses = oneOrMoreOf(
		ref('statuses', 'Watch Statuses'),
		this.getNodeParameter('statuses', []),
		SMS_STATUSES,
	).sort((a, b) => LIFECYCLE.indexOf(a) - LIFECYCLE.indexOf(b));
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const options = this.getNodeParameter('options', {}) as IDataObject;

	const query: IDataObject = {};
	for (const { property, check, query: name } of Object.values(SMS_LIST_FILTERS)) {
		const value = filters[property.name];
		if (isSet(value)) {
			query[name] = check(
				ref(`filters.${property.name}`, property.displayName),
				value,
			) as IDataObject[string];
		}
	}
	const lookbackDays = integerInRange(
		ref('options.lookbackDays', 'Lookback Days'),
		options.lookbackDays ?? 2,
		1,
		31,
	);
	const scope = JSON.stringify({ ...query, lookbackDays });
	// Days count in UTC, like the API's timestamps.
	query['start-date'] = new Date(Date.now() - lookbackDays * DAY_MS).toISOString().slice(0, 10);
	return { statuses: [...new Set(statuses)], query, scope };
}

/** The messages in one status, newest first (the API's default order), up to `limit`. */
async function listMessages(
	this: IPollFunctions,
	credentials: Credentials,
	query: IDataObject,
	limit: number,
): Promise<IDataObject[]> {
	const node = this.getNode();
	const context = { operation: 'list' as const, apiToken: credentials.apiToken };
	return await collectPages(async (page, pageSize) => {
		const delivery = await requestWithRetry.call(
			this,
			{
				method: 'GET',
				baseURL: credentials.baseUrl,
				url: '/sms',
				qs: { ...query, page, records: pageSize },
				headers: { Accept: 'application/json' },
				json: true,
			},
			DEFAULT_RETRY,
		);
		if (delivery.outcome !== 'answered') {
			throw new NodeOperationError(
				node,
				`Page ${page} of the SMS list could not be read: ${unansweredText(delivery)}`,
				{ description: 'Reading the list changes nothing; the next poll tries again.' },
			);
		}
		const { statusCode, body } = delivery.response;
		return checkedPage(
			node,
			statusCode,
			unwrapData(node, statusCode, body, context),
			page,
			context,
		);
	}, limit);
}

/** Poll contexts that have polled: n8n keeps one per activation and polls through it. */
const polledContexts = new WeakSet<IPollFunctions>();

/**
 * One poll: every message in the window in each watched status, compared with what the last poll
 * remembered. Emits each message newly seen in a status once; the first poll of an activation
 * (and of a status, filter set or window not watched before) only remembers. A manual run emits
 * the newest matching message and leaves what polls remember alone.
 */
export async function pollDeliveries(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const watch = readWatch.call(this);
	const credentials = await this.getCredentials<Credentials>(CREDENTIAL_TYPE);
	const list = async (status: string, limit: number) =>
		await listMessages.call(this, credentials, { ...watch.query, status }, limit);

	if (this.getMode() === 'manual') {
		let newest: IDataObject | undefined;
		for (const status of watch.statuses) {
			const [latest] = await list(status, 1);
			if (latest && (!newest || Number(latest.id) > Number(newest.id))) newest = latest;
		}
		return newest ? [[{ json: newest }]] : null;
	}

	// n8n starts the next poll on time even while one is still running (a long window, a 429):
	// two polls at once would both emit what is new, so the later one is skipped.
	if (pollsInFlight.has(this)) return null;
	pollsInFlight.add(this);
	try {
		return await pollOnce.call(this, watch, list);
	} finally {
		pollsInFlight.delete(this);
	}
}

/** Poll contexts whose poll has not finished yet. */
const pollsInFlight = new WeakSet<IPollFunctions>();

async function pollOnce(
	this: IPollFunctions,
	watch: ReturnType<typeof readWatch>,
	list: (status: string, limit: number) => Promise<IDataObject[]>,
): Promise<INodeExecutionData[][] | null> {
	const remembered = this.getWorkflowStaticData('node') as Remembered;
	// n8n polls once when the workflow is activated: that poll records what exists and emits
	// nothing, also after a deactivation, so that turning the workflow on never replays history.
	const activated =
		!polledContexts.has(this) && ['activate', 'create'].includes(this.getActivationMode());
	polledContexts.add(this);
	const before = activated || remembered.scope !== watch.scope ? {} : (remembered.seen ?? {});

	const current = new Map<string, Map<number, IDataObject>>();
	for (const status of watch.statuses) {
		// Messages sent while the list is read push it down a page, so one can come twice.
		const records = await list(status, Infinity);
		current.set(status, new Map(records.map((record) => [record.id as number, record])));
	}
	const inWindow = [...current.values()].flatMap((records) => [...records.keys()]);
	// Ids grow with time and each list is read newest first, so the window spans the ids from the
	// lowest read up. A message that left a list while it was read shifts the later records by one,
	// and one of them can be missed by this reading although still in its status: only what falls
	// below the window is forgotten, so a missed message is not taken for new by the next poll.
	const lowest = inWindow.reduce((low, id) => Math.min(low, id), Infinity);

	const seen: Record<string, number[]> = {};
	const emitted: IDataObject[] = [];
	for (const [status, records] of current) {
		const known = before[status];
		if (known) {
			const knownIds = new Set(known);
			for (const [id, record] of records) if (!knownIds.has(id)) emitted.push(record);
		}
		// A message is forgotten once it is below the window (or no watched list has any message).
		const kept = (known ?? []).filter((id) => id >= lowest);
		seen[status] = [...new Set([...kept, ...records.keys()])];
	}
	// Written only once every list was read: a failed poll leaves the last state for the next one.
	remembered.scope = watch.scope;
	remembered.seen = seen;

	if (emitted.length === 0) return null;
	// Oldest message first; the sort is stable, so one message's statuses keep their order.
	emitted.sort((a, b) => Number(a.id) - Number(b.id));
	return [emitted.map((json) => ({ json }))];
}
