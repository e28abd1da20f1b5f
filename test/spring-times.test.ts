// Times as a Spring service writes them (issue 64): a LocalDateTime without an offset
// (2026-11-29T06:23:07.391), in UTC or in the API's own zone, with n8n in UTC, Berlin, Tokyo or
// New York. Through n8n's engine against the simulator: Get Delivery Status finds messages just
// sent and Send's lookup proves what the API took after a timeout, by the credential's API Time
// Zone (UTC unless set); neither ever calls a message sent that the API did not take, and where
// the API's own times contradict the setting, both say so and name the setting.
import { runWorkflow, type Credentials } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

// Send's looks in the SMS list and the simulator's delays on a clock the test controls.
useVirtualClock();
const ctx = useSimulator({ smsRecords: 0, localDateTimes: true });
const HOUR_MS = 3_600_000;

/** A zone's offset from UTC now, in minutes east, as the simulator writes its times. */
function offsetMinutesOf(zone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone: zone,
		hourCycle: 'h23',
		year: 'numeric',
		month: 'numeric',
		day: 'numeric',
		hour: 'numeric',
		minute: 'numeric',
	}).formatToParts(new Date());
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const local = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
	);
	return Math.round((local - Math.floor(Date.now() / 60_000) * 60_000) / 60_000);
}

/** The credential, with API Time Zone when given. */
const credentials = (apiTimeZone?: string) =>
	({ ...ctx.credentials, ...(apiTimeZone === undefined ? {} : { apiTimeZone }) }) as Credentials;

/** Sends `count` messages in one request; Send's ids are not the list's with `foreignIds`. */
async function sendNow(count: number, zone?: string, foreignIds = true) {
	if (foreignIds) ctx.sim.inject({ host: 'send', foreignIds: true });
	const sent = await runWorkflow({
		parameters: send(),
		items: customers(count),
		credentials: credentials(zone),
	});
	expect(sent.error).toBeUndefined();
	return sent.items.map((item) => item.json);
}

const getStatus = (items: Array<Record<string, unknown>>, zone?: string) =>
	runWorkflow({
		parameters: { resource: 'sms', operation: 'getStatus' },
		items,
		credentials: credentials(zone),
		continueOnFail: true,
	});

/** A send of `count` messages in one request the API takes, answered after Send's timeout. */
const sendTimedOut = (count: number, zone?: string) => {
	ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
	return runWorkflow({
		parameters: send({ timeout: 500 }),
		items: customers(count),
		credentials: credentials(zone),
		continueOnFail: true,
	});
};

/** A send the API never takes (a gateway's 504), after an identical message 2.5 hours earlier. */
function sendNotTaken(zone?: string) {
	ctx.sim.addSms({
		recipient: '254710000000',
		content: 'Order ORD-0 is on its way',
		status: 'DELIVERED',
		sentAt: ctx.sim.stamp(Date.now() - 2.5 * HOUR_MS),
	});
	ctx.sim.inject({ host: 'send', delayMs: 300, proxyStatus: 504 });
	return runWorkflow({
		parameters: send(),
		items: customers(1),
		credentials: credentials(zone),
		continueOnFail: true,
	});
}

