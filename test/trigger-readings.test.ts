// SMS Messaging Trigger, through n8n-core's poll machinery (test/helpers/poll.ts): each message is
// emitted once per status whatever a reading of the list misses (a list that shifts between two
// pages, an empty answer, a page that fails), and what a poll costs in requests.
import type { INodeParameters } from 'n8n-workflow';

import { activateTrigger, POLL_MODES, type PollOutcome } from './helpers/poll';
import { startTestsAwayFromSlots } from './helpers/clock';
import { useSimulator } from './helpers/simulator';

startTestsAwayFromSlots();
const ctx = useSimulator({ smsRecords: 0 });

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** A message sent `hoursAgo` hours ago through the API, in `status`. */
const message = (status: string, hoursAgo = 1) =>
	ctx.sim.addSms({
		recipient: `2547${String(10_000_000 + ctx.sim.sms.length)}`,
		content: `Your code is ${1000 + ctx.sim.sms.length}`,
		status,
		sentAt: new Date(Date.now() - hoursAgo * HOUR_MS).toISOString(),
		campaignId: undefined,
	});

const activate = async (parameters: INodeParameters = {}) =>
	await activateTrigger({ parameters, credentials: ctx.credentials });
const emittedPairs = (outcome: PollOutcome) =>
	(outcome.items ?? []).map(({ json }) => `${String(json.id)}:${String(json.status)}`);
const listRequests = () => ctx.sim.requests.filter((r) => r.path === '/sms');

/** Runs `poll` with Date.now `ms` later, as if that much time had passed. */
async function later<T>(ms: number, poll: () => Promise<T>): Promise<T> {
	const now = Date.now();
	const clock = jest.spyOn(Date, 'now').mockReturnValue(now + ms);
	try {
		return await poll();
	} finally {
		clock.mockRestore();
	}
}

