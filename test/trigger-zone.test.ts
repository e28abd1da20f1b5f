// SMS Messaging Trigger and the credential's API Time Zone: an API that writes its times without
// an offset (a Java LocalDateTime) in its own zone. The trigger keeps a message by its Sent At (the
// window's first day, Lookback Days back, in UTC days) and raises its mark over messages sent a
// listing lag ago: both read Sent At in the zone the credential names, as Get Delivery Status
// does. In each of n8n's three poll modes (test/helpers/poll.ts).
import { activateTrigger, POLL_MODES } from './helpers/poll';
import { startTestsAwayFromSlots } from './helpers/clock';
import type { Credentials } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 0 });
startTestsAwayFromSlots();

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** 00:00 UTC of the trigger's window's first day (Lookback Days: 2, the default). */
const windowStart = () => Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;

/** A SENT message sent at `at` (ms, UTC), its Sent At written as the simulated API writes it. */
const sentMessage = (at: number) =>
	ctx.sim.addSms({
		recipient: `2547${String(10_000_000 + ctx.sim.sms.length)}`,
		content: `Your code is ${1000 + ctx.sim.sms.length}`,
		status: 'SENT',
		sentAt: ctx.sim.stamp(at),
		campaignId: undefined,
	});

const emittedIds = (items: Array<{ json: Record<string, unknown> }> | null) =>
	(items ?? []).map(({ json }) => Number(json.id)).sort((a, b) => a - b);

describe.each(POLL_MODES)(
	'SMS Messaging Trigger, an API writing local times (n8n polling in %s mode)',
	(mode) => {
		test.each([
			// West of UTC: a message sent an hour into the window's first day is written on the day
			// before; read as UTC it fell out of the window and its delivery was never emitted.
			{ zone: 'America/New_York', offsetMinutes: -300, sentFromStartMs: HOUR_MS, emitted: true },
			// East of UTC: a message sent two hours before the window is written inside it.
			{ zone: 'UTC+03:00', offsetMinutes: 180, sentFromStartMs: -2 * HOUR_MS, emitted: false },
			// West of UTC, an API reading `start-date` as its words say, "sent after this date", after
			// the end of that day in its own zone: asked the day before the window's first day in UTC,
			// it listed nothing from the first five hours of the window.
			{
				zone: 'America/New_York',
				offsetMinutes: -300,
				sentFromStartMs: HOUR_MS,
				emitted: true,
				afterDay: true,
			},
			{
				zone: 'UTC-11:00',
				offsetMinutes: -660,
				sentFromStartMs: 10 * HOUR_MS,
				emitted: true,
				afterDay: true,
			},
		])(
			'API Time Zone $zone: a message sent $sentFromStartMs ms from the window start is emitted: $emitted (start-date read after the day: $afterDay)',
			async ({ zone, offsetMinutes, sentFromStartMs, emitted, afterDay = false }) => {
				ctx.sim.apiZoneOffsetMinutes = offsetMinutes;
				ctx.sim.options.startDateAfterDay = afterDay;
				const edge = sentMessage(windowStart() + sentFromStartMs);
				const recent = sentMessage(Date.now() - HOUR_MS);
				const trigger = await activateTrigger({
					parameters: { statuses: ['DELIVERED'] },
					credentials: { ...ctx.credentials, apiTimeZone: zone } as Credentials,
					mode,
				});
				if (mode === 'durable') expect((await trigger.poll()).items).toBeNull();
				ctx.sim.setSmsStatus(edge.id, 'DELIVERED');
				ctx.sim.setSmsStatus(recent.id, 'DELIVERED');
				const polled = await trigger.poll();
				expect(polled.error).toBeUndefined();
				expect(emittedIds(polled.items)).toEqual(emitted ? [edge.id, recent.id] : [recent.id]);
				expect(emittedIds((await trigger.poll()).items)).toEqual([]);
			},
		);

		test('an API Time Zone that names no zone: activating fails naming the field, before any request', async () => {
			await expect(
				activateTrigger({
					parameters: { statuses: ['DELIVERED'] },
					credentials: { ...ctx.credentials, apiTimeZone: 'Mars/Olympus_Mons' } as Credentials,
					mode,
				}),
			).rejects.toThrow('The credential\'s API Time Zone is not a time zone: "Mars/Olympus_Mons"');
			expect(ctx.sim.requests).toEqual([]);
		});
	},
);
