// Lists that move while they are read (issue 48), through n8n's engine against the simulator
// adding records before every list request (a bulk send beside the reading, a CRM adding
// contacts): each record that existed when the reading began comes out once, in the list's order,
// and every reading ends, in requests that grow with the records, not with the arrivals.
import type { INodeParameters } from 'n8n-workflow';

import { runWorkflow } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 1000, contacts: 1000 });

const getMany = (resource: 'sms' | 'contact', extra: INodeParameters = {}) => ({
	resource,
	operation: 'getAll',
	returnAll: true,
	...extra,
});
const listRequests = (path: string) => ctx.sim.requests.filter((r) => r.path === path);
const ids = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => item.json.id);
/** The ids 1000 down to 1: the seeded records, newest first. */
const seeded = (count = 1000) => Array.from({ length: count }, (_, k) => 1000 - k);

describe.each([30, 100, 150, 1000])('%i records arriving per request', (perRequest) => {
	test('SMS → Get Many with Return All: each of the 1000 messages once, newest first, and an end', async () => {
		ctx.sim.arriveDuringReads('sms', perRequest);
		const result = await runWorkflow({ parameters: getMany('sms'), credentials: ctx.credentials });
		expect(result.error).toBeUndefined();
		expect(ids(result.items)).toEqual(seeded());
		// 10 pages of 100; with arrivals, at most three requests a page (the next record may stand
		// anywhere on the page that holds it, and pages read ahead move), however many arrive.
		expect(listRequests('/sms').length).toBeLessThanOrEqual(30);
	});

	test('Contact → Get Many with Return All: each of the 1000 contacts once, newest first', async () => {
		ctx.sim.arriveDuringReads('contacts', perRequest);
		const result = await runWorkflow({
			parameters: getMany('contact'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(ids(result.items)).toEqual(seeded());
		expect(listRequests('/contacts').length).toBeLessThanOrEqual(30);
	});

	test('SMS → Get Many with a Limit of 500: the newest 500 when the reading began', async () => {
		ctx.sim.arriveDuringReads('sms', perRequest);
		const result = await runWorkflow({
			parameters: getMany('sms', { returnAll: false, limit: 500 }),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(ids(result.items)).toEqual(seeded(500));
	});

	test('SMS → Get Many oldest first: each message once, oldest first', async () => {
		ctx.sim.arriveDuringReads('sms', perRequest);
		const result = await runWorkflow({
			parameters: getMany('sms', { options: { sortField: 'id', sortDirection: 'asc' } }),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(ids(result.items)).toEqual(seeded().reverse());
	});

	test('SMS → Get Many by status (SENT first), which new messages join at the top: each message once, every one of the start among them, or where a page or more arrives per request, an error that says so', async () => {
		ctx.sim.arriveDuringReads('sms', perRequest);
		const result = await runWorkflow({
			parameters: getMany('sms', { options: { sortField: 'status', sortDirection: 'desc' } }),
			credentials: ctx.credentials,
		});
		if (perRequest >= 100) {
			// Read page by page, each page shows the one before: nothing can follow the records read.
			expect(result.items).toEqual([]);
			expect(result.error?.message).toMatch(/records arrived faster than pages of 100 /);
			return;
		}
		expect(result.error).toBeUndefined();
		const given = ids(result.items);
		expect(new Set(given).size).toBe(given.length);
		expect(given.filter((id) => Number(id) <= 1000).sort((a, b) => Number(b) - Number(a))).toEqual(
			seeded(),
		);
	});
});

test('Get Delivery Status of 300 messages while 100 messages arrive per request: each found', async () => {
	const sent = await runWorkflow({
		parameters: send(),
		items: customers(300),
		credentials: ctx.credentials,
	});
	expect(sent.error).toBeUndefined();
	ctx.sim.arriveDuringReads('sms', 100);
	const result = await runWorkflow({
		parameters: { resource: 'sms', operation: 'getStatus' },
		items: sent.items.map((item) => item.json),
		credentials: ctx.credentials,
	});
	expect(result.error).toBeUndefined();
	expect(ids(result.items)).toEqual(ids(sent.items));
});

test('a cache that serves page 1 whatever page is asked still ends with its error', async () => {
	ctx.sim.inject({ path: '/sms', samePage: true, count: Infinity });
	const result = await runWorkflow({ parameters: getMany('sms'), credentials: ctx.credentials });
	expect(result.error?.message).toMatch(/does not serve the pages asked for$/);
});

test('Send’s lookup after a timeout, while 100 messages arrive per list request: each message proven', async () => {
	ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
	ctx.sim.arriveDuringReads('sms', 100);
	const result = await runWorkflow({
		parameters: send({ timeout: 500 }),
		items: customers(3),
		credentials: ctx.credentials,
	});
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([true, true, true]);
	expect(ctx.sim.sentEnvelopes).toHaveLength(3);
});
