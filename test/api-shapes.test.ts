// Send, Get Delivery Status and the trigger against an API that answers as a real service may
// (issue 49), through n8n's engine against the simulator switched to answer that way: texts
// normalised when stored (trimmed, CRLF, Unicode NFC), times written without an offset (a Java
// LocalDateTime, UTC). `npm run test:zones` runs this file with the process in Asia/Tokyo and in
// America/New_York, where JavaScript reads a time without an offset 9 hours early or 5 hours
// late; `npm run test:unit` runs it in the host's time zone. Then Retry On Fail with a text that
// changes between tries, and input read strictly.
import type { INodeParameters } from 'n8n-workflow';

import { runWorkflow } from './helpers/n8n';
import { activateTrigger } from './helpers/poll';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 0, localDateTimes: true, normaliseText: true });

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');

/** Texts a template or a spreadsheet gives, which a service may store otherwise. */
const TEXTS = [
	'Hi Ann, your code is 1234 ',
	'Line one\r\nLine two',
	'Cafe\u0301 opens at 9',
	'  Spaces around  ',
];
const items = TEXTS.map((text, k) => ({ phone: `25471200000${k + 1}`, text, ref: `R-${k}` }));

const sendTexts = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '={{ $json.text }}',
	...extra,
});

describe('an API that normalises the text it stores', () => {
	test('with references: every message accepted is sent, paired by number and reference', async () => {
		const result = await runWorkflow({
			parameters: sendTexts({ thirdPartyRef: '={{ $json.ref }}' }),
			items,
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(sendRequests()).toHaveLength(1);
		expect(result.items.map((item) => [item.pairedItem, item.json.status])).toEqual(
			items.map((_, item) => [{ item }, 'SENT']),
		);
		// The output shows the text as the API stored it.
		expect(result.items.map((item) => item.json.message)).toEqual([
			'Hi Ann, your code is 1234',
			'Line one\nLine two',
			'Café opens at 9',
			'Spaces around',
		]);
	});

	test('without references, and two messages to one number: paired by number, then text', async () => {
		const twice = [...items, { phone: items[0].phone, text: ' Second message to Ann', ref: '' }];
		const result = await runWorkflow({
			parameters: sendTexts(),
			items: twice,
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.message)).toEqual([
			'Hi Ann, your code is 1234',
			'Line one\nLine two',
			'Café opens at 9',
			'Spaces around',
			'Second message to Ann',
		]);
		expect(ctx.sim.sentEnvelopes).toHaveLength(5);
	});

	test('Get Delivery Status finds each message just sent, by its text as sent', async () => {
		const sent = await runWorkflow({
			parameters: sendTexts(),
			items,
			credentials: ctx.credentials,
		});
		expect(sent.error).toBeUndefined();
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus' },
			// The text as the item wrote it, not as the API stored it.
			items: sent.items.map((item, k) => ({ ...item.json, message: TEXTS[k] })),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.id)).toEqual(sent.items.map((s) => s.json.id));
	});
});

