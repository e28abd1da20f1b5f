// An API that writes sentAt in its own time zone without an offset (a Java service writing
// LocalDateTime on a server set to its country's time; the wrapper's timestamp stays UTC, spec 2.1),
// n8n in UTC, the credential's API Time Zone left at UTC (issues 57, 64), through n8n's engine
// against the simulator's `apiZoneOffsetMinutes`: Send's lookup never takes an older message of the
// same number and text for one the API may not have taken, and Get Delivery Status finds messages
// just sent in any zone from UTC−12:00 to UTC+14:00, learning the zone from each message's own
// record (its Message ID and Sent At). Where nothing shows the zone, times read in UTC that lie
// after now contradict the setting, and the advice names it (test/spring-times.test.ts sets it).
// Times with an offset keep their exact reading.
import { runWorkflow, type Credentials } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator({ smsRecords: 0 });

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');
const HOUR_MS = 3_600_000;

/** Sends `count` customers' messages and gives Send's items. */
async function sendNow(count: number) {
	const sent = await runWorkflow({
		parameters: send(),
		items: customers(count),
		credentials: ctx.credentials,
	});
	expect(sent.error).toBeUndefined();
	return sent.items.map((item) => item.json);
}

/**
 * Sends one message through a gateway that gives up on the API after 300 ms and answers 504: the
 * API never takes it. With Continue On Fail.
 */
function sendBehind504() {
	ctx.sim.inject({ host: 'send', delayMs: 300, proxyStatus: 504 });
	return runWorkflow({
		parameters: send(),
		items: customers(1),
		credentials: ctx.credentials,
		continueOnFail: true,
	});
}

const getStatus = (items: Array<Record<string, unknown>>) =>
	runWorkflow({
		parameters: { resource: 'sms', operation: 'getStatus' },
		items,
		credentials: ctx.credentials,
		continueOnFail: true,
	});

describe('Africa/Nairobi (UTC+03:00): a send the API never took', () => {
	test('a 504 after a timeout, the same number and text sent 2.5 hours earlier: "May have been sent", never found in the SMS list', async () => {
		ctx.sim.apiZoneOffsetMinutes = 180;
		const older = ctx.sim.addSms({
			recipient: '254710000000',
			content: 'Order ORD-0 is on its way',
			status: 'DELIVERED',
			sentAt: ctx.sim.stamp(Date.now() - 2.5 * HOUR_MS),
		});
		// Read as UTC, the older message's local time is half an hour after the run began.
		expect(Date.parse(`${older.sentAt}Z`)).toBeGreaterThan(Date.now());
		const result = await sendBehind504();
		expect(sendRequests()).toHaveLength(1);
		expect(ctx.sim.sentEnvelopes).toEqual([]);
		expect(ctx.sim.sms).toHaveLength(1);
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(item.json.foundInSmsList).toBeUndefined();
		expect(String(item.json.error)).toMatch(/^May have been sent/);
		expect(item.error?.description).toMatch(/^Outcome: may have been sent/);
		// Read in UTC, the older message lies after now: the setting is contradicted, and named.
		expect(item.error?.description).toContain('Set API Time Zone in the credential');
	});

	test('the same 504 beside a batch the API took: its record shows the zone, and the older message is still not taken', async () => {
		ctx.sim.apiZoneOffsetMinutes = 180;
		ctx.sim.addSms({
			recipient: '254710000001',
			content: 'Order ORD-1 is on its way',
			sentAt: ctx.sim.stamp(Date.now() - 2.5 * HOUR_MS),
		});
		ctx.sim.inject({ host: 'send', delayMs: 300, proxyStatus: 504, skip: 1 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 1, parallelRequests: 1 }),
			items: customers(2),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(ctx.sim.sentEnvelopes.map((e: { number: string }) => e.number)).toEqual([
			'254710000000',
		]);
		expect(result.items[0].json.error).toBeUndefined();
		expect(String(result.items[1].json.error)).toMatch(/^May have been sent/);
		expect(result.items[1].json.foundInSmsList).toBeUndefined();
	});
});

