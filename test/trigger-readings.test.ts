// SMS Messaging Trigger, through n8n-core's poll machinery (test/helpers/poll.ts): each message is
// emitted once per status whatever a reading of the list misses (a list that shifts between two
// pages, an empty answer, a page that fails), and what a poll costs in requests.
import type { INodeParameters } from 'n8n-workflow';

import { activateTrigger, type ActiveTrigger, type PollOutcome } from './helpers/poll';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 0 });

const MINUTE_MS = 60_000;
const IN_FLIGHT = ['PENDING', 'SENT'];
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
		// Page 2 is asked at a size that makes it start three records before page 1 ended.
		expect(
			listRequests()
				.filter((r) => r.query.status === 'SENT')
				.map((r) => [r.query.page, r.query.records]),
		).toEqual([
			['1', '100'],
			['2', '97'],
		]);
		expect((await trigger.poll()).items).toBeNull();
		expect((await trigger.poll()).items).toBeNull();
	});

	test('a recording whose in-flight pages did not meet is not kept: the next poll records again, and a message it missed still comes', async () => {
		const messages = Array.from({ length: 150 }, () => message('SENT'));
		// While page 2 of the SENT list is asked, the 5 newest messages are delivered: the list moves
		// up by more than the pages overlap, and messages[49] and [48] are in neither page.
		ctx.sim.inject({
			path: '/sms',
			query: { status: 'SENT', page: '2' },
			beforeAnswer: () =>
				messages.slice(-5).forEach(({ id }) => ctx.sim.setSmsStatus(id, 'DELIVERED')),
		});
		const trigger = await activate();
		expect(trigger.atActivation.items).toBeNull();
		expect(trigger.staticData).toEqual({ 'node:SMS Messaging Trigger': {} });
		expect((await trigger.poll()).items).toBeNull();
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

		// This reading saw nothing below page 1: what it did not see stays followed, and the next
		// poll finds the message that left.
		expect((await trigger.poll()).items).toBeNull();
		expect(emittedPairs(await trigger.poll())).toEqual([`${messages[0].id}:FAILED`]);
		expect((await trigger.poll()).items).toBeNull();
		expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
	});

	test('a page that fails in the middle of a reading: retried after the list moved, or failing the poll', async () => {
		const trigger = await activate({ statuses: ['SENT', 'DELIVERED'] });
		const messages = Array.from({ length: 102 }, () => message('SENT'));
		expect(emittedPairs(await trigger.poll())).toHaveLength(102);

		// Page 2 gets a 503, and the newest message is delivered before it is asked again: this poll
		// saw it SENT on page 1, and then DELIVERED in the list of every status. (The oldest left
		// the list before the poll, deleted, so that it reads SENT on.)
		ctx.sim.sms.splice(ctx.sim.sms.indexOf(messages[0]), 1);
		ctx.sim.inject({
			path: '/sms',
			query: { status: 'SENT', page: '2' },
			status: 503,
			retryAfter: 0,
			beforeAnswer: () => ctx.sim.setSmsStatus(messages[101].id, 'DELIVERED'),
		});
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
			settled: Record<string, Record<string, string>>;
		};
		expect(Object.values(state.settled['FAILED/F'])).toEqual([old.id.toString(36)]);
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
	/**
	 * A DELIVERED message with 120 newer ones (deeper than the polls between full readings read),
	 * and a failed one.
	 */
	const deepDelivered = () => {
		message('FAILED', 3);
		const deep = message('DELIVERED', 2);
		for (let i = 0; i < 120; i++) message('DELIVERED', 1);
		return deep;
	};

	test('a move between two watched outcome statuses (DELIVERED to FAILED) comes with the full reading, 15 minutes by default', async () => {
		const deep = deepDelivered();
		const trigger = await activate();
		expect((await later(15 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		ctx.sim.setSmsStatus(deep.id, 'FAILED');
		// Not in flight, not new: the polls between full readings do not read that far.
		expect((await later(29 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		ctx.sim.requests = [];
		const full = await later(30 * MINUTE_MS, async () => await trigger.poll());
		expect(emittedPairs(full)).toEqual([`${deep.id}:FAILED`]);
		// The FAILED list whole: a message in it that was not last seen FAILED moved there. The
		// first page of every status, asked first, is asked again after it.
		expect(listRequests().map((r) => [r.query.status, r.query.page])).toEqual([
			['PENDING', '1'],
			['SENT', '1'],
			[undefined, '1'],
			['FAILED', '1'],
			[undefined, '1'],
		]);
		expect((await later(31 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		expect((await later(46 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
	});

	test.each([
		[0, 0],
		[60, 61],
	])(
		'Full Reading Every (Minutes) = %i: the move comes %i minutes later',
		async (fullReadingMinutes, minutes) => {
			const deep = deepDelivered();
			const trigger = await activate({ options: { fullReadingMinutes } });
			const first = await later(minutes * MINUTE_MS, async () => await trigger.poll());
			expect(first.items).toBeNull();
			ctx.sim.setSmsStatus(deep.id, 'FAILED');
			if (minutes > 0) {
				const early = await later((minutes + 16) * MINUTE_MS, async () => await trigger.poll());
				expect(early.items).toBeNull();
			}
			const outcome = await later(2 * minutes * MINUTE_MS, async () => await trigger.poll());
			expect(emittedPairs(outcome)).toEqual([`${deep.id}:FAILED`]);
		},
	);

	test('the activation reads which messages had failed: a move from DELIVERED to FAILED right after it comes with the first full reading', async () => {
		const deep = deepDelivered();
		const failedBefore = ctx.sim.sms[0];
		const trigger = await activate();
		expect(listRequests().map((r) => r.query.status)).toEqual([
			'PENDING',
			'SENT',
			undefined,
			'FAILED',
		]);
		ctx.sim.setSmsStatus(deep.id, 'FAILED');
		const full = await later(15 * MINUTE_MS, async () => await trigger.poll());
		expect(emittedPairs(full)).toEqual([`${deep.id}:FAILED`]);
		// The one that had failed before is never emitted FAILED.
		expect((await later(30 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		// Sent again and delivered, it is emitted DELIVERED, as a change since.
		ctx.sim.setSmsStatus(failedBefore.id, 'SENT');
		expect((await later(31 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		ctx.sim.setSmsStatus(failedBefore.id, 'DELIVERED');
		const delivered = await later(32 * MINUTE_MS, async () => await trigger.poll());
		expect(emittedPairs(delivered)).toEqual([`${failedBefore.id}:DELIVERED`]);
	});

	test('an empty answer to the FAILED list at the activation is not taken for an empty list: the next poll reads it again, and what had failed is not emitted', async () => {
		const failed = Array.from({ length: 3 }, () => message('FAILED', 2));
		for (let i = 0; i < 20; i++) message('DELIVERED', 1);
		ctx.sim.inject({ path: '/sms', query: { status: 'FAILED' }, empty: true });
		const trigger = await activate();
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(1);
		// Read again by the next poll, which learns them.
		ctx.sim.requests = [];
		expect((await later(MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(1);
		for (const minutes of [2, 16, 31]) {
			expect((await later(minutes * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		}
		const state = trigger.staticData['node:SMS Messaging Trigger'] as {
			settled: Record<string, Record<string, string>>;
		};
		// Stored as failed (and emitted in FAILED) since before the activation: base-36 steps from
		// one id to the next, a step repeated as `step*times` (storedIds.ts).
		const steps = Object.values(state.settled['FAILED/F'])
			.join(',')
			.split(',')
			.flatMap((token) => {
				const [step, times = '1'] = token.split('*');
				return Array<number>(parseInt(times, 36)).fill(parseInt(step, 36));
			});
		const ids = steps.map((_, i) => steps.slice(0, i + 1).reduce((a, b) => a + b));
		expect(ids).toEqual(failed.map(({ id }) => id));
	});

	test('a FAILED list that the activation and the next poll find empty is empty: a move to FAILED after them comes', async () => {
		const deep = deepDelivered();
		ctx.sim.setSmsStatus(ctx.sim.sms[0].id, 'DELIVERED');
		const trigger = await activate();
		expect((await later(MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		// Two requests for the empty list, then the full readings every 15 minutes.
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(2);
		ctx.sim.setSmsStatus(deep.id, 'FAILED');
		expect((await later(2 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		const full = await later(16 * MINUTE_MS, async () => await trigger.poll());
		expect(emittedPairs(full)).toEqual([`${deep.id}:FAILED`]);
	});
});

/** A small seeded generator (mulberry32), so a failing run can be replayed by its seed. */
function seeded(seed: number) {
	let a = seed;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * One history: what to watch, whether n8n makes a new poll context for every poll, and whether
 * new messages are sent at the poll clock's time and some listed late (after newer ones).
 */
interface History {
	seed: number;
	statuses: string[];
	contextPerPoll: boolean;
	/** Some new messages are listed after newer ones, up to this many polls late. */
	late?: number;
}

/** 44 histories: the four watch sets, each with one context per activation and one per poll. */
const HISTORIES: History[] = Array.from({ length: 44 }, (_, i) => ({
	seed: i + 1,
	statuses: [
		['DELIVERED', 'FAILED'],
		['FAILED'],
		['SENT', 'DELIVERED'],
		['PENDING', 'SENT', 'DELIVERED', 'FAILED'],
	][i % 4],
	contextPerPoll: Math.floor(i / 4) % 2 === 1,
}));

/** 8 histories with no outcome status watched, where a move from SENT back to PENDING counts. */
const IN_FLIGHT_HISTORIES: History[] = Array.from({ length: 8 }, (_, i) => ({
	seed: i + 201,
	statuses: [['PENDING', 'SENT'], ['PENDING']][i % 2],
	contextPerPoll: i >= 4,
}));

/** 16 histories where a new message is often listed after newer ones, for up to 8 minutes. */
const LATE_HISTORIES: History[] = HISTORIES.slice(0, 16).map((history) => ({
	...history,
	seed: history.seed + 100,
	late: 2,
}));

/** 16 histories where a new message is often listed up to 40 polls (two hours) late. */
const LONG_LATE_HISTORIES: History[] = HISTORIES.slice(0, 16).map((history) => ({
	...history,
	seed: history.seed + 300,
	late: 40,
}));

/**
 * Runs one random history: messages sent, delivered, failing, sent again; while polls read, the
 * list changes, answers come back empty (a well-formed 200 with no records), pages fail (500) or
 * are retried (503), and n8n restarts. Checked against a model of each message's statuses:
 * nothing emitted twice, nothing emitted that did not happen, and after every clean poll (no
 * fault, no change while it read) every status a message reached before it has been emitted;
 * a move between two outcome statuses (DELIVERED to FAILED), which only a full reading sees, by
 * the full reading at the end, also for a message DELIVERED or FAILED at the activation. Not
 * checked, but that none is emitted twice (docs/trigger.md): the in-flight statuses of a message
 * sent again from an outcome status that no clean poll had seen SENT before (delivered between
 * two polls, or sent straight into an outcome status).
 */
async function runHistory({ seed, statuses, contextPerPoll, late = 0 }: History) {
	const random = seeded(seed);
	const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
	const parameters = { statuses };
	// The window: messages sent over the last 36 hours, oldest first.
	for (let i = 0; i < 150; i++) {
		const roll = random();
		const status =
			roll < 0.6 ? 'DELIVERED' : roll < 0.7 ? 'FAILED' : roll < 0.95 ? 'SENT' : 'PENDING';
		message(status, 36 - (36 * i) / 150);
	}
	let trigger: ActiveTrigger = await activateTrigger({
		parameters,
		credentials: ctx.credentials,
		contextPerPoll,
	});
	expect(trigger.atActivation.items).toBeNull();

	// The model: each message's statuses since the activation (not those it had then).
	const atActivation = new Set(ctx.sim.sms.map((m) => `${m.id}:${m.status}`));
	const gained = new Set<string>();
	/**
	 * Outcome statuses reached from another outcome status, as the trigger can see it: DELIVERED to
	 * FAILED, or a failed message sent again and delivered before any clean poll saw it in flight.
	 * Only a full reading sees those.
	 */
	const movedBetweenOutcomes = new Set<string>();
	/** Messages in an outcome status since the last clean poll that could see them in flight. */
	const outcomeSinceSeen = new Set(
		ctx.sim.sms.filter((m) => !IN_FLIGHT.includes(m.status)).map((m) => m.id),
	);
	/** Messages a clean poll (or the activation) saw in flight, with that status: "id:SENT". */
	const seenInFlight = new Set(
		ctx.sim.sms.filter((m) => IN_FLIGHT.includes(m.status)).map((m) => `${m.id}:${m.status}`),
	);
	/** Messages sent again from an outcome status that no clean poll had seen SENT before. */
	const resentUnseen = new Set<number>();
	/** Whether `pair` is one whose emission the model does not decide (see above). */
	const undecided = (pair: string) => {
		const [id, status] = pair.split(':');
		return IN_FLIGHT.includes(status) && resentUnseen.has(Number(id));
	};
	const emitted: string[] = [];
	const problems: string[] = [];
	let minutes = 0;
	let round = 0;
	/** The clock at the start: a poll's clock is `minutes` later. */
	const start = Date.now();
	/** Messages the lists leave out for now, each with the round it is listed again at. */
	const unlisted = new Map<number, number>();
	const setStatus = (id: number, status: string) => {
		ctx.sim.setSmsStatus(id, status);
		if (!atActivation.has(`${id}:${status}`)) gained.add(`${id}:${status}`);
		if (IN_FLIGHT.includes(status)) return;
		if (outcomeSinceSeen.has(id)) movedBetweenOutcomes.add(`${id}:${status}`);
		outcomeSinceSeen.add(id);
	};
	/** One change, as the network and the sender make them. */
	const change = () => {
		const roll = random();
		const inStatus = (status: string) => ctx.sim.sms.filter((m) => m.status === status);
		if (roll < 0.2) {
			const status = random() < 0.9 ? pick(['PENDING', 'SENT']) : pick(['DELIVERED', 'FAILED']);
			// Sent a minute after the last poll's clock; listed up to `late` polls late (3 minutes
			// apart), once newer messages are.
			const sentAt = start + (minutes + 1) * MINUTE_MS;
			const { id } = message(status, late ? (Date.now() - sentAt) / HOUR_MS : 0);
			if (late && random() < 0.4) {
				ctx.sim.setListed(id, false);
				unlisted.set(id, round + 1 + Math.floor(random() * late));
			}
			gained.add(`${id}:${status}`);
			if (!IN_FLIGHT.includes(status)) outcomeSinceSeen.add(id);
		} else if (roll < 0.3) {
			const pending = inStatus('PENDING');
			if (pending.length) setStatus(pick(pending).id, 'SENT');
		} else if (roll < 0.33) {
			// Back from SENT to PENDING (a route queued it again).
			const sent = inStatus('SENT');
			if (sent.length) setStatus(pick(sent).id, 'PENDING');
		} else if (roll < 0.95) {
			// Most changes are recent messages being delivered.
			const inFlight = inStatus('SENT').slice(-40);
			if (inFlight.length) setStatus(pick(inFlight).id, random() < 0.85 ? 'DELIVERED' : 'FAILED');
		} else if (roll < 0.98) {
			const delivered = inStatus('DELIVERED');
			if (delivered.length) setStatus(pick(delivered).id, 'FAILED');
		} else {
			// A failed message sent again under the same id: FAILED must not come twice.
			const failed = inStatus('FAILED');
			if (failed.length) {
				const { id } = pick(failed);
				if (!seenInFlight.has(`${id}:SENT`)) resentUnseen.add(id);
				setStatus(id, 'SENT');
			}
		}
	};
	/**
	 * What is due: every watched status a message is in now and reached since the activation, once
	 * the message is listed.
	 */
	const due = () =>
		ctx.sim.sms
			.filter((m) => !unlisted.has(m.id))
			.map((m) => `${m.id}:${m.status}`)
			.filter((pair) => gained.has(pair) && statuses.includes(pair.split(':')[1]));

	/** What the first pages of PENDING, SENT and every status say: their counts and newest ids. */
	const firstPages = () =>
		[['PENDING'], ['SENT'], [...IN_FLIGHT, 'DELIVERED', 'FAILED']]
			.map((listed) => {
				const ids = ctx.sim.sms
					.filter((m) => listed.includes(m.status) && !unlisted.has(m.id))
					.map((m) => m.id);
				return `${ids.length}:${Math.max(0, ...ids)}`;
			})
			.join(' ');
	const firstPagesSeen = new Set<string>();

	for (; round < 30; round++) {
		for (const [id, at] of unlisted) {
			if (at > round) continue;
			ctx.sim.setListed(id, true);
			unlisted.delete(id);
		}
		const changes = Math.floor(random() * 6);
		for (let i = 0; i < changes; i++) change();
		// Things that happen while a poll reads the list.
		const roll = random();
		const skip = Math.floor(random() * 5);
		if (roll < 0.3) {
			const during = 1 + Math.floor(random() * 4);
			ctx.sim.inject({
				path: '/sms',
				skip,
				beforeAnswer: () => {
					for (let i = 0; i < during; i++) change();
				},
			});
		} else if (roll < 0.5) {
			ctx.sim.inject({ path: '/sms', skip, empty: true, count: 1 + Math.floor(random() * 3) });
		} else if (roll < 0.55) {
			ctx.sim.inject({ path: '/sms', skip, status: 500 });
		} else if (roll < 0.6) {
			ctx.sim.inject({
				path: '/sms',
				skip,
				status: 503,
				retryAfter: 0,
				beforeAnswer: () => change(),
			});
		}
		// A poll whose first pages say what they said when an earlier poll began has nothing to read
		// (firstPages.ts): what moved since, in opposite directions that cancel out, waits for a poll
		// with something to read, the full reading at the latest.
		const quiet = firstPagesSeen.has(firstPages());
		const clean = ctx.sim.faults.length === 0 && !quiet;
		firstPagesSeen.add(firstPages());
		// A clean poll sees every message in flight, and follows it from then on.
		if (clean) {
			for (const m of ctx.sim.sms) {
				if (IN_FLIGHT.includes(m.status) && !unlisted.has(m.id)) {
					outcomeSinceSeen.delete(m.id);
					seenInFlight.add(`${m.id}:${m.status}`);
				}
			}
		}
		minutes += 3;
		const outcome = await later(minutes * MINUTE_MS, async () => await trigger.poll());
		emitted.push(...emittedPairs(outcome));
		ctx.sim.faults = [];
		firstPagesSeen.add(firstPages());
		if (clean) {
			const missed = due().filter(
				(pair) => !movedBetweenOutcomes.has(pair) && !emitted.includes(pair) && !undecided(pair),
			);
			if (missed.length)
				problems.push(`after the clean poll of round ${round}: ${missed.join(' ')} not emitted`);
		}
		if (round % 13 === 12) {
			// n8n restarts: the same workflow, its static data as saved, polled by a new context.
			trigger = await later(minutes * MINUTE_MS, async () =>
				activateTrigger({
					parameters,
					credentials: ctx.credentials,
					staticData: trigger.staticData,
					activation: 'init',
					contextPerPoll,
				}),
			);
			emitted.push(...emittedPairs(trigger.atActivation));
		}
	}
	// Every message listed; a full reading, then one more poll, with nothing going wrong.
	for (const id of unlisted.keys()) ctx.sim.setListed(id, true);
	unlisted.clear();
	for (const after of [16, 17]) {
		emitted.push(
			...emittedPairs(await later((minutes + after) * MINUTE_MS, async () => await trigger.poll())),
		);
	}

	// Exactly once: never twice, only statuses gained since the activation and watched, and
	// every message now in a watched status it gained has been emitted in it.
	const counts = new Map<string, number>();
	for (const pair of emitted) counts.set(pair, (counts.get(pair) ?? 0) + 1);
	for (const [pair, count] of counts)
		if (count > 1) problems.push(`${pair} emitted ${count} times`);
	for (const pair of emitted) {
		if (undecided(pair) && statuses.includes(pair.split(':')[1])) continue;
		if (!gained.has(pair) || !statuses.includes(pair.split(':')[1])) {
			problems.push(`${pair} emitted, never reached since the activation or not watched`);
		}
	}
	for (const pair of due()) {
		if (!counts.has(pair) && !undecided(pair)) problems.push(`${pair} never emitted`);
	}
	return { problems, due: due().length };
}

/** Each history as a test: no problem against the model, and more than 5 statuses due. */
function describeHistories(title: string, histories: History[]) {
	describe(`SMS Messaging Trigger: ${title}`, () => {
		test.each(histories)(
			'seed $seed, watching $statuses, a new context per poll: $contextPerPoll',
			async (history) => {
				const { problems, due } = await runHistory(history);
				expect(problems).toEqual([]);
				expect(due).toBeGreaterThan(5);
			},
			60_000,
		);
	});
}

describeHistories('random histories against a model', HISTORIES);

describeHistories('random histories watching in-flight statuses only', IN_FLIGHT_HISTORIES);

describeHistories('random histories with messages listed late', LATE_HISTORIES);

describeHistories(
	'random histories with messages listed up to two hours late',
	LONG_LATE_HISTORIES,
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
			// PENDING, SENT, FAILED and DELIVERED from their top (the message is not among the newest
			// delivered), then the list of every status down to the message: 3 pages, and the first
			// again.
			expect(listRequests().map((r) => r.query.status ?? 'every status')).toEqual([
				'PENDING',
				'SENT',
				'every status',
				'FAILED',
				'DELIVERED',
				'every status',
				'every status',
				'every status',
			]);
			expect((await trigger.poll()).items).toBeNull();
			expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		},
	);

	test.each([
		[1, 'asked once more, it answers: every status down to the message that left', 4 + 3],
		[2, 'empty again: every status down to the oldest message followed', 6 + 4],
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
			// PENDING, SENT and the first page of every status; FAILED (where the message is) and
			// DELIVERED from their top; SENT again (and again), then pages of the list of every
			// status from the first.
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
				followed: Record<string, Record<string, string>>;
			};
		expect(Object.values(state().followed['SENT/'])).toEqual([old.id.toString(36)]);
		ctx.sim.setSmsStatus(old.id, 'FAILED');
		expect(emittedPairs(await later(12 * MINUTE_MS, async () => await trigger.poll()))).toEqual([
			`${old.id}:FAILED`,
		]);
		expect(state().followed).toEqual({});
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

	test('20 changes among recent messages cost at most 15 requests; nothing new 7; a full reading every 15 minutes', async () => {
		const stillSent = buildWindow();
		const trigger = await activate();
		// The activation reads PENDING 1, SENT 5 (400, pages overlapping), the newest messages 1 and
		// FAILED 5 (400, pages overlapping): not the 9,200 delivered ones.
		expect(listRequests()).toHaveLength(12);
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(5);

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
		// Nothing changed: the first pages of PENDING, SENT and every status say so.
		expect(listRequests()).toHaveLength(3);

		ctx.sim.requests = [];
		expect((await later(15 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		// The full reading reads the FAILED list whole (404 now), not the DELIVERED one.
		expect(listRequests().filter((r) => r.query.status === 'FAILED')).toHaveLength(5);
		expect(listRequests().filter((r) => r.query.status === 'DELIVERED')).toHaveLength(0);
	});

	test('the worst case: the oldest message in flight changes, and the list of every status is read down to it', async () => {
		const stillSent = buildWindow();
		const trigger = await activate();
		ctx.sim.setSmsStatus(stillSent[0].id, 'DELIVERED');
		ctx.sim.requests = [];
		expect(emittedPairs(await trigger.poll())).toEqual([`${stillSent[0].id}:DELIVERED`]);
		// PENDING 1 and SENT 5, the first pages of FAILED and DELIVERED (looked at first: the
		// message is not there, it is the oldest), then the list of every status to the bottom of
		// the window: 100, and its first page, asked before the others.
		expect(listRequests()).toHaveLength(109);
	});
});

describe('SMS Messaging Trigger: a large account, 150,000 messages in 31 days', () => {
	// 5,000 messages a day over Lookback Days 31: 92% DELIVERED, 4% FAILED, 4% SENT, spread evenly.
	const WINDOW = 150_000;
	const pages = (count: number, size: number) => Math.ceil(count / size);

	test('activation reads the messages in flight and the failed ones, not the window; the static data stays within 64 KiB; a poll costs what changed, 3 requests when nothing did', async () => {
		for (let i = 0; i < WINDOW; i++) {
			const status = i % 25 === 0 ? 'FAILED' : i % 25 === 1 ? 'SENT' : 'DELIVERED';
			message(status, 31 * 24 - (31 * 24 * i) / WINDOW);
		}
		const stillSent = ctx.sim.sms.filter((m) => m.status === 'SENT');
		const parameters = { options: { lookbackDays: 31 } };
		const trigger = await activateTrigger({
			parameters,
			credentials: ctx.credentials,
			savedBetweenPolls: true,
		});
		const bytes = () => Buffer.byteLength(JSON.stringify(trigger.staticData));

		// PENDING, SENT and FAILED (6,000 each, in pages that overlap by 3 records, at least 85 new
		// in each), and the newest messages: the pages of the messages in flight and of the failed
		// ones and one request, where the window is 1,500 pages.
		const count = (status: string) =>
			listRequests().filter((r) => r.query.status === status).length;
		const inFlightPages = count('PENDING') + count('SENT');
		expect(count('SENT')).toBeLessThanOrEqual(pages(6_000, 85));
		expect(count('FAILED')).toBeLessThanOrEqual(pages(6_000, 85));
		expect(count('DELIVERED')).toBe(0);
		expect(listRequests()).toHaveLength(1 + inFlightPages + count('FAILED'));
		expect(bytes()).toBeLessThan(64 * 1024);

		// 20 recent messages in flight are delivered (16) or fail (4).
		const changed = stillSent.slice(-20);
		changed.forEach(({ id }, i) => ctx.sim.setSmsStatus(id, i % 5 === 4 ? 'FAILED' : 'DELIVERED'));
		ctx.sim.requests = [];
		const outcome = await later(MINUTE_MS, async () => await trigger.poll());
		expect(emittedPairs(outcome)).toHaveLength(20);
		// The first pages (the 20 are on SENT's), and every status down to the oldest of the 20
		// (500 messages back): 7 requests, 75 before issue 47.
		expect(listRequests().length).toBeLessThanOrEqual(30);
		expect(bytes()).toBeLessThan(64 * 1024);

		// Nothing changed: the first pages of PENDING, SENT and every status.
		ctx.sim.requests = [];
		expect((await later(2 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		expect(listRequests()).toHaveLength(3);

		// A full reading, 16 minutes after the activation: the in-flight lists, the FAILED list at
		// the largest page, one page of every status.
		ctx.sim.requests = [];
		expect((await later(16 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		expect(count('FAILED')).toBe(pages(6_004, 100));
		expect(count('DELIVERED')).toBe(0);
		expect(bytes()).toBeLessThan(64 * 1024);

		// A move from DELIVERED to FAILED comes with the next full reading. One from the middle of
		// the window: the oldest leave it when the clock, 32 minutes on, passes midnight (UTC).
		const moved = ctx.sim.sms.find((m, i) => i > WINDOW / 2 && m.status === 'DELIVERED')!;
		ctx.sim.setSmsStatus(moved.id, 'FAILED');
		ctx.sim.requests = [];
		const full = await later(32 * MINUTE_MS, async () => await trigger.poll());
		expect(emittedPairs(full)).toEqual([`${moved.id}:FAILED`]);
		expect(count('FAILED')).toBe(pages(6_005, 100));
		expect(count('DELIVERED')).toBe(0);
		expect(bytes()).toBeLessThan(64 * 1024);
	}, 120_000);
});

describe('SMS Messaging Trigger: a bulk send of 100,000', () => {
	test('after it, the static data stays within 64 KiB, a poll with nothing new costs the first pages, and 1,000 deliveries and 50 failures come out exactly', async () => {
		// 10,000 messages over the last 36 hours: 92% DELIVERED, 4% FAILED, 4% SENT.
		for (let i = 0; i < 10_000; i++) {
			const status = i % 25 === 0 ? 'FAILED' : i % 25 === 1 ? 'SENT' : 'DELIVERED';
			message(status, 36 - (36 * i) / 10_000);
		}
		const trigger = await activateTrigger({
			parameters: {},
			credentials: ctx.credentials,
			savedBetweenPolls: true,
		});
		// One campaign of 100,000, sent over 3 minutes, all SENT.
		const campaignId = '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0e7f6b3c';
		const start = Date.now();
		const bulk = Array.from({ length: 100_000 }, (_, i) =>
			ctx.sim.addSms({
				recipient: `2547${String(20_000_000 + i)}`,
				content: 'Our sale starts today',
				status: 'SENT',
				sentAt: new Date(start + Math.floor((i * 180_000) / 100_000)).toISOString(),
				campaignId,
			}),
		);
		const bytes = () => Buffer.byteLength(JSON.stringify(trigger.staticData));
		expect((await later(4 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		expect(bytes()).toBeLessThan(64 * 1024);

		ctx.sim.requests = [];
		expect((await later(5 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
		expect(listRequests().length).toBeLessThanOrEqual(10);

		// 1,000 of them delivered and 50 failed, spread over the campaign.
		const delivered = bulk.filter((_, i) => i % 100 === 7);
		const failed = bulk.filter((_, i) => i % 2000 === 11);
		for (const { id } of delivered) ctx.sim.setSmsStatus(id, 'DELIVERED');
		for (const { id } of failed) ctx.sim.setSmsStatus(id, 'FAILED');
		ctx.sim.requests = [];
		const outcome = await later(6 * MINUTE_MS, async () => await trigger.poll());
		// Found at the top of the DELIVERED and FAILED lists; the send, younger than 10 minutes,
		// is not read again.
		expect(listRequests().length).toBeLessThanOrEqual(60);
		expect(emittedPairs(outcome).sort()).toEqual(
			[
				...delivered.map(({ id }) => `${id}:DELIVERED`),
				...failed.map(({ id }) => `${id}:FAILED`),
			].sort(),
		);
		expect(bytes()).toBeLessThan(64 * 1024);
		expect((await later(7 * MINUTE_MS, async () => await trigger.poll())).items).toBeNull();
	}, 240_000);
});

describe('SMS Messaging Trigger: the static data with SENT watched', () => {
	test('60,000 messages, every other one delivered before any poll saw it SENT: the static data stays small', async () => {
		const trigger = await activateTrigger({
			parameters: { statuses: ['SENT', 'DELIVERED'] },
			credentials: ctx.credentials,
			savedBetweenPolls: true,
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
				savedBetweenPolls: true,
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
