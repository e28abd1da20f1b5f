// SMS Messaging Trigger, through n8n-core's poll machinery (test/helpers/poll.ts) against the
// simulator: what each poll emitted, and what the API received.
import type { INodeParameters } from 'n8n-workflow';

import { runWorkflow } from './helpers/n8n';
import { activateTrigger, TRIGGER_TYPE } from './helpers/poll';
import { startTestsAwayFromSlots } from './helpers/clock';
import { TOKEN, useSimulator } from './helpers/simulator';
import { Simulator } from './simulator/simulator';

// The seeded messages were sent in October and November 2026, before any window used here.
startTestsAwayFromSlots();
const ctx = useSimulator({ smsRecords: 20 });

const DAY_MS = 86_400_000;
const utcDay = (daysAgo: number) =>
	new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

/** Messages sent through the API `hoursAgo` hours ago, still SENT. */
function sent(
	count: number,
	fields: { hoursAgo?: number; campaignId?: string; content?: string } = {},
) {
	const sentAt = new Date(Date.now() - (fields.hoursAgo ?? 1) * 3_600_000).toISOString();
	return Array.from({ length: count }, (_, i) =>
		ctx.sim.addSms({
			recipient: `2547000${String(10000 + i)}`,
			content: fields.content ?? `Your code is ${1000 + i}`,
			sentAt,
			campaignId: fields.campaignId,
		}),
	);
}

const activate = async (parameters: INodeParameters = {}) =>
	await activateTrigger({ parameters, credentials: ctx.credentials });
const smsQueries = () => ctx.sim.requests.filter((r) => r.path === '/sms').map((r) => r.query);
const ids = (items: Array<{ json: Record<string, unknown> }> | null) =>
	(items ?? []).map((item) => item.json.id);

const MINUTE_MS = 60_000;

/** Runs `run` with Date.now `ms` later, as if that much time had passed. */
async function later<T>(ms: number, run: () => Promise<T>): Promise<T> {
	const now = Date.now();
	const clock = jest.spyOn(Date, 'now').mockReturnValue(now + ms);
	try {
		return await run();
	} finally {
		clock.mockRestore();
	}
}