describe.each(['UTC', 'Europe/Berlin', 'Asia/Tokyo', 'America/New_York'])('n8n in %s', (tz) => {
	const before = process.env.TZ;
	beforeAll(() => {
		process.env.TZ = tz;
	});
	afterAll(() => {
		process.env.TZ = before;
	});

	// The last column: the zone an identical message 2.5 hours older seems written in (read there,
	// it is the time the new one went out), where that is a whole or half number of hours.
	describe.each([
		['in UTC, API Time Zone left at its default', undefined, undefined, 'UTC-02:30'],
		[
			'in Africa/Nairobi, API Time Zone Africa/Nairobi',
			'Africa/Nairobi',
			'Africa/Nairobi',
			'UTC+00:30',
		],
		[
			'in America/New_York, API Time Zone America/New_York',
			'America/New_York',
			'America/New_York',
			'UTC-07:30',
		],
		['in UTC+05:45, API Time Zone UTC+05:45', 'Asia/Kathmandu', 'UTC+05:45', undefined],
	])('an API writing its times without an offset %s', (_, apiZone, setting, seems) => {
		beforeEach(() => {
			ctx.sim.apiZoneOffsetMinutes = apiZone === undefined ? undefined : offsetMinutesOf(apiZone);
		});

		test('Get Delivery Status of messages just sent (Send’s ids not the list’s): each its own record', async () => {
			const sent = await sendNow(3, setting);
			expect(ctx.sim.sms[0].sentAt).not.toMatch(/Z$|[+-]\d\d:\d\d$/);
			const result = await getStatus(sent, setting);
			expect(result.items.map((item) => item.json.error)).toEqual([
				undefined,
				undefined,
				undefined,
			]);
			expect(result.items.map((item) => item.json)).toEqual(ctx.sim.sms);
		});

		test('Get Delivery Status of items that give only number, text and Sent At: each its own record', async () => {
			const sent = await sendNow(3, setting, false);
			const items = sent.map(({ recipient, message, sentAt }) => ({ recipient, message, sentAt }));
			const result = await getStatus(items, setting);
			expect(result.items.map((item) => item.json)).toEqual(ctx.sim.sms);
		});

		test('Send’s lookup after a request that timed out: the 3 messages the API took are proven', async () => {
			const result = await sendTimedOut(3, setting);
			expect(ctx.sim.sentEnvelopes).toHaveLength(3);
			expect(result.items.map((item) => item.json.error)).toEqual([
				undefined,
				undefined,
				undefined,
			]);
			expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([true, true, true]);
			expect(result.items.map((item) => item.json.id)).toEqual(ctx.sim.sms.map((sms) => sms.id));
		});

		test('a send the API never took, an identical message 2.5 hours before: "May have been sent", never found', async () => {
			const result = await sendNotTaken(setting);
			expect(ctx.sim.sentEnvelopes).toEqual([]);
			expect(result.items[0].json.foundInSmsList).toBeUndefined();
			expect(String(result.items[0].json.error)).toMatch(/^May have been sent/);
		});

		test('Get Delivery Status of a message the API never took, an identical one 2.5 hours before: not given', async () => {
			await sendNotTaken(setting);
			const result = await getStatus(
				[
					{
						recipient: '254710000000',
						message: 'Order ORD-0 is on its way',
						sentAt: new Date().toISOString(),
					},
				],
				setting,
			);
			expect(result.items[0].json.id).toBeUndefined();
			// Where the older one seems written in another zone, both readings are named: it is not
			// listed yet, or the API writes its times there.
			expect(result.items[0].json.error).toBe(
				`The message to 254710000000 is not in the SMS list yet${seems ? `, or the API writes its times in ${seems}` : ''}`,
			);
		});
	});

	describe('an API writing its times in Africa/Nairobi, API Time Zone left at UTC: the times contradict the setting', () => {
		beforeEach(() => {
			ctx.sim.apiZoneOffsetMinutes = offsetMinutesOf('Africa/Nairobi');
		});

		test('Get Delivery Status (Send’s ids not the list’s): each item fails with the advice to set API Time Zone', async () => {
			const sent = await sendNow(2);
			const result = await getStatus(sent);
			expect(result.items.map((item) => item.json.id)).toEqual([undefined, undefined]);
			for (const item of result.items) {
				expect(item.json.error).toMatch(/API Time Zone \(UTC\)/);
				expect(item.error?.description).toMatch(/Set API Time Zone in the credential/);
			}
		});

		test('Send’s lookup after a timeout: "May have been sent", with the advice to set API Time Zone', async () => {
			const result = await sendTimedOut(2);
			expect(ctx.sim.sentEnvelopes).toHaveLength(2);
			for (const item of result.items) {
				expect(item.json.foundInSmsList).toBeUndefined();
				expect(String(item.json.error)).toMatch(/^May have been sent/);
				expect(item.error?.description).toMatch(/Set API Time Zone in the credential/);
			}
		});
	});
});

test('an API Time Zone that is no time zone: Get Delivery Status fails naming the credential field, with no request', async () => {
	const result = await getStatus(
		[{ recipient: '254710000000', message: 'Hello', sentAt: new Date().toISOString() }],
		'Nairobi',
	);
	expect(ctx.sim.requests).toEqual([]);
	expect(result.items[0].json.error).toMatch(/API Time Zone/);
	expect(result.items[0].json.error).toMatch(/Nairobi/);
});