describe('America/New_York (UTC−05:00): a send the API took after a timeout', () => {
	test('the zone learned from a batch it took at once: the message it took late is found in the SMS list', async () => {
		ctx.sim.apiZoneOffsetMinutes = -300;
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true, skip: 1 });
		const result = await runWorkflow({
			parameters: send({ batchSize: 1, parallelRequests: 1, timeout: 500 }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(ctx.sim.sentEnvelopes).toHaveLength(2);
		expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([undefined, true]);
		expect(result.items[1].json.id).toBe(ctx.sim.sms[1].id);
	});

	test('alone, the zone cannot be learned: "May have been sent", the record not taken for proof', async () => {
		ctx.sim.apiZoneOffsetMinutes = -300;
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
		const result = await runWorkflow({
			parameters: send({ timeout: 500 }),
			items: customers(1),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(ctx.sim.sentEnvelopes).toHaveLength(1);
		expect(String(result.items[0].json.error)).toMatch(/^May have been sent/);
		// Read in UTC, its record is 5 hours older than the send: named, with the setting.
		expect(result.items[0].error?.description).toContain('API Time Zone (UTC), is older');
	});
});

describe.each([
	['America/New_York (UTC−05:00)', -300],
	['Pacific/Kiritimati (UTC+14:00)', 840],
	['Etc/GMT+12 (UTC−12:00)', -720],
	['Africa/Nairobi (UTC+03:00)', 180],
])('%s: Get Delivery Status of messages just sent', (_, offsetMinutes) => {
	test('finds each one its own record', async () => {
		ctx.sim.apiZoneOffsetMinutes = offsetMinutes;
		const sent = await sendNow(3);
		expect(ctx.sim.sms[0].sentAt).not.toMatch(/Z$|[+-]\d\d:\d\d$/);
		const result = await getStatus(sent);
		expect(result.items.map((item) => item.json.error)).toEqual([undefined, undefined, undefined]);
		expect(result.items.map((item) => item.json)).toEqual(ctx.sim.sms);
	});

	test('an older message of the same number and text, 2.5 hours before: each item still its own record', async () => {
		ctx.sim.apiZoneOffsetMinutes = offsetMinutes;
		const older = ctx.sim.addSms({
			recipient: '254710000000',
			content: 'Order ORD-0 is on its way',
			status: 'DELIVERED',
			sentAt: ctx.sim.stamp(Date.now() - 2.5 * HOUR_MS),
		});
		const sent = await sendNow(2);
		const result = await getStatus(sent);
		expect(result.items.map((item) => item.json.id)).toEqual(sent.map((item) => item.id));
		expect(result.items.map((item) => item.json.id)).not.toContain(older.id);
	});

	/** An item for a message the API never took, sent now, 2.5 hours after one of its number and text. */
	const notTaken = () => {
		ctx.sim.addSms({
			recipient: '254799000000',
			content: 'Your code is 1234',
			status: 'DELIVERED',
			sentAt: ctx.sim.stamp(Date.now() - 2.5 * HOUR_MS),
		});
		return {
			recipient: '254799000000',
			message: 'Your code is 1234',
			sentAt: new Date().toISOString(),
		};
	};

	test('beside messages just sent, which show the zone: the older message of an item is never given for it', async () => {
		ctx.sim.apiZoneOffsetMinutes = offsetMinutes;
		const item = notTaken();
		const sent = await sendNow(2);
		const result = await getStatus([...sent, item]);
		expect(result.items.map((item) => item.json.id)).toEqual([sent[0].id, sent[1].id, undefined]);
		expect(result.items[2].json.error).toBe(
			'The message to 254799000000 is not in the SMS list yet',
		);
	});

	test('alone, nothing shows the zone: the older message is not given (read in UTC it is older, or lies after now and contradicts the setting)', async () => {
		ctx.sim.apiZoneOffsetMinutes = offsetMinutes;
		const result = await getStatus([notTaken()]);
		// West of UTC it reads older than the message (in New York 7.5 hours, a zone it may be
		// written in; in UTC−12:00, 14.5, none); east of UTC+02:30 it reads after now.
		expect(result.items[0].json.error).toBe(
			offsetMinutes < 0
				? `The message to 254799000000 is not in the SMS list yet${offsetMinutes === -300 ? ', or the API writes its times in UTC-07:30' : ''}`
				: "The SMS list's times contradict the credential's API Time Zone (UTC)",
		);
	});
});

describe.each([
	['America/New_York (UTC−05:00)', -300, 'UTC-05:00'],
	['America/St_Johns (UTC−03:30)', -210, 'UTC-03:30'],
])(
	'%s, API Time Zone left at UTC: Get Delivery Status of a message just sent, given by number, text and Sent At',
	(_, offsetMinutes, seems) => {
		test('its record, older read in UTC by a whole or half number of hours, is named with the zone it seems written in, and not taken', async () => {
			ctx.sim.apiZoneOffsetMinutes = offsetMinutes;
			const [sent] = await sendNow(1);
			const item = { recipient: sent.recipient, message: sent.message, sentAt: sent.sentAt };
			const result = await getStatus([item]);
			expect(result.items[0].json.id).toBeUndefined();
			expect(result.items[0].json.error).toBe(
				`The message to ${String(sent.recipient)} is not in the SMS list yet, or the API writes its times in ${seems}`,
			);
			expect(result.items[0].error?.description).toContain(
				`The SMS list holds a message with this number and text sent at ${ctx.sim.sms[0].sentAt}: read in ${seems}, that is when this one went out`,
			);
			// Set as it names, the same item finds its record.
			const set = await runWorkflow({
				parameters: { resource: 'sms', operation: 'getStatus' },
				items: [item],
				credentials: { ...ctx.credentials, apiTimeZone: seems } as Credentials,
			});
			expect(set.items.map((found) => found.json)).toEqual(ctx.sim.sms);
		});
	},
);

describe('times with an offset keep their exact reading', () => {
	test('Get Delivery Status of messages just sent, and Send\u2019s lookup after a timeout the API took', async () => {
		const sent = await sendNow(2);
		expect(ctx.sim.sms[0].sentAt).toMatch(/Z$/);
		const status = await getStatus(sent);
		expect(status.items.map((item) => item.json)).toEqual(ctx.sim.sms);

		ctx.sim.reset();
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true });
		const result = await runWorkflow({
			parameters: send({ timeout: 500 }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([true, true]);
		expect(ctx.sim.sentEnvelopes).toHaveLength(2);
	});

	test('an older message with an offset, 2.5 hours before a 504 the API never took: "May have been sent"', async () => {
		ctx.sim.addSms({
			recipient: '254710000000',
			content: 'Order ORD-0 is on its way',
			sentAt: new Date(Date.now() - 2.5 * HOUR_MS).toISOString(),
		});
		const result = await sendBehind504();
		expect(ctx.sim.sentEnvelopes).toEqual([]);
		expect(String(result.items[0].json.error)).toMatch(/^May have been sent/);
		expect(result.items[0].error?.description).not.toContain('API Time Zone');
	});
});