describe('an API that writes times without an offset', () => {
	test('Get Delivery Status straight after Send finds every message, on a host in any time zone', async () => {
		const sent = await runWorkflow({
			parameters: send(),
			items: customers(3),
			credentials: ctx.credentials,
		});
		expect(sent.error).toBeUndefined();
		expect(ctx.sim.sms[0].sentAt).not.toMatch(/Z$/);
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus' },
			items: sent.items.map((item) => item.json),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(ctx.sim.sms);
	});

	test('after a send that timed out, Send’s lookup proves each message the API took, its zone shown by a batch the API took at once', async () => {
		// Without an offset a time is placed only in the API's zone, which the batch it took at once
		// shows (issue 57; alone, a timed-out send stays "may have been sent": test/api-zone.test.ts).
		ctx.sim.inject({ host: 'send', untilClientGone: true, process: true, skip: 1 });
		const result = await runWorkflow({
			parameters: send({ timeout: 500, batchSize: 3, parallelRequests: 1 }),
			items: customers(6),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([
			undefined,
			undefined,
			undefined,
			true,
			true,
			true,
		]);
		expect(ctx.sim.sentEnvelopes).toHaveLength(6);
	});

	test('the trigger emits a message the API lists late, sent minutes ago', async () => {
		const trigger = await activateTrigger({
			parameters: { statuses: ['FAILED'] },
			credentials: ctx.credentials,
		});
		expect(trigger.atActivation.items).toBeNull();
		const late = ctx.sim.addSms({ recipient: '254712000009', content: 'Late', status: 'FAILED' });
		const listed = ctx.sim.addSms({
			recipient: '254712000008',
			content: 'On time',
			status: 'FAILED',
		});
		ctx.sim.setListed(late.id, false);
		const first = await trigger.poll();
		expect(first.error).toBeUndefined();
		expect((first.items ?? []).map((item) => item.json.id)).toEqual([listed.id]);
		ctx.sim.setListed(late.id, true);
		const second = await trigger.poll();
		expect((second.items ?? []).map((item) => item.json.id)).toEqual([late.id]);
	});
});

describe("n8n's Retry On Fail with a text that changes between tries", () => {
	test('300 items with a one-time code, request 2 refused once: no output shows a code the API did not take for it', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow({
			parameters: {
				...send({ batchSize: 100, parallelRequests: 1 }),
				message: '=Order {{ $json.order }}, your code is {{ Math.floor(Math.random() * 1e9) }}',
			},
			items: customers(300),
			credentials: ctx.credentials,
			retryOnFail: { maxTries: 3, waitBetweenTries: 0 },
		});
		expect(result.error).toBeUndefined();
		expect(ctx.sim.sentEnvelopes).toHaveLength(300);
		const taken = new Map(
			ctx.sim.sentEnvelopes.map((e: { thirdPartyRef: string; message: string }) => [
				e.thirdPartyRef,
				e.message,
			]),
		);
		const shown = result.items.map((item) => [item.json.thirdPartyRef, item.json.message]);
		const wrong = shown.filter(
			([ref, message]) => message !== undefined && message !== taken.get(String(ref)),
		);
		expect(wrong).toEqual([]);
		// The first request's 100 items went out in the first try, with a code this try does not know.
		const untold = result.items.filter((item) => item.json.message === undefined);
		expect(untold).toHaveLength(100);
		expect(untold.every((item) => String(item.json.note).includes('another text'))).toBe(true);
	});
});

describe('input read strictly', () => {
	test('a date with words after it, or a time that does not exist, is refused before any request', async () => {
		for (const startDate of ['2026-11-01 garbage', '2026-11-01T25:99']) {
			const result = await runWorkflow({
				parameters: {
					resource: 'sms',
					operation: 'getAll',
					returnAll: true,
					filters: { startDate },
				},
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toBe(`Sent After is not a date: "${startDate}"`);
		}
		expect(ctx.sim.requests).toEqual([]);
	});

	test('"0x10" is not a whole number for Limit or Batch Size', async () => {
		const list = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: false, limit: '0x10' },
			credentials: ctx.credentials,
		});
		expect(list.error?.message).toBe('Limit must be a whole number of 1 or more, got "0x10"');
		const sent = await runWorkflow({
			parameters: send({ batchSize: '0x10' }),
			items: customers(1),
			credentials: ctx.credentials,
		});
		expect(sent.error?.message).toBe(
			'Batch Size must be a whole number from 1 to 1000, got "0x10"',
		);
		expect(ctx.sim.requests).toEqual([]);
	});

	test('base URLs with spaces around them are used as they are checked', async () => {
		const spaced = {
			...ctx.credentials,
			baseUrl: ` ${ctx.credentials.baseUrl} `,
			sendBaseUrl: ` ${ctx.credentials.sendBaseUrl}/ `,
		};
		const sent = await runWorkflow({
			parameters: send(),
			items: customers(1),
			credentials: spaced,
		});
		expect(sent.error).toBeUndefined();
		const listed = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: false, limit: 1 },
			credentials: spaced,
		});
		expect(listed.error).toBeUndefined();
		expect(ctx.sim.requests.map((r) => r.path)).toEqual(['/outgoings/send', '/sms']);
	});
});
