// Phone numbers as people write them (issue 38), through n8n's engine against the simulator:
// what each number became in the request the API received, or the error before any request, for
// SMS → Send, its dry run, SMS Messaging Approval and SMS → Get Delivery Status.
import type { INodeParameters } from 'n8n-workflow';

import { APPROVAL_TYPE } from './helpers/approval';
import { runWorkflow } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

// n8n-core signs the approval's resume URLs with this secret.
process.env.N8N_HMAC_SIGNATURE_SECRET = 'phone-numbers-test-signature-secret';

const ctx = useSimulator({ smsRecords: 0 });

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');
const numbersSent = () =>
	sendRequests().flatMap((r) =>
		(r.body.envelopes as Array<{ number: string }>).map((e) => e.number),
	);

const send = (options: INodeParameters = {}): INodeParameters => ({
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: 'Your order has shipped.',
	options,
});

const phones = (...numbers: string[]) => numbers.map((phone) => ({ phone }));

const NATIONAL_ERROR =
	'Recipient Number has no country code: "07700 900123" starts with the national trunk prefix 0';

describe('SMS → Send reads numbers as people write them', () => {
	test('a (0) after the country code is dropped; a 0 written without parentheses is kept', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: phones(
				'+44 (0)7700 900123',
				'0044 (0) 7700-900123',
				'+44 ( 0 ) 20 7946 0000',
				'+39 06 6982 1234',
				'0039 06 6982 1234',
				'+254 712 345 678',
				'00254 799 000 111',
			),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		const expected = [
			'447700900123',
			'447700900123',
			'442079460000',
			'390669821234',
			'390669821234',
			'254712345678',
			'254799000111',
		];
		expect(numbersSent()).toEqual(expected);
		expect(result.items.map((item) => item.json.recipient)).toEqual(expected);
	});

	test('Default Country Code takes the place of a national trunk 0; + and 00 keep their own', async () => {
		const result = await runWorkflow({
			parameters: send({ defaultCountryCode: '44' }),
			items: phones('07700 900123', '(020) 7946 0000', '+254 712 345 678', '0039 06 6982 1234'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(numbersSent()).toEqual(['447700900123', '442079460000', '254712345678', '390669821234']);
	});

	test('Default Country Code is read per item, so a list can name each number’s country', async () => {
		const result = await runWorkflow({
			parameters: send({ defaultCountryCode: '={{ $json.country }}' }),
			items: [
				{ phone: '07700 900123', country: '44' },
				{ phone: '030 1234567', country: '+49' },
			],
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(numbersSent()).toEqual(['447700900123', '49301234567']);
	});

	test('a national number without Default Country Code stops the run before any request', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: phones('+44 7700 900124', '07700 900123'),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(NATIONAL_ERROR);
		expect(result.error?.description).toBe(
			'Add the country code (for example +44 7700 900123 for the British 07700 900123), or set Default Country Code in Options (44 for Britain).',
		);
		expect(result.error?.context).toMatchObject({ itemIndex: 1 });
		expect(result.items).toEqual([]);
		expect(ctx.sim.requests).toEqual([]);
	});

	test('with Continue On Fail the national number is an error item and the others are sent', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: phones('+44 (0)7700 900124', '07700 900123', '254712345678'),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(
			result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.status]),
		).toEqual([
			[{ item: 0 }, 'SENT'],
			[{ item: 1 }, NATIONAL_ERROR],
			[{ item: 2 }, 'SENT'],
		]);
		expect(numbersSent()).toEqual(['447700900124', '254712345678']);
	});

	test('no country code starts with 0: "+0…" and "000…" are not phone numbers', async () => {
		const result = await runWorkflow({
			parameters: send({ defaultCountryCode: '44' }),
			items: phones('+07700 900123', '000 7700 900123'),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(result.items.map((item) => item.json.error)).toEqual([
			'Recipient Number is not a phone number: "+07700 900123"',
			'Recipient Number is not a phone number: "000 7700 900123"',
		]);
		expect(ctx.sim.requests).toEqual([]);
	});

	test('a Default Country Code that is not one is refused before any request', async () => {
		const result = await runWorkflow({
			parameters: send({ defaultCountryCode: '044' }),
			items: phones('07700 900123'),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe('Default Country Code is not a country code: "044"');
		expect(ctx.sim.requests).toEqual([]);
	});

	test('Dry Run shows each number as it will be sent', async () => {
		const result = await runWorkflow({
			parameters: send({ dryRun: true, defaultCountryCode: '44' }),
			items: phones('+44 (0)7700 900123', '07700 900123', '+39 06 6982 1234'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.number)).toEqual([
			'447700900123',
			'447700900123',
			'390669821234',
		]);
		expect(ctx.sim.requests).toEqual([]);
	});
});

describe('SMS Messaging Approval reads its recipients as Send does', () => {
	const approval = {
		operation: 'sendAndWait',
		senderId: 'ACME',
		number: '={{ $json.phone }}',
		message: 'Refund 120 EUR?',
	};

	test('a (0) after the country code is dropped', async () => {
		const result = await runWorkflow({
			nodeType: APPROVAL_TYPE,
			parameters: approval,
			items: phones('+44 (0)7700 900123', '0039 06 6982 1234'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(numbersSent()).toEqual(['447700900123', '390669821234']);
		expect(result.run.waitTill).toBeDefined();
	});

	test('a national number is refused before any request, naming the item', async () => {
		const result = await runWorkflow({
			nodeType: APPROVAL_TYPE,
			parameters: approval,
			items: phones('+44 7700 900124', '07700 900123'),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(NATIONAL_ERROR);
		// The approval has no Default Country Code: the fix is the country code alone.
		expect(result.error?.description).toBe(
			'Add the country code, for example +44 7700 900123 for the British 07700 900123.',
		);
		expect(result.error?.context).toMatchObject({ itemIndex: 1 });
		expect(ctx.sim.requests).toEqual([]);
		expect(result.run.waitTill).toBeUndefined();
	});
});

describe('SMS → Get Delivery Status reads its recipient as Send does', () => {
	const getStatus = {
		resource: 'sms',
		operation: 'getStatus',
		recipient: '={{ $json.phone }}',
		message: 'Your order has shipped.',
		messageId: '',
	};

	test('"+44 (0)7700 900123" finds the message sent to 447700900123', async () => {
		const record = ctx.sim.addSms({
			recipient: '447700900123',
			content: 'Your order has shipped.',
			status: 'DELIVERED',
		});
		const result = await runWorkflow({
			parameters: getStatus,
			items: phones('+44 (0)7700 900123'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([record]);
	});

	test('a national number is refused before any request, naming the item', async () => {
		const result = await runWorkflow({
			parameters: getStatus,
			items: phones('+44 7700 900124', '07700 900123'),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(NATIONAL_ERROR);
		expect(result.error?.context).toMatchObject({ itemIndex: 1 });
		expect(ctx.sim.requests).toEqual([]);
	});
});