describe('SMS Messaging Trigger: a reading that misses a message never makes it come twice', () => {
	test('a list that shifts while it is read: the message that slides onto a page already read', async () => {
		// Watching SENT, 102 SENT messages, all emitted once.
		const trigger = await activate({ statuses: ['SENT'] });
		const messages = Array.from({ length: 102 }, () => message('SENT'));
		expect(new Set(emittedPairs(await trigger.poll())).size).toBe(102);

		// While page 2 of the SENT list is asked, the newest message is delivered: the oldest one
		// moves up onto page 1, already read. (The oldest left the list before the poll, deleted:
		// no list shows where it went, so the poll reads SENT on.)
		ctx.sim.sms.splice(ctx.sim.sms.indexOf(messages[0]), 1);
		ctx.sim.requests = [];
		ctx.sim.inject({
			path: '/sms',
			query: { status: 'SENT', page: '2' },
			beforeAnswer: () => ctx.sim.setSmsStatus(messages[101].id, 'DELIVERED'),
		});
		expect((await trigger.poll()).items).toBeNull();
		// Page 2 starts on page 1's last record (issue 63: a page follows the one before only where
		// it shows it); the list moved meanwhile and page 2 does not reach back to that record: it
		// is asked again from 25 records further back.
		expect(
			listRequests()
				.filter((r) => r.query.status === 'SENT')
				.map((r) => [r.query.page, r.query.records]),
		).toEqual([
			['1', '100'],
			['2', '99'],
			['2', '74'],
		]);
		expect((await trigger.poll()).items).toBeNull();
		expect((await trigger.poll()).items).toBeNull();
	});

	test('a baseline whose in-flight pages do not meet asks again from further back: nothing is missed, what left meanwhile comes', async () => {
		const messages = Array.from({ length: 150 }, () => message('SENT'));
		// While page 2 of the SENT list is asked, the 5 newest messages are delivered: the list moves
		// up, and page 2 starts 5 records lower than page 1 ended.
		ctx.sim.inject({
			path: '/sms',
			query: { status: 'SENT', page: '2' },
			beforeAnswer: () =>
				messages.slice(-5).forEach(({ id }) => ctx.sim.setSmsStatus(id, 'DELIVERED')),
		});
		const trigger = await activate();
		expect(trigger.atActivation.items).toBeNull();
		expect(
			listRequests()
				.filter((r) => r.query.status === 'SENT')
				.map((r) => r.query.page),
		).toEqual(['1', '2', '2']);
		// The baseline saw all 150 SENT; the 5 delivered after it read them come next.
		expect(emittedPairs(await trigger.poll()).sort()).toEqual(
			messages
				.slice(-5)
				.map(({ id }) => `${id}:DELIVERED`)
				.sort(),
		);
		ctx.sim.setSmsStatus(messages[49].id, 'DELIVERED');
		expect(emittedPairs(await trigger.poll())).toEqual([`${messages[49].id}:DELIVERED`]);
	});

	test('an empty answer: a 200 with no records once does not make the known messages new', async () => {
		const known = Array.from({ length: 4 }, () => message('SENT'));
		const trigger = await activate({ statuses: ['FAILED'] });
		for (const { id } of known) ctx.sim.setSmsStatus(id, 'FAILED');
		expect(emittedPairs(await trigger.poll())).toEqual(known.map(({ id }) => `${id}:FAILED`));

		// One poll gets well-formed, empty answers to every list request (a lagging replica).
		ctx.sim.inject({ path: '/sms', empty: true, count: Infinity });
		expect((await trigger.poll()).items).toBeNull();
		ctx.sim.faults = [];

		expect((await trigger.poll()).items).toBeNull();
		// Not at the next full reading either.
		expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		// And a message that fails later still comes, once.
		const [next] = [message('SENT')];
		expect((await trigger.poll()).items).toBeNull();
		ctx.sim.setSmsStatus(next.id, 'FAILED');
		expect(emittedPairs(await trigger.poll())).toEqual([`${next.id}:FAILED`]);
		expect((await trigger.poll()).items).toBeNull();
	});

	test('an empty answer in the middle of a reading', async () => {
		const trigger = await activate({ statuses: ['SENT', 'FAILED'] });
		const messages = Array.from({ length: 250 }, () => message('SENT'));
		expect(emittedPairs(await trigger.poll())).toHaveLength(250);
		// Empty answers to the FAILED list, looked at first, and to page 2 of SENT.
		ctx.sim.inject({ path: '/sms', query: { status: 'FAILED' }, empty: true });
		ctx.sim.inject({ path: '/sms', query: { status: 'SENT', page: '2' }, empty: true });
		ctx.sim.setSmsStatus(messages[0].id, 'FAILED');

		// SENT's count shows one record fewer: it is read on, page 2 (empty) asked again from further
		// back, the message found gone and looked up in the list of every status: it comes now.
		expect(emittedPairs(await trigger.poll())).toEqual([`${messages[0].id}:FAILED`]);
		expect((await trigger.poll()).items).toBeNull();
		expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
	});

	test('a page that fails in the middle of a reading: retried after the list moved, or failing the poll', async () => {
		const trigger = await activate({ statuses: ['SENT', 'DELIVERED'] });
		const messages = Array.from({ length: 102 }, () => message('SENT'));
		expect(emittedPairs(await trigger.poll())).toHaveLength(102);

		// Page 2 gets a 503, and the newest message is delivered before it is asked again: this poll
		// saw it SENT on page 1, as its count at the start says; the next poll sees it DELIVERED.
		// (The oldest left the list before the poll, deleted, so that it reads SENT on.)
		ctx.sim.sms.splice(ctx.sim.sms.indexOf(messages[0]), 1);
		ctx.sim.inject({
			path: '/sms',
			query: { status: 'SENT', page: '2' },
			status: 503,
			retryAfter: 0,
			beforeAnswer: () => ctx.sim.setSmsStatus(messages[101].id, 'DELIVERED'),
		});
		expect((await trigger.poll()).items).toBeNull();
		expect(emittedPairs(await trigger.poll())).toEqual([`${messages[101].id}:DELIVERED`]);
		expect((await trigger.poll()).items).toBeNull();

		// A page that fails for good fails the poll; the next one emits what changed, once.
		ctx.sim.setSmsStatus(messages[99].id, 'DELIVERED');
		// The list of every status (no status in the query; the simulator's JSDoc types it as a string).
		const everyStatus = { status: undefined as unknown as string, page: '1' };
		ctx.sim.inject({ path: '/sms', query: everyStatus, status: 500 });
		const failed = await trigger.poll();
		expect(failed.items).toBeNull();
		expect(failed.error?.message).toBe('internal server error');
		expect(emittedPairs(await trigger.poll())).toEqual([`${messages[99].id}:DELIVERED`]);
		expect((await trigger.poll()).items).toBeNull();
		expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
	});

	test('a message emitted in a status, gone out of it and back, across a re-activation, is not emitted again', async () => {
		const [m] = [message('SENT')];
		const first = await activate({ statuses: ['FAILED'] });
		ctx.sim.setSmsStatus(m.id, 'FAILED');
		expect(emittedPairs(await first.poll())).toEqual([`${m.id}:FAILED`]);
		ctx.sim.setSmsStatus(m.id, 'SENT');
		expect((await first.poll()).items).toBeNull();

		// Deactivated and activated again: the activation records, and remembers what was emitted.
		const again = await activateTrigger({
			parameters: { statuses: ['FAILED'] },
			credentials: ctx.credentials,
			staticData: first.staticData,
		});
		expect(again.atActivation.items).toBeNull();
		ctx.sim.setSmsStatus(m.id, 'FAILED');
		expect((await again.poll()).items).toBeNull();
		expect((await later(16 * MINUTE_MS, async () => await again.poll())).items).toBeNull();
	});

	test('an id is forgotten only when the day its message was sent leaves the window', async () => {
		// Sent 40 hours ago: in the window (Lookback Days 2) for at least 8 more hours.
		const old = message('SENT', 40);
		const trigger = await activate({ statuses: ['FAILED'] });
		ctx.sim.setSmsStatus(old.id, 'FAILED');
		expect(emittedPairs(await trigger.poll())).toEqual([`${old.id}:FAILED`]);
		// Every list answers empty for a while, full readings included: nothing is forgotten.
		ctx.sim.inject({ path: '/sms', empty: true, count: Infinity });
		for (let i = 0; i < 3; i++) {
			expect((await later(i * 20 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		}
		ctx.sim.faults = [];
		expect((await later(61 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		const state = trigger.staticData['node:SMS Messaging Trigger'] as {
			messages: Record<string, Record<string, string>>;
		};
		expect(Object.values(state.messages['FAILED/F'])).toEqual([old.id.toString(36)]);
	});
});

describe('SMS Messaging Trigger: a message sent while a poll reads', () => {
	test('sent after the PENDING list was read, still PENDING when SENT is read, failing later: the next poll emits it, not the full reading', async () => {
		for (let i = 0; i < 5; i++) message('DELIVERED');
		const trigger = await activate();
		let late: { id: number } | undefined;
		ctx.sim.inject({
			path: '/sms',
			query: { status: 'SENT' },
			beforeAnswer: () => {
				late = message('PENDING', 0);
				message('SENT', 0);
			},
		});
		// In neither in-flight reading of this poll.
		expect((await trigger.poll()).items).toBeNull();
		ctx.sim.setSmsStatus(late!.id, 'FAILED');
		// Deeper than a page below the newest message by the next poll.
		for (let i = 0; i < 99; i++) message('DELIVERED', 0);
		const next = [...emittedPairs(await trigger.poll()), ...emittedPairs(await trigger.poll())];
		expect(next.filter((pair) => pair === `${late!.id}:FAILED`)).toHaveLength(1);
	});
});

describe('SMS Messaging Trigger: the full reading', () => {
	/** A clock 30 s into an hour (so into a slot of 15 and of 60 minutes); `at(minutes)` runs a poll that many minutes on. */
	const slotClock = () => {
		const start = Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 30_000;
		return async <T>(minutes: number, run: () => Promise<T>): Promise<T> => {
			const clock = jest.spyOn(Date, 'now').mockReturnValue(start + minutes * MINUTE_MS);
			try {
				return await run();
			} finally {
				clock.mockRestore();
			}
		};
	};
	/**
	 * An old FAILED message and an old DELIVERED one, each with 120 newer messages in its list,
	 * so that neither is on a first page.
	 */
	const deepPair = () => {
		const failed = message('FAILED', 5);
		const delivered = message('DELIVERED', 4);
		for (let i = 0; i < 120; i++) message('FAILED', 3);
		for (let i = 0; i < 120; i++) message('DELIVERED', 2);
		return { failed, delivered };
	};

	test('a move between DELIVERED and FAILED that the counts show comes with the next poll', async () => {
		const at = slotClock();
		const { delivered } = deepPair();
		const trigger = await at(0, () => activate());
		ctx.sim.setSmsStatus(delivered.id, 'FAILED');
		expect(emittedPairs(await at(1, () => trigger.poll()))).toEqual([`${delivered.id}:FAILED`]);
		expect((await at(2, () => trigger.poll())).items).toBeNull();
	});

	test('two moves between DELIVERED and FAILED that cancel out in the counts, neither on a first page, come with the full reading, at the first poll of the next 15 minutes', async () => {
		const at = slotClock();
		const { failed, delivered } = deepPair();
		const trigger = await at(0, () => activate());
		ctx.sim.setSmsStatus(delivered.id, 'FAILED');
		ctx.sim.setSmsStatus(failed.id, 'DELIVERED');
		ctx.sim.requests = [];
		expect((await at(1, () => trigger.poll())).items).toBeNull();
		// The first pages only: every count is as the picture expects.
		expect(listRequests()).toHaveLength(5);
		expect((await at(14, () => trigger.poll())).items).toBeNull();
		ctx.sim.requests = [];
		const full = await at(15, () => trigger.poll());
		expect(emittedPairs(full).sort()).toEqual(
			[`${delivered.id}:FAILED`, `${failed.id}:DELIVERED`].sort(),
		);
		// PENDING, SENT and FAILED to their end (FAILED's two pages), and the list of every status
		// to the mark; the one that left FAILED is looked up there.
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(2);
		expect((await at(16, () => trigger.poll())).items).toBeNull();
		expect((await at(30, () => trigger.poll())).items).toBeNull();
	});

	test.each([
		[0, 1],
		[60, 60],
	])(
		'Full Reading Every (Minutes) = %i: such moves come %i minutes later',
		async (fullReadingMinutes, minutes) => {
			const at = slotClock();
			const { failed, delivered } = deepPair();
			const trigger = await at(0, () => activate({ options: { fullReadingMinutes } }));
			ctx.sim.setSmsStatus(delivered.id, 'FAILED');
			ctx.sim.setSmsStatus(failed.id, 'DELIVERED');
			if (minutes > 1) expect((await at(15, () => trigger.poll())).items).toBeNull();
			const outcome = await at(minutes, () => trigger.poll());
			expect(emittedPairs(outcome)).toHaveLength(2);
		},
	);

	test('the full reading runs whatever is watched: with only SENT watched and more than 2,000 in flight, a message back from PENDING to SENT while another goes from SENT to PENDING, neither on a first page', async () => {
		const at = slotClock();
		const back = message('SENT', 5);
		const forth = message('PENDING', 4);
		for (let i = 0; i < 1_100; i++) message('SENT', 3);
		for (let i = 0; i < 1_100; i++) message('PENDING', 2);
		const trigger = await at(0, () => activate({ statuses: ['SENT'] }));
		ctx.sim.setSmsStatus(back.id, 'PENDING');
		ctx.sim.setSmsStatus(forth.id, 'SENT');
		expect((await at(1, () => trigger.poll())).items).toBeNull();
		expect(emittedPairs(await at(15, () => trigger.poll()))).toEqual([`${forth.id}:SENT`]);
	});

	test('with 2,000 or fewer in flight, the same two moves come with the next poll: PENDING and SENT are read to their end at every poll', async () => {
		const at = slotClock();
		const back = message('SENT', 5);
		const forth = message('PENDING', 4);
		for (let i = 0; i < 120; i++) message('SENT', 3);
		for (let i = 0; i < 120; i++) message('PENDING', 2);
		const trigger = await at(0, () => activate({ statuses: ['SENT'] }));
		ctx.sim.setSmsStatus(back.id, 'PENDING');
		ctx.sim.setSmsStatus(forth.id, 'SENT');
		expect(emittedPairs(await at(1, () => trigger.poll()))).toEqual([`${forth.id}:SENT`]);
		expect((await at(2, () => trigger.poll())).items).toBeNull();
	});

	test('the baseline reads which messages had failed: what had failed before is never emitted FAILED; sent again and delivered, it comes DELIVERED', async () => {
		const at = slotClock();
		const failedBefore = message('FAILED', 3);
		for (let i = 0; i < 20; i++) message('DELIVERED', 1);
		const trigger = await at(0, () => activate());
		expect(listRequests().map((r) => r.query.status)).toEqual([
			'PENDING',
			'SENT',
			'FAILED',
			'DELIVERED',
			undefined,
		]);
		expect((await at(15, () => trigger.poll())).items).toBeNull();
		ctx.sim.setSmsStatus(failedBefore.id, 'SENT');
		expect((await at(16, () => trigger.poll())).items).toBeNull();
		ctx.sim.setSmsStatus(failedBefore.id, 'DELIVERED');
		expect(emittedPairs(await at(17, () => trigger.poll()))).toEqual([
			`${failedBefore.id}:DELIVERED`,
		]);
	});

	test('an empty answer to the FAILED list at the baseline is asked once more: the failed messages are recorded, never emitted', async () => {
		const at = slotClock();
		const failed = Array.from({ length: 3 }, () => message('FAILED', 2));
		for (let i = 0; i < 20; i++) message('DELIVERED', 1);
		ctx.sim.inject({ path: '/sms', query: { status: 'FAILED' }, empty: true });
		const trigger = await at(0, () => activate());
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(2);
		for (const minutes of [1, 15, 30]) {
			expect((await at(minutes, () => trigger.poll())).items).toBeNull();
		}
		const state = trigger.staticData['node:SMS Messaging Trigger'] as {
			messages: Record<string, Record<string, string>>;
		};
		// Stored as failed (and recorded in FAILED) since the baseline: base-36 steps from one id
		// to the next, a step repeated as `step*times` (storedIds.ts).
		const steps = Object.values(state.messages['FAILED/F'])
			.join(',')
			.split(',')
			.flatMap((token) => {
				const [step, times = '1'] = token.split('*');
				return Array<number>(parseInt(times, 36)).fill(parseInt(step, 36));
			});
		const ids = steps.map((_, i) => steps.slice(0, i + 1).reduce((x, y) => x + y));
		expect(ids).toEqual(failed.map(({ id }) => id));
	});

	test('FAILED answering empty twice at the baseline (a lagging replica) leaves the counts apart: no baseline is kept, and the next poll takes it', async () => {
		const at = slotClock();
		const failed = Array.from({ length: 3 }, () => message('FAILED', 2));
		for (let i = 0; i < 20; i++) message('DELIVERED', 1);
		ctx.sim.inject({ path: '/sms', query: { status: 'FAILED' }, empty: true, count: 2 });
		const trigger = await at(0, () => activate());
		expect(trigger.staticData).toEqual({ 'node:SMS Messaging Trigger': {} });
		expect((await at(1, () => trigger.poll())).items).toBeNull();
		ctx.sim.setSmsStatus(failed[0].id, 'DELIVERED');
		expect(emittedPairs(await at(2, () => trigger.poll()))).toEqual([`${failed[0].id}:DELIVERED`]);
	});
});

describe('SMS Messaging Trigger: a baseline whose lists do not add up to the list of every status', () => {
	// A status list that answers empty is asked once more where the list of every status shows
	// records of it (firstPages.ts): both of its answers empty.
	test.each([
		['the list of every status', undefined as unknown as string, 1],
		['DELIVERED', 'DELIVERED', 2],
	])(
		'%s answering empty at the baseline (a lagging replica): no baseline is kept, nothing delivered before is emitted, a delivery after it comes',
		async (_, status, count) => {
			const inFlight = Array.from({ length: 3 }, () => message('SENT', 2));
			for (let i = 0; i < 20; i++) message('DELIVERED', 1);
			ctx.sim.inject({ path: '/sms', query: { status }, empty: true, count });
			const trigger = await activate();
			expect(trigger.staticData).toEqual({ 'node:SMS Messaging Trigger': {} });
			expect((await later(MINUTE_MS, () => trigger.poll())).items).toBeNull();
			ctx.sim.setSmsStatus(inFlight[0].id, 'DELIVERED');
			expect(emittedPairs(await later(2 * MINUTE_MS, () => trigger.poll()))).toEqual([
				`${inFlight[0].id}:DELIVERED`,
			]);
		},
	);
});

describe.each(POLL_MODES)(
	'SMS Messaging Trigger: ids that do not follow Sent At, n8n polling in %s mode',
	(mode) => {
		test.each(['FAILED', 'DELIVERED'])(
			'10 messages imported %s before publishing (the highest ids, sent 20 hours before), listed only after the baseline: none emitted; a delivery after it comes once',
			async (status) => {
				for (let i = 0; i < 50; i++) message('DELIVERED', 2 - i / 50);
				const imported = Array.from({ length: 10 }, (_, i) => message(status, 20 - i / 10));
				for (const { id } of imported) ctx.sim.setListed(id, false);
				const trigger = await activateTrigger({
					parameters: { statuses: ['DELIVERED', 'FAILED'] },
					credentials: ctx.credentials,
					mode,
				});
				expect(trigger.atActivation.items).toBeNull();
				if (mode === 'durable') expect((await trigger.poll()).items).toBeNull();
				for (const { id } of imported) ctx.sim.setListed(id, true);
				expect((await later(MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
				const after = message('SENT', 0);
				expect((await later(2 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
				ctx.sim.setSmsStatus(after.id, 'DELIVERED');
				expect(emittedPairs(await later(3 * MINUTE_MS, async () => await trigger.poll()))).toEqual([
					`${after.id}:DELIVERED`,
				]);
			},
		);
	},
);

describe('SMS Messaging Trigger: a reading that misses a followed message', () => {
	test.each([
		['the SENT list', { query: { status: 'SENT' } }],
		['every list', { count: Infinity }],
	])(
		'%s answers empty (a 200 with no records) once: the message delivered after it comes with the next poll',
		async (_, fault) => {
			const messages = Array.from({ length: 5 }, () => message('SENT'));
			for (let i = 0; i < 200; i++) message('DELIVERED');
			const trigger = await activate();
			ctx.sim.inject({ path: '/sms', empty: true, ...fault });
			expect((await trigger.poll()).items).toBeNull();
			ctx.sim.faults = [];
			// The messages are still followed, whatever that reading showed.
			ctx.sim.setSmsStatus(messages[0].id, 'DELIVERED');
			ctx.sim.requests = [];
			expect(emittedPairs(await trigger.poll())).toEqual([`${messages[0].id}:DELIVERED`]);
			// The first pages: SENT's shows the message gone; it is looked up in the list of every
			// status, on the page where the picture puts it.
			expect(listRequests().map((r) => [r.query.status ?? 'every status', r.query.page])).toEqual([
				['PENDING', '1'],
				['SENT', '1'],
				['FAILED', '1'],
				['DELIVERED', '1'],
				['every status', '1'],
				['every status', '3'],
			]);
			expect((await trigger.poll()).items).toBeNull();
			expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		},
	);

	test.each([
		[1, 'asked once more, it answers: the first pages show where the message went', 5 + 1],
		[
			2,
			'empty again, and not believed (the other counts do not add up without its records): the first pages tell',
			5 + 1,
		],
	])(
		'the SENT list answers empty %i time(s) while a followed message fails: %s',
		async (count, _, requests) => {
			// The oldest message followed sits below 300 others; the newer ones near the top; one
			// failed before them all.
			message('FAILED', 3);
			const messages = [message('SENT', 2)];
			for (let i = 0; i < 300; i++) message('DELIVERED');
			for (let i = 0; i < 4; i++) messages.push(message('SENT'));
			const trigger = await activate({ statuses: ['FAILED'] });
			ctx.sim.inject({
				path: '/sms',
				query: { status: 'SENT' },
				empty: true,
				count,
				beforeAnswer: () => ctx.sim.setSmsStatus(messages[2].id, 'FAILED'),
			});
			ctx.sim.requests = [];
			expect(emittedPairs(await trigger.poll())).toEqual([`${messages[2].id}:FAILED`]);
			// The first pages, SENT asked once more; the message is on FAILED's first page.
			expect(listRequests()).toHaveLength(requests);
			// The others are still followed.
			ctx.sim.setSmsStatus(messages[4].id, 'DELIVERED');
			ctx.sim.setSmsStatus(messages[0].id, 'FAILED');
			expect(emittedPairs(await trigger.poll())).toEqual([`${messages[0].id}:FAILED`]);
			expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		},
	);

	test('the SENT list answers empty at two polls in a row: the second is not taken for a poll with nothing new', async () => {
		const messages = Array.from({ length: 10 }, () => message('SENT', 2));
		for (let i = 0; i < 200; i++) message('DELIVERED');
		const trigger = await activate();
		const deliver = (some: typeof messages) => {
			for (const { id } of some) ctx.sim.setSmsStatus(id, 'DELIVERED');
			return some.map(({ id }) => `${id}:DELIVERED`);
		};
		ctx.sim.inject({ path: '/sms', query: { status: 'SENT' }, empty: true });
		const first = deliver(messages.slice(-2));
		expect(emittedPairs(await later(MINUTE_MS, async () => await trigger.poll()))).toEqual(first);
		// Its first page empty again (and again when asked once more), as the poll before began.
		ctx.sim.inject({ path: '/sms', query: { status: 'SENT' }, empty: true, count: 2 });
		const second = deliver(messages.slice(-4, -2));
		expect(emittedPairs(await later(2 * MINUTE_MS, async () => await trigger.poll()))).toEqual(
			second,
		);
		expect((await later(3 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
	});

	test('a followed message is forgotten only when the day it was sent leaves the window', async () => {
		// Sent 40 hours ago: in the window (Lookback Days 2) for at least 8 more hours.
		const old = message('SENT', 40);
		const trigger = await activate({ statuses: ['FAILED'] });
		// Every list answers empty for three polls: the message stays followed.
		ctx.sim.inject({ path: '/sms', empty: true, count: Infinity });
		for (let i = 1; i <= 3; i++) {
			expect((await later(i * 3 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		}
		ctx.sim.faults = [];
		const state = () =>
			trigger.staticData['node:SMS Messaging Trigger'] as {
				messages?: Record<string, Record<string, string>>;
			};
		expect(Object.values(state().messages!['SENT/'])).toEqual([old.id.toString(36)]);
		ctx.sim.setSmsStatus(old.id, 'FAILED');
		expect(emittedPairs(await later(12 * MINUTE_MS, async () => await trigger.poll()))).toEqual([
			`${old.id}:FAILED`,
		]);
		expect(Object.keys(state().messages!)).toEqual(['FAILED/F']);
	});
});

describe('SMS Messaging Trigger: what a poll costs, in list requests', () => {
	// The bench's window (bench/trigger.ts): 10,000 messages sent over the last 36 hours, 92%
	// DELIVERED, 4% FAILED and 4% SENT, spread evenly; the trigger with its defaults.
	const buildWindow = () => {
		for (let i = 0; i < 10_000; i++) {
			const status = i % 25 === 0 ? 'FAILED' : i % 25 === 1 ? 'SENT' : 'DELIVERED';
			message(status, 36 - (36 * i) / 10_000);
		}
		return ctx.sim.sms.filter((m) => m.status === 'SENT');
	};

	test('20 changes among recent messages cost the first pages; nothing new too; a full reading every 15 minutes', async () => {
		const stillSent = buildWindow();
		const trigger = await activate();
		// The baseline reads the first page of each list, SENT and FAILED to their end (400 each, 4
		// pages): not the 9,200 delivered ones.
		expect(listRequests()).toHaveLength(11);
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(4);

		// The 20 newest messages in flight are delivered (16) or fail (4).
		const changed = stillSent.slice(-20);
		changed.forEach(({ id }, i) => ctx.sim.setSmsStatus(id, i % 5 === 4 ? 'FAILED' : 'DELIVERED'));
		ctx.sim.requests = [];
		const outcome = await trigger.poll();
		expect(emittedPairs(outcome).sort()).toEqual(
			changed.map(({ id }, i) => `${id}:${i % 5 === 4 ? 'FAILED' : 'DELIVERED'}`).sort(),
		);
		expect(listRequests().length).toBeLessThanOrEqual(15);

		ctx.sim.requests = [];
		expect((await trigger.poll()).items).toBeNull();
		// Nothing changed: the first pages, and SENT (380 records, in flight) read to its end, each
		// page on the last record of the one before (issue 63: every move into or out of the
		// in-flight lists comes at the next poll while they hold 2,000 or fewer).
		expect(listRequests()).toHaveLength(5 + 3);

		// The first poll of the next 15 minutes is a full reading: SENT and FAILED to their end (380
		// and 404 now), not DELIVERED.
		const slot = 15 * MINUTE_MS;
		ctx.sim.requests = [];
		const full = Math.ceil(Date.now() / slot) * slot + 30_000 - Date.now();
		expect((await later(full, async () => await trigger.poll())).items).toBeNull();
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(5);
		expect(listRequests().filter((r) => r.query.status === 'DELIVERED')).toHaveLength(1);
	});

	test('the worst case: the oldest message in flight delivered: DELIVERED is sought, pages 1, 2, 4… on, then halving', async () => {
		const stillSent = buildWindow();
		const trigger = await activate();
		ctx.sim.setSmsStatus(stillSent[0].id, 'DELIVERED');
		ctx.sim.requests = [];
		expect(emittedPairs(await trigger.poll())).toEqual([`${stillSent[0].id}:DELIVERED`]);
		// The first pages; DELIVERED's count shows one more than it showed: its 93 pages are sought
		// for the first that holds a record new to it (the last), in fewer than 20 requests.
		expect(listRequests().length).toBeLessThan(20);
	});
});

describe('SMS Messaging Trigger: the static data with SENT watched', () => {
	test('60,000 messages, every other one delivered before any poll saw it SENT: the static data stays small', async () => {
		const trigger = await activateTrigger({
			parameters: { statuses: ['SENT', 'DELIVERED'] },
			credentials: ctx.credentials,
			mode: 'scheduler',
		});
		const messages = Array.from({ length: 60_000 }, (_, i) =>
			message(i % 2 === 0 ? 'SENT' : 'DELIVERED', 1),
		);
		const first = await later(MINUTE_MS, async () => await trigger.poll());
		expect(first.items).toHaveLength(60_000);
		for (const { id, status } of messages)
			if (status === 'SENT') ctx.sim.setSmsStatus(id, 'DELIVERED');
		const second = await later(2 * MINUTE_MS, async () => await trigger.poll());
		expect(second.items).toHaveLength(30_000);
		// 30,000 ids one apart, were each kept, would take about 90 KB.
		expect(Buffer.byteLength(JSON.stringify(trigger.staticData))).toBeLessThan(4 * 1024);
	}, 120_000);
});

describe('SMS Messaging Trigger: records the API lists without an id', () => {
	test.each([
		['no id', undefined],
		['an id that is no number', 'abc'],
	])(
		'a record with %s is passed over: the state stays whole, every other change comes once',
		async (_, id) => {
			const a = message('SENT');
			const b = message('SENT');
			const trigger = await activateTrigger({
				parameters: { statuses: ['SENT', 'DELIVERED'] },
				credentials: ctx.credentials,
				mode: 'scheduler',
			});
			const c = message('SENT', 0.5);
			expect(emittedPairs(await trigger.poll())).toEqual([`${c.id}:SENT`]);
			const broken = message('SENT', 0.5);
			(broken as { id: unknown }).id = id;
			const emitted: string[] = [];
			for (let poll = 0; poll < 2; poll++) emitted.push(...emittedPairs(await trigger.poll()));
			ctx.sim.setSmsStatus(a.id, 'DELIVERED');
			ctx.sim.setSmsStatus(b.id, 'DELIVERED');
			ctx.sim.setSmsStatus(c.id, 'DELIVERED');
			for (let poll = 0; poll < 2; poll++) emitted.push(...emittedPairs(await trigger.poll()));
			expect(emitted).toEqual([`${a.id}:DELIVERED`, `${b.id}:DELIVERED`, `${c.id}:DELIVERED`]);
			expect(JSON.stringify(trigger.staticData)).not.toMatch(/NaN|null/);
		},
	);
});

describe('SMS Messaging Trigger: a list that repeats its first page', () => {
	test('the poll fails naming the page, then the next poll goes on', async () => {
		const messages = Array.from({ length: 150 }, () => message('SENT'));
		const trigger = await activate({ statuses: ['SENT', 'DELIVERED'] });
		ctx.sim.inject({ path: '/sms', samePage: true, count: Infinity });
		const failed = await trigger.poll();
		expect(failed.error?.message).toMatch(/^Page 4 of the list and the two before it hold only/);
		ctx.sim.faults.length = 0;
		ctx.sim.setSmsStatus(messages[0].id, 'DELIVERED');
		expect(emittedPairs(await trigger.poll())).toEqual([`${messages[0].id}:DELIVERED`]);
	});
});

describe.each(POLL_MODES)(
	'SMS Messaging Trigger: what a count alone would miss, n8n polling in %s mode',
	(mode) => {
		const activateIn = async (parameters: INodeParameters) =>
			await activateTrigger({ parameters, credentials: ctx.credentials, mode });
		/** In durable mode n8n keeps nothing of the activation's poll: the first poll is the baseline. */
		const baseline = async (trigger: Awaited<ReturnType<typeof activateIn>>) => {
			if (mode === 'durable') expect((await trigger.poll()).items).toBeNull();
		};

		test('only SENT watched: a message going PENDING to SENT while another goes SENT to DELIVERED, both below SENT’s first page (SENT’s count unchanged), comes with the next poll', async () => {
			const moving = message('PENDING', 5);
			const leaving = message('SENT', 4);
			for (let i = 0; i < 150; i++) message('SENT', 3);
			const trigger = await activateIn({ statuses: ['SENT'] });
			await baseline(trigger);
			ctx.sim.setSmsStatus(moving.id, 'SENT');
			ctx.sim.setSmsStatus(leaving.id, 'DELIVERED');
			expect(emittedPairs(await later(MINUTE_MS, async () => await trigger.poll()))).toEqual([
				`${moving.id}:SENT`,
			]);
			expect((await later(2 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
			ctx.sim.setSmsStatus(leaving.id, 'SENT');
			// Back in SENT after it was emitted there: not again.
			expect((await later(3 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		});

		test('pages without totals: a message listed late, below the mark, already DELIVERED, comes once it is listed', async () => {
			ctx.sim.omitTotals = true;
			for (let i = 0; i < 300; i++) message('DELIVERED', 3);
			const trigger = await activateIn({});
			await baseline(trigger);
			// Sent after the baseline: one listed late, below 150 newer ones; the poll raises its mark
			// over them.
			const late = message('DELIVERED', 0.5);
			ctx.sim.setListed(late.id, false);
			const newer = Array.from({ length: 150 }, () => message('DELIVERED', 0.5));
			expect(emittedPairs(await later(MINUTE_MS, async () => await trigger.poll()))).toHaveLength(
				newer.length,
			);
			ctx.sim.setListed(late.id, true);
			expect(emittedPairs(await later(2 * MINUTE_MS, async () => await trigger.poll()))).toEqual([
				`${late.id}:DELIVERED`,
			]);
			expect((await later(3 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		});

		test.each([false, true])(
			'a message listed late below the mark, already DELIVERED, while 300 sent in the last 10 minutes sit above the mark (counted, not read): it comes at the next poll (pages without totals: %s)',
			async (noTotals) => {
				ctx.sim.omitTotals = noTotals;
				const trigger = await activateIn({ statuses: ['DELIVERED'] });
				await baseline(trigger);
				const late = message('SENT', 0);
				ctx.sim.setListed(late.id, false);
				for (let i = 0; i < 300; i++) message('DELIVERED', 0);
				// 11 minutes on: the 300 are emitted and the mark rises over them.
				expect(
					emittedPairs(await later(11 * MINUTE_MS, async () => await trigger.poll())),
				).toHaveLength(300);
				for (let i = 0; i < 300; i++) message('SENT', -11.5 / 60);
				ctx.sim.setSmsStatus(late.id, 'DELIVERED');
				ctx.sim.setListed(late.id, true);
				expect(emittedPairs(await later(12 * MINUTE_MS, async () => await trigger.poll()))).toEqual(
					[`${late.id}:DELIVERED`],
				);
				for (const minutes of [13, 14, 31]) {
					expect(
						(await later(minutes * MINUTE_MS, async () => await trigger.poll())).items,
					).toBeNull();
				}
			},
		);

		test('two messages listed late, one at or below the baseline’s mark and one sent after it, while the page where the newest known message should be shows none (the late ones moved it a page up): the one sent after comes at the next poll, the other never', async () => {
			const old = Array.from({ length: 200 }, () => message('DELIVERED', 3));
			const belowMark = old[100];
			ctx.sim.setListed(belowMark.id, false);
			const trigger = await activateIn({});
			await baseline(trigger);
			// Sent after the baseline: one listed late; the newest known above it (the mark rises over it).
			const late = message('SENT', 0);
			ctx.sim.setListed(late.id, false);
			const known = message('DELIVERED', 0);
			expect(emittedPairs(await later(11 * MINUTE_MS, async () => await trigger.poll()))).toEqual([
				`${known.id}:DELIVERED`,
			]);
			// 197 more above it, read from the top down to the mark: the known one is the last record of
			// the second page (pages overlap by one), which ends the reading; the late one is below it.
			const newer = Array.from({ length: 197 }, () => message('DELIVERED', -11 / 60));
			ctx.sim.setSmsStatus(late.id, 'DELIVERED');
			ctx.sim.setListed(late.id, true);
			ctx.sim.setListed(belowMark.id, true);
			const pairs = emittedPairs(await later(12 * MINUTE_MS, async () => await trigger.poll()));
			expect(pairs).toHaveLength(newer.length + 1);
			expect(pairs).toContain(`${late.id}:DELIVERED`);
			expect(pairs).not.toContain(`${belowMark.id}:DELIVERED`);
			for (const minutes of [13, 31]) {
				expect(
					(await later(minutes * MINUTE_MS, async () => await trigger.poll())).items,
				).toBeNull();
			}
		});

		test('pages without totals: a poll with nothing new and 1,000 messages in flight costs at most 19 requests (the first pages, where each count should end, and SENT read to its end)', async () => {
			ctx.sim.omitTotals = true;
			for (let i = 0; i < 5_000; i++) message(i % 5 === 0 ? 'SENT' : 'DELIVERED', 30 - i / 200);
			const trigger = await activateIn({});
			await baseline(trigger);
			ctx.sim.requests = [];
			expect((await later(MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
			// 9 before issue 63: the in-flight lists are now read to their end at every poll while
			// they hold 2,000 or fewer, so that every move into or out of them comes at the next poll.
			expect(listRequests().length).toBeLessThanOrEqual(19);
		});
	},
);