describe('SMS Messaging Trigger: what a poll emits', () => {
	test('the first poll after activation emits nothing and remembers the messages in flight and the failed ones; a move from DELIVERED to FAILED after it comes with the next poll', async () => {
		const [delivered, failed, sentStill] = sent(3);
		ctx.sim.setSmsStatus(delivered.id, 'DELIVERED');
		ctx.sim.setSmsStatus(failed.id, 'FAILED');

		const trigger = await activate();

		expect(trigger.atActivation).toEqual({ items: null });
		// A baseline: the first page of each list (the in-flight lists, FAILED, DELIVERED, every
		// status), at the largest page, from Lookback Days (2) before today; the in-flight lists and
		// FAILED would be read to their end. Every other message up to the newest is delivered.
		const query = (status?: string) => ({
			...(status ? { status } : {}),
			'start-date': utcDay(3),
			sort: 'id,desc',
			page: '1',
			records: '100',
		});
		expect(smsQueries()).toEqual([
			query('PENDING'),
			query('SENT'),
			query('FAILED'),
			query('DELIVERED'),
			query(),
		]);
		expect(ctx.sim.requests[0].headers['x-service']).toBe(`Bearer ${TOKEN}`);
		expect(ctx.sim.requests[0].headers.authorization).toBeUndefined();
		// What is watched; the high-water mark (the newest message sent 10 minutes or more before,
		// at the baseline too: `top`, `since`, and every id up to it counts as listed); the lists'
		// counts and the start-date they were taken with; the records of every status up to the
		// mark; the newest id; and the messages known one by one (ids in base 36 by the day they
		// were sent, under the status they were last seen in and the watched statuses they are
		// recorded in): the message in flight, the failed one.
		const day = utcDay(1 / 24);
		const state = () => trigger.staticData['node:SMS Messaging Trigger'];
		expect(state()).toEqual({
			scope: '{"statuses":["DELIVERED","FAILED"],"lookbackDays":2}',
			top: sentStill.id,
			since: sentStill.id,
			// The baseline's time less the listing lag (10 minutes) and 12 hours: a message first
			// listed later and sent by then existed at the baseline.
			sinceAt:
				(state() as { fullReadingAt: number }).fullReadingAt - 10 * MINUTE_MS - 12 * 3_600_000,
			lookedAtAbove: sentStill.id,
			listedToTop: 3,
			newest: sentStill.id,
			counts: { PENDING: 0, SENT: 1, FAILED: 1, DELIVERED: 1, ALL: 3 },
			countsFrom: utcDay(3),
			messages: {
				'SENT/': { [day]: sentStill.id.toString(36) },
				'FAILED/F': { [day]: failed.id.toString(36) },
			},
			fullReadingAt: expect.any(Number),
		});
		expect(delivered.id).toBeLessThan(sentStill.id);

		// The delivered one moving to FAILED is a change the counts show: the next poll emits it;
		// the failed one was failed before and is not. The first pages show it; DELIVERED, empty now
		// where the picture held a record, is asked once more (an empty answer may be a lagging
		// replica's).
		ctx.sim.setSmsStatus(delivered.id, 'FAILED');
		ctx.sim.requests = [];
		expect(ids((await later(MINUTE_MS, async () => await trigger.poll())).items)).toEqual([
			delivered.id,
		]);
		expect(smsQueries().map((q) => q.status)).toEqual([
			'PENDING',
			'SENT',
			'FAILED',
			'DELIVERED',
			undefined,
			'DELIVERED',
		]);
	});

	test('messages that reach a watched status after it are emitted once, as the list gives them', async () => {
		const [a, b, c] = sent(3);
		const trigger = await activate();
		ctx.sim.setSmsStatus(a.id, 'DELIVERED');
		ctx.sim.setSmsStatus(b.id, 'FAILED');

		const first = await trigger.poll();
		expect(first.items?.map((item) => item.json)).toEqual([
			{ ...a, status: 'DELIVERED', deliveredAt: expect.any(String) },
			{ ...b, status: 'FAILED', deliveredAt: null },
		]);
		expect((await trigger.poll()).items).toBeNull();

		ctx.sim.setSmsStatus(c.id, 'DELIVERED');
		expect(ids((await trigger.poll()).items)).toEqual([c.id]);
		expect((await trigger.poll()).items).toBeNull();
		// Every poll asks the first page of each list (PENDING, SENT, FAILED, DELIVERED, every
		// status) and reads on only where a list's count shows a change its first page did not
		// (none here: the lists are short). SENT, empty once a, b and c left it, is asked once more
		// (an empty answer may be a lagging replica's).
		const firstPages = ['PENDING', 'SENT', 'FAILED', 'DELIVERED', undefined];
		expect(smsQueries().map((q) => q.status)).toEqual(
			[firstPages, firstPages, firstPages, [...firstPages, 'SENT'], firstPages].flat(),
		);
	});

	test('more than 100 changes in one poll are all emitted, read page by page', async () => {
		const messages = sent(150);
		const trigger = await activate({ statuses: ['FAILED'] });
		for (const message of messages) ctx.sim.setSmsStatus(message.id, 'FAILED');
		ctx.sim.requests = [];

		const { items } = await trigger.poll();

		expect(new Set(ids(items)).size).toBe(150);
		expect(ids(items)).toEqual(messages.map((m) => m.id)); // oldest first
		// The first pages; SENT, empty now, is asked once more before it is taken for empty; the 50
		// that left it and FAILED's first page does not show are looked up in the list of every
		// status (its page 2 holds them).
		expect(smsQueries().map((q) => [q.status, q.page, q.records])).toEqual([
			['PENDING', '1', '100'],
			['SENT', '1', '100'],
			['FAILED', '1', '100'],
			['DELIVERED', '1', '100'],
			[undefined, '1', '100'],
			['SENT', '1', '100'],
			[undefined, '2', '100'],
		]);
		expect((await trigger.poll()).items).toBeNull();
	});

	test('with SENT and DELIVERED watched, a message is emitted as SENT, then again as DELIVERED', async () => {
		const trigger = await activate({ statuses: ['SENT', 'DELIVERED'] });
		const [message] = sent(1);

		const asSent = await trigger.poll();
		expect(asSent.items?.map((item) => [item.json.id, item.json.status])).toEqual([
			[message.id, 'SENT'],
		]);
		ctx.sim.setSmsStatus(message.id, 'DELIVERED');
		const asDelivered = await trigger.poll();
		expect(asDelivered.items?.map((item) => [item.json.id, item.json.status])).toEqual([
			[message.id, 'DELIVERED'],
		]);
		expect((await trigger.poll()).items).toBeNull();
	});

	test.each([0, 8, 30, 120])(
		'a message listed after a newer one (both sent %i minutes ago) is still emitted in each status, once',
		async (minutesAgo) => {
			const trigger = await activate({ statuses: ['SENT', 'DELIVERED'] });
			const pairs = (items: Array<{ json: Record<string, unknown> }> | null) =>
				(items ?? []).map((item) => `${String(item.json.id)}:${String(item.json.status)}`);
			// Two messages sent at once; the older one's commit lands after the newer one's, so the
			// lists show the newer one first.
			const [older, newer] = sent(2, { hoursAgo: minutesAgo / 60 });
			ctx.sim.setListed(older.id, false);
			expect(pairs((await trigger.poll()).items)).toEqual([`${newer.id}:SENT`]);
			ctx.sim.setListed(older.id, true);
			expect(pairs((await trigger.poll()).items)).toEqual([`${older.id}:SENT`]);
			ctx.sim.setSmsStatus(older.id, 'DELIVERED');
			ctx.sim.setSmsStatus(newer.id, 'DELIVERED');
			expect(pairs((await trigger.poll()).items)).toEqual([
				`${older.id}:DELIVERED`,
				`${newer.id}:DELIVERED`,
			]);
			expect((await trigger.poll()).items).toBeNull();
			expect((await later(20 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		},
	);

	test('a status not watched is never emitted', async () => {
		const trigger = await activate({ statuses: ['DELIVERED'] });
		const [message, other] = sent(2);
		ctx.sim.setSmsStatus(message.id, 'FAILED');
		ctx.sim.setSmsStatus(other.id, 'FAILED');
		expect((await trigger.poll()).items).toBeNull();
		// The FAILED list's first page is read by every poll, watched or not: its count tells where
		// messages went.
		expect(smsQueries().filter((q) => q.status === 'FAILED')).toHaveLength(2);
		// From FAILED to DELIVERED, a move between outcome statuses that the counts show: the next
		// poll emits it (only one that another move cancels out in the counts waits for the full
		// reading: test/trigger-readings.test.ts).
		ctx.sim.setSmsStatus(message.id, 'DELIVERED');
		expect(ids((await later(MINUTE_MS, async () => await trigger.poll())).items)).toEqual([
			message.id,
		]);
		expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
	});

	test('with no outcome status watched, the messages that left flight are still recorded in SENT', async () => {
		const messages = sent(3);
		const trigger = await activate({ statuses: ['SENT'] });
		ctx.sim.setSmsStatus(messages[0].id, 'DELIVERED');
		ctx.sim.setSmsStatus(messages[1].id, 'FAILED');
		ctx.sim.requests = [];
		expect((await trigger.poll()).items).toBeNull();
		// The first pages show where the two that left SENT went, watched or not.
		expect(smsQueries().map((q) => q.status)).toEqual([
			'PENDING',
			'SENT',
			'FAILED',
			'DELIVERED',
			undefined,
		]);
		// Recorded in SENT: were one sent again under its id, SENT would not come twice.
		const state = trigger.staticData['node:SMS Messaging Trigger'] as {
			messages: Record<string, Record<string, string>>;
		};
		const idsOf = (key: string) => Object.values(state.messages[key] ?? {});
		expect(Object.keys(state.messages).sort()).toEqual(['DELIVERED/S', 'FAILED/S', 'SENT/S']);
		expect(idsOf('SENT/S')).toEqual([messages[2].id.toString(36)]);
	});

	test('filters are sent with the API names and only matching messages are emitted', async () => {
		const campaign = '6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e';
		const [match] = sent(1, { campaignId: campaign, content: 'Order 77 shipped' });
		const [otherCampaign] = sent(1, { content: 'Order 77 shipped' });
		const [otherText] = sent(1, { campaignId: campaign, content: 'Welcome' });
		const trigger = await activate({
			filters: { campaignId: campaign, query: 'order 77', userId: 1 },
		});
		for (const m of [match, otherCampaign, otherText]) ctx.sim.setSmsStatus(m.id, 'FAILED');

		expect(ids((await trigger.poll()).items)).toEqual([match.id]);
		for (const query of smsQueries()) {
			expect(query).toMatchObject({ 'campaign-id': campaign, query: 'order 77', userId: '1' });
		}
	});

	test('Lookback Days: start-date a day before the window (whichever way the API reads it); what was sent before the window is not emitted', async () => {
		const [inside] = sent(1, { hoursAgo: 24 * 4 });
		// Noon UTC of the day before the window: in the list's answer, outside the window.
		const dayBefore = Math.floor(Date.now() / DAY_MS) * DAY_MS - 6 * DAY_MS + DAY_MS / 2;
		const [before] = sent(1, { hoursAgo: (Date.now() - dayBefore) / 3_600_000 });
		const [outside] = sent(1, { hoursAgo: 24 * 7 });
		const trigger = await activate({ options: { lookbackDays: 5 } });
		for (const message of [inside, before, outside]) ctx.sim.setSmsStatus(message.id, 'DELIVERED');

		expect(ids((await trigger.poll()).items)).toEqual([inside.id]);
		expect(new Set(smsQueries().map((q) => q['start-date']))).toEqual(new Set([utcDay(6)]));
	});

	test('a message that falls out of the window is forgotten', async () => {
		const [message] = sent(1, { hoursAgo: 12 });
		ctx.sim.setSmsStatus(message.id, 'FAILED');
		const trigger = await activate();
		const settled = () =>
			(
				trigger.staticData['node:SMS Messaging Trigger'] as {
					messages?: Record<string, Record<string, string>>;
				}
			).messages ?? {};
		// Known as failed since the baseline.
		expect((await later(15 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		expect(settled()['FAILED/F']).toEqual({ [utcDay(0.5)]: message.id.toString(36) });

		// Three days on, the message was sent before the window starts.
		const now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 3 * DAY_MS);
		try {
			expect((await trigger.poll()).items).toBeNull();
		} finally {
			clock.mockRestore();
		}
		expect(settled()).toEqual({});
		// The window starts the day after, and start-date is a day before it.
		expect(smsQueries().at(-1)?.['start-date']).toBe(new Date(now).toISOString().slice(0, 10));
	});
});

describe('SMS Messaging Trigger: activation', () => {
	test('turned off and on again after a day, the first poll emits what changed meanwhile, once', async () => {
		const [delivered, failed, stillSent] = sent(3, { hoursAgo: 2 });
		const first = await activate();
		ctx.sim.setSmsStatus(delivered.id, 'DELIVERED');
		const [later1] = sent(1);

		// Off for a day: meanwhile one message fails and a new one is delivered.
		ctx.sim.setSmsStatus(failed.id, 'FAILED');
		ctx.sim.setSmsStatus(later1.id, 'DELIVERED');
		const again = await later(24 * 60 * MINUTE_MS, async () =>
			activateTrigger({
				parameters: {},
				credentials: ctx.credentials,
				staticData: first.staticData,
			}),
		);
		expect(ids(again.atActivation.items)).toEqual([delivered.id, failed.id, later1.id]);
		ctx.sim.setSmsStatus(stillSent.id, 'DELIVERED');
		const next = await later(24 * 60 * MINUTE_MS + MINUTE_MS, async () => await again.poll());
		expect(ids(next.items)).toEqual([stillSent.id]);
	});

	test('a pause of 12 hours between two polls of one activation drops nothing', async () => {
		const messages = sent(500, { hoursAgo: 3 });
		const trigger = await activateTrigger({
			parameters: {},
			credentials: ctx.credentials,
			mode: 'scheduler',
		});
		expect((await later(MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		// The machine sleeps for 12 hours: meanwhile every message is delivered or fails.
		messages.forEach(({ id }, i) => ctx.sim.setSmsStatus(id, i % 5 ? 'DELIVERED' : 'FAILED'));
		const woken = await later(12 * 60 * MINUTE_MS, async () => await trigger.poll());
		expect(ids(woken.items)).toEqual(messages.map(({ id }) => id));
		expect((await later(12 * 60 * MINUTE_MS + MINUTE_MS, trigger.poll)).items).toBeNull();
	});

	test('turned off and on again within the hour, it goes on where it stopped', async () => {
		const [message] = sent(1);
		const first = await activate();
		ctx.sim.setSmsStatus(message.id, 'FAILED');
		const again = await later(59 * MINUTE_MS, async () =>
			activateTrigger({
				parameters: {},
				credentials: ctx.credentials,
				staticData: first.staticData,
			}),
		);
		expect(ids(again.atActivation.items)).toEqual([message.id]);
	});

	test.each([
		['every hour', { item: [{ mode: 'everyHour', minute: 5 }] }, 120 * MINUTE_MS],
		[
			'every 10 minutes',
			{ item: [{ mode: 'everyX', value: 10, unit: 'minutes' }] },
			120 * MINUTE_MS,
		],
		['every day', { item: [{ mode: 'everyDay', hour: 9, minute: 0 }] }, 1440 * MINUTE_MS],
		[
			'a cron expression',
			{ item: [{ mode: 'custom', cronExpression: '0 0 * * 1' }] },
			7 * 1440 * MINUTE_MS,
		],
	])(
		'Poll Times %s: a poll that comes after the longest gap they leave still emits',
		async (_, pollTimes, gap) => {
			const [message] = sent(1);
			const trigger = await activate({ pollTimes, options: { lookbackDays: 10 } });
			ctx.sim.setSmsStatus(message.id, 'FAILED');
			expect(ids((await later(gap, async () => await trigger.poll())).items)).toEqual([message.id]);
		},
	);

	test("with n8n's task scheduler (a workflow from the database at every poll, stored when a poll emits), only the first poll records", async () => {
		const [a, b] = sent(2);
		const trigger = await activateTrigger({
			parameters: {},
			credentials: ctx.credentials,
			mode: 'scheduler',
		});
		expect(trigger.atActivation.items).toBeNull();
		ctx.sim.setSmsStatus(a.id, 'FAILED');
		ctx.sim.requests = [];
		expect(ids((await trigger.poll()).items)).toEqual([a.id]);
		// The first pages.
		expect(smsQueries().map((q) => q.status)).toEqual([
			'PENDING',
			'SENT',
			'FAILED',
			'DELIVERED',
			undefined,
		]);
		ctx.sim.setSmsStatus(b.id, 'DELIVERED');
		expect(ids((await trigger.poll()).items)).toEqual([b.id]);
		expect((await trigger.poll()).items).toBeNull();
	});

	test('when n8n restarts, the first poll emits what changed while it was down', async () => {
		const [message] = sent(1);
		const before = await activate();
		ctx.sim.setSmsStatus(message.id, 'FAILED');

		const restarted = await activateTrigger({
			parameters: {},
			credentials: ctx.credentials,
			staticData: before.staticData,
			activation: 'init',
		});
		expect(ids(restarted.atActivation.items)).toEqual([message.id]);
	});

	test('changed filters start over: the first poll with them only remembers', async () => {
		const [message] = sent(1, { content: 'Order 5' });
		const before = await activate();
		ctx.sim.setSmsStatus(message.id, 'FAILED');

		const updated = await activateTrigger({
			parameters: { filters: { query: 'order' } },
			credentials: ctx.credentials,
			staticData: before.staticData,
			activation: 'update',
		});
		expect(updated.atActivation.items).toBeNull();
	});

	test('changed filters start the followed messages afresh: those of the old filters are not looked for', async () => {
		// A message of campaign A still in flight, sent 30 hours ago, below 300 newer ones.
		const campaignA = '6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e';
		const campaignB = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
		sent(1, { hoursAgo: 30, campaignId: campaignA });
		for (const m of sent(300, { campaignId: campaignA })) ctx.sim.setSmsStatus(m.id, 'DELIVERED');
		const [inB] = sent(1, { campaignId: campaignB });
		const before = await activate({ filters: { campaignId: campaignA } });

		const updated = await activateTrigger({
			parameters: { filters: { campaignId: campaignB } },
			credentials: ctx.credentials,
			staticData: before.staticData,
			activation: 'update',
		});
		expect(updated.atActivation.items).toBeNull();
		ctx.sim.setSmsStatus(inB.id, 'FAILED');
		ctx.sim.requests = [];
		expect(ids((await updated.poll()).items)).toEqual([inB.id]);
		expect(ids((await updated.poll()).items)).toEqual([]);
		// The first pages, and SENT (empty now) asked once more; then the first pages: never down to
		// campaign A's message.
		expect(smsQueries()).toHaveLength(5 + 1 + 5);
	});

	test('a tracked message the list no longer holds is forgotten once the list of every status shows its place without it', async () => {
		const [gone] = sent(1, { hoursAgo: 30 });
		for (const m of sent(300)) ctx.sim.setSmsStatus(m.id, 'DELIVERED');
		const [recent] = sent(1);
		const trigger = await activate();
		// It leaves the list (deleted on the API's side, or no longer matching the filters).
		ctx.sim.sms.splice(
			ctx.sim.sms.findIndex((m) => m.id === gone.id),
			1,
		);
		const requests: number[] = [];
		for (let i = 0; i < 3; i++) {
			ctx.sim.requests = [];
			expect((await trigger.poll()).items).toBeNull();
			requests.push(smsQueries().length);
		}
		// The first pages show it gone from SENT; it is looked up in the list of every status, on
		// the page where the picture puts it, not there: forgotten. Then the first pages only.
		expect(requests).toEqual([6, 5, 5]);
		ctx.sim.setSmsStatus(recent.id, 'DELIVERED');
		expect(ids((await trigger.poll()).items)).toEqual([recent.id]);
	});

	test('a status added to Watch Statuses is recorded by its first poll, then watched', async () => {
		const [before, after] = sent(2);
		const first = await activate({ statuses: ['FAILED'] });
		ctx.sim.setSmsStatus(before.id, 'DELIVERED');

		const updated = await activateTrigger({
			parameters: { statuses: ['DELIVERED', 'FAILED'] },
			credentials: ctx.credentials,
			staticData: first.staticData,
			activation: 'update',
		});
		expect(updated.atActivation.items).toBeNull();
		ctx.sim.setSmsStatus(after.id, 'DELIVERED');
		expect(ids((await updated.poll()).items)).toEqual([after.id]);
	});

	test('a message that leaves a watched status and comes back within the window is not emitted twice', async () => {
		const [older, message] = sent(2);
		const trigger = await activate({ statuses: ['FAILED'] });
		ctx.sim.setSmsStatus(older.id, 'FAILED');
		ctx.sim.setSmsStatus(message.id, 'FAILED');
		expect(ids((await trigger.poll()).items)).toEqual([older.id, message.id]);
		ctx.sim.setSmsStatus(message.id, 'SENT');
		expect((await trigger.poll()).items).toBeNull();
		ctx.sim.setSmsStatus(message.id, 'FAILED');
		expect((await trigger.poll()).items).toBeNull();
	});

	// n8n's default path starts a poll on time even while the last one runs; its task scheduler
	// runs one poll of a job at a time (its own lease), so only the default path is tried here.
	test.each([false])(
		'a poll due while the last one still runs is skipped, so nothing is emitted twice (%s)',
		async () => {
			const [message] = sent(1);
			const trigger = await activateTrigger({
				parameters: { statuses: ['FAILED'] },
				credentials: ctx.credentials,
			});
			ctx.sim.setSmsStatus(message.id, 'FAILED');
			ctx.sim.inject({ path: '/sms', delayMs: 300 });
			const [slow, due] = await Promise.all([trigger.poll(), trigger.poll()]);
			expect(ids(slow.items)).toEqual([message.id]);
			expect(due.items).toBeNull();
			expect(trigger.staticData['node:SMS Messaging Trigger']).not.toHaveProperty('lease');
		},
	);

	test('a poll that died holding the trigger holds it 10 minutes after its last request, no longer', async () => {
		const [message] = sent(1);
		const first = await activate({ statuses: ['FAILED'] });
		ctx.sim.setSmsStatus(message.id, 'FAILED');
		// Saved while a poll held the trigger, and that poll never ended (n8n stopped).
		const state = first.staticData['node:SMS Messaging Trigger'] as Record<string, unknown>;
		const staticData = {
			'node:SMS Messaging Trigger': { ...state, lease: { holder: 'gone', at: Date.now() } },
		};
		const restarted = await activateTrigger({
			parameters: { statuses: ['FAILED'] },
			credentials: ctx.credentials,
			staticData,
			activation: 'init',
		});
		expect(restarted.atActivation.items).toBeNull();
		// Only the first activation's requests (the first page of each list).
		expect(ctx.sim.requests.filter((r) => r.path === '/sms')).toHaveLength(5);
		ctx.sim.requests = [];
		expect((await later(9 * MINUTE_MS, async () => await restarted.poll())).items).toBeNull();
		expect(ctx.sim.requests).toHaveLength(0);
		const taken = await later(10 * MINUTE_MS, async () => await restarted.poll());
		expect(ids(taken.items)).toEqual([message.id]);
	});

	test('a message missed by a reading (the list shifted between two pages) is not taken for new later', async () => {
		const messages = sent(150);
		const trigger = await activate({ statuses: ['SENT'] });
		// While page 2 is asked, the newest message leaves SENT: every later record moves up one
		// place, and the one that crosses the page boundary is in neither page of this reading.
		ctx.sim.inject({
			path: '/sms',
			query: { status: 'SENT', page: '2' },
			beforeAnswer: () => ctx.sim.setSmsStatus(messages[149].id, 'DELIVERED'),
		});
		expect((await trigger.poll()).items).toBeNull();
		expect((await trigger.poll()).items).toBeNull();
	});
});

describe('SMS Messaging Trigger: Fetch Test Event', () => {
	test('emits the newest matching message and changes nothing later polls emit', async () => {
		const [older, newer, newest] = sent(3);
		const trigger = await activate();
		ctx.sim.setSmsStatus(newer.id, 'FAILED');
		ctx.sim.setSmsStatus(older.id, 'DELIVERED');
		const remembered = trigger.staticData;
		ctx.sim.requests = [];

		const items = await trigger.fetchTestEvent();

		expect(items?.map((item) => item.json)).toEqual([
			{ ...newer, status: 'FAILED', deliveredAt: null },
		]);
		expect(smsQueries()).toEqual([
			{ status: 'DELIVERED', 'start-date': utcDay(3), sort: 'id,desc', page: '1', records: '1' },
			{ status: 'FAILED', 'start-date': utcDay(3), sort: 'id,desc', page: '1', records: '1' },
		]);
		expect(trigger.staticData).toEqual(remembered);
		expect(ids((await trigger.poll()).items)).toEqual([older.id, newer.id]);
		expect(newest.status).toBe('SENT');
	});

	test('in a manual run through n8n-core, as the editor runs it', async () => {
		const [message] = sent(1);
		ctx.sim.setSmsStatus(message.id, 'DELIVERED');
		const result = await runWorkflow({
			nodeType: TRIGGER_TYPE,
			parameters: {},
			credentials: ctx.credentials,
			inputDirect: true,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.id)).toEqual([message.id]);
		expect(smsQueries()).toHaveLength(2);
	});

	test('with no matching message there is nothing to show', async () => {
		const trigger = await activate();
		ctx.sim.requests = [];
		expect(await trigger.fetchTestEvent()).toBeNull();
		expect(smsQueries()).toHaveLength(2);
	});
});

describe('SMS Messaging Trigger: errors', () => {
	test('an API error at a poll carries the API message, and the next poll catches up', async () => {
		const [message] = sent(1);
		const trigger = await activate();
		ctx.sim.setSmsStatus(message.id, 'DELIVERED');
		ctx.sim.inject({ path: '/sms', status: 500, skip: 1 });

		const failed = await trigger.poll();
		expect(failed.items).toBeNull();
		expect(failed.error).toMatchObject({ message: 'internal server error', httpCode: '500' });
		expect(ids((await trigger.poll()).items)).toEqual([message.id]);
	});

	test('a 503 is retried within the poll', async () => {
		const [message] = sent(1);
		const trigger = await activate({ statuses: ['FAILED'] });
		ctx.sim.setSmsStatus(message.id, 'FAILED');
		ctx.sim.inject({ path: '/sms', status: 503, retryAfter: 0 });
		ctx.sim.requests = [];

		expect(ids((await trigger.poll()).items)).toEqual([message.id]);
		// PENDING (503, then again), SENT, the first page of every status, SENT again (empty), FAILED
		// (empty at the activation, read again), the first page of every status again.
		expect(ctx.sim.requests.map((r) => r.status)).toEqual([503, 200, 200, 200, 200, 200, 200]);
	});

	test('a rejected token fails the activation with the API message', async () => {
		await expect(
			activateTrigger({ parameters: {}, credentials: { ...ctx.credentials, apiToken: 'wrong' } }),
		).rejects.toMatchObject({
			message: 'Authentication failed',
			description: expect.stringContaining(
				'Details from the API: X-Service: missing or invalid API token.',
			),
		});
		expect(smsQueries()).toHaveLength(1);
	});

	test('the token never appears in the error, even when the API echoes it', async () => {
		ctx.sim.inject({ path: '/sms', status: 400, echoAuth: true });
		const error = (await activate().catch((caught: unknown) => caught)) as Error;
		expect(error).toMatchObject({ message: 'Request with Bearer *** failed' });
		const shown = JSON.stringify(error, Object.getOwnPropertyNames(error));
		expect(shown).toContain('Rejected credentials: Bearer ***');
		expect(shown).not.toContain(TOKEN);
	});

	test('an unreachable API is reported after the retries, without the token', async () => {
		const error = (await activateTrigger({
			parameters: {},
			credentials: { ...ctx.credentials, baseUrl: 'http://127.0.0.1:1/api/v3' },
		}).catch((caught: unknown) => caught)) as Error;
		expect(error.message).toBe(
			'Page 1 of the SMS list could not be read: the API could not be reached after 4 attempts: the connection was refused',
		);
		expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(TOKEN);
	}, 30_000);

	test.each([
		[{ options: { lookbackDays: 0 } }, 'Lookback Days must be a whole number from 1 to 31, got 0'],
		[
			{ options: { lookbackDays: 40 } },
			'Lookback Days must be a whole number from 1 to 31, got 40',
		],
		[
			{ options: { fullReadingMinutes: 1441 } },
			'Full Reading Every (Minutes) must be a whole number from 0 to 1440, got 1441',
		],
		[{ filters: { campaignId: 'not-a-uuid' } }, 'Campaign ID is not a UUID: "not-a-uuid"'],
		[
			{ statuses: [] },
			'Watch Statuses must name at least one of DELIVERED, FAILED, PENDING, SENT, got []',
		],
	])('%j is refused naming the field, before any request', async (parameters, message) => {
		await expect(activate(parameters)).rejects.toThrow(message);
		const result = await runWorkflow({
			nodeType: TRIGGER_TYPE,
			parameters,
			credentials: ctx.credentials,
			inputDirect: true,
		});
		expect(result.error?.message).toBe(message);
		expect(ctx.sim.requests).toEqual([]);
	});
});

describe('the simulator models delivery', () => {
	const sim = new Simulator({
		token: TOKEN,
		smsRecords: 0,
		// Longer than any run here: the messages leave SENT when the test moves the model's clock
		// (`settle`), not when a loaded machine happens to be slow before the trigger's baseline.
		deliveryDelayMs: 600_000,
		failureRate: 0.3,
	});
	let credentials: typeof ctx.credentials;
	beforeAll(async () => {
		credentials = { apiToken: TOKEN, ...(await sim.start()) };
	});
	afterAll(async () => await sim.stop());

	test('sent messages become DELIVERED or FAILED after the delay, and the trigger emits them', async () => {
		const send = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'send',
				senderId: 'ACME',
				number: '={{ $json.number }}',
				message: 'Your parcel is on its way',
			},
			items: Array.from({ length: 10 }, (_, i) => ({ number: `25470000${1000 + i}` })),
			credentials,
		});
		const sentIds = send.items.map((item) => item.json.id);
		const trigger = await activateTrigger({ parameters: {}, credentials });
		expect(trigger.atActivation.items).toBeNull();

		sim.settle(Date.now() + 600_000);
		const { items } = await trigger.poll();

		expect(ids(items).sort()).toEqual([...sentIds].sort());
		const statuses = (items ?? []).map((item) => item.json.status);
		expect(statuses.filter((s) => s === 'DELIVERED').length).toBeGreaterThan(
			statuses.filter((s) => s === 'FAILED').length,
		);
		expect(statuses).toContain('FAILED');
		for (const { json } of items ?? []) {
			expect(json.deliveredAt === null).toBe(json.status === 'FAILED');
		}
	});

	test('a control endpoint sets one message status', async () => {
		const [message] = sim.sms.slice(-1);
		const response = await fetch(
			`${sim.baseUrl.replace('/api/v3', '')}/__sim/sms/${message.id}/status`,
			{
				method: 'POST',
				body: JSON.stringify({ status: 'PENDING' }),
			},
		);
		expect(await response.json()).toMatchObject({
			id: message.id,
			status: 'PENDING',
			deliveredAt: null,
		});
	});
});
