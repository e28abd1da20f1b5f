// SMS Messaging Trigger: histories where messages only move forward (PENDING, SENT, then DELIVERED
// or FAILED) and some new ones are listed minutes after newer ones, with their own older id and
// Sent At (a lagging replica), up to 120 sent a minute: every status a listed message reached is
// emitted by the next poll, once, in each of n8n's three poll modes, with and without page totals.
// No count lies in these histories (nothing leaves DELIVERED), so a miss is a reading that looked
// in the wrong place. A quarter more against an API that lists by Sent At unless asked (as its
// contacts list does), its ids shuffled against Sent At: the trigger asks for the order it reads
// by. On a clock the test controls (test/helpers/virtual-clock.ts).
import { activateTrigger, POLL_MODES, type PollOutcome } from './helpers/poll';
import { useSimulator } from './helpers/simulator';
import { seeded } from './helpers/seeded';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator({ smsRecords: 0 });

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

const emittedPairs = (outcome: PollOutcome) =>
	(outcome.items ?? []).map(({ json }) => `${String(json.id)}:${String(json.status)}`);

const WATCH_SETS = [
	['DELIVERED', 'FAILED'],
	['DELIVERED'],
	['SENT', 'DELIVERED'],
	['PENDING', 'SENT', 'DELIVERED', 'FAILED'],
];

interface Sms {
	id: number;
	status: string;
	sentAt: string;
}

const HISTORIES = POLL_MODES.flatMap((mode) => [
	...Array.from({ length: 40 }, (_, i) => ({ mode, seed: i + 1, bySentAt: false })),
	...Array.from({ length: 10 }, (_, i) => ({ mode, seed: i + 101, bySentAt: true })),
]);

test.each(HISTORIES)(
	'seed $seed, n8n polling in $mode mode, an API listing by Sent At unless asked: $bySentAt',
	async ({ mode, seed, bySentAt }) => {
		const random = seeded(seed);
		const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
		const statuses = pick(WATCH_SETS);
		const noTotals = random() < 0.5;
		let now = Date.UTC(2026, 11, 7, 9, 3, 17);
		jest.setSystemTime(now);
		ctx.sim.omitTotals = noTotals;
		if (bySentAt) ctx.sim.defaultSmsSort = ['sentAt', 'desc'];
		const add = (status: string, sentAt: number) =>
			ctx.sim.addSms({
				recipient: `2547${String(10_000_000 + ctx.sim.sms.length)}`,
				content: `Your code is ${1000 + ctx.sim.sms.length}`,
				status,
				sentAt: new Date(Math.floor(sentAt)).toISOString(),
				campaignId: undefined,
			}) as Sms;
		const before = pick([0, 50, 150, 400]);
		for (let i = 0; i < before; i++)
			add(
				pick(['DELIVERED', 'DELIVERED', 'FAILED', 'SENT']),
				now - 3 * HOUR_MS + (bySentAt ? (i * 97) % before : i) * 1000,
			);
		const trigger = await activateTrigger({
			parameters: { statuses },
			credentials: ctx.credentials,
			mode,
		});
		if (mode === 'durable') expect((await trigger.poll()).items).toBeNull();
		const emitted = new Set<string>();
		/** Messages the lists leave out for now, with the time they are listed. */
		const listedAt = new Map<number, number>();
		const problems: string[] = [];
		const lateShare = pick([0.1, 0.3, 0.6]);
		const perMinute = pick([3, 10, 40, 120]);
		for (let poll = 0; poll < 30; poll++) {
			const gap = pick([1, 1, 2, 3]) * MINUTE_MS;
			// New messages sent over the gap, their ids in the order sent; some listed late.
			const count = Math.floor(random() * perMinute);
			for (let i = 0; i < count; i++) {
				const message = add(
					pick(['PENDING', 'SENT', 'SENT', 'DELIVERED']),
					now + (gap * (i + 1)) / (count + 1),
				);
				if (random() < lateShare) {
					ctx.sim.setListed(message.id, false);
					listedAt.set(message.id, now + gap + pick([1, 2, 5, 8, 12, 20]) * MINUTE_MS);
				}
			}
			for (const message of ctx.sim.sms as Sms[]) {
				if (message.status === 'PENDING' && random() < 0.3)
					ctx.sim.setSmsStatus(message.id, 'SENT');
				else if (message.status === 'SENT' && random() < 0.2)
					ctx.sim.setSmsStatus(message.id, random() < 0.8 ? 'DELIVERED' : 'FAILED');
			}
			now += gap;
			for (const [id, at] of [...listedAt]) {
				if (at > now) continue;
				ctx.sim.setListed(id, true);
				listedAt.delete(id);
			}
			jest.setSystemTime(now);
			const outcome = await trigger.poll();
			expect(outcome.error).toBeUndefined();
			for (const pair of emittedPairs(outcome)) {
				if (emitted.has(pair)) problems.push(`poll ${poll}: ${pair} emitted twice`);
				emitted.add(pair);
			}
			for (const message of ctx.sim.sms as Sms[]) {
				const pair = `${message.id}:${message.status}`;
				if (message.id <= before || listedAt.has(message.id) || !statuses.includes(message.status))
					continue;
				if (!emitted.has(pair)) problems.push(`poll ${poll}: ${pair} not emitted`);
			}
		}
		expect(problems.slice(0, 20)).toEqual([]);
	},
);
