// Phone numbers as people write them (issues 38 and 46), through n8n's engine against the
// simulator: what each number became in the request the API received, or the error before any
// request, for SMS → Send, its dry run, SMS Messaging Approval and SMS → Get Delivery Status.
// Each country's rules are libphonenumber's.
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

	test('a trunk 0 written after the country code is dropped where the country drops it', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: phones('+44 07911 123456', '0044 07911 123456', '+39 06 1234 5678'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(numbersSent()).toEqual(['447911123456', '447911123456', '390612345678']);
	});

	test('Default Country Code reads national numbers by that country’s rules, with or without a trunk 0', async () => {
		const result = await runWorkflow({
			parameters: send({ defaultCountryCode: '={{ $json.country }}' }),
			items: [
				{ phone: '(212) 555-1234', country: '1' },
				{ phone: '(416) 555-1234', country: '1' },
				{ phone: '612 345 678', country: '34' },
				{ phone: '412 34 567', country: '+47' },
				{ phone: '7911 123456', country: '44' },
				{ phone: '06 1234 5678', country: '39' },
				{ phone: '011 44 7911 123456', country: 'US' },
				{ phone: '07911 123456', country: 'gb' },
			],
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(numbersSent()).toEqual([
			'12125551234', // US, not +212 (Morocco)
			'14165551234', // Canada shares 1 with the US
			'34612345678', // Spain, not +61 (Australia)
			'4741234567', // Norway, not +41 (Switzerland)
			'447911123456', // a UK number that lost its 0, not +7 (Russia)
			'390612345678', // Italy keeps its 0 abroad
			'447911123456', // 011 is the US's international prefix
			'447911123456',
		]);
	});

	test('with Default Country Code, digits that cannot be a national number already carry their country code', async () => {
		const result = await runWorkflow({
			parameters: send({ defaultCountryCode: '1' }),
			items: phones('447911123456', '254712345678'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(numbersSent()).toEqual(['447911123456', '254712345678']);
	});

	test('without Default Country Code an area code in parentheses is national: refused before any request', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: phones('+44 7700 900124', '(212) 555-1234'),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'Recipient Number has no country code: "(212) 555-1234" writes an area code in parentheses, as a national number',
		);
		expect(result.error?.context).toMatchObject({ itemIndex: 1 });
		expect(ctx.sim.requests).toEqual([]);
	});

	test('a number that cannot be possible in its country is refused by length, never by range', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: phones('+44 7911', '212 555 1234', '+44 7700 900123', '+44 7911 1234567'),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(
			result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.recipient]),
		).toEqual([
			[
				{ item: 0 },
				'Recipient Number is not a possible phone number: "+44 7911" has too many or too few digits for a number of +44',
			],
			[
				{ item: 1 },
				'Recipient Number is not a possible phone number: "212 555 1234" has too many or too few digits for a number of +212',
			],
			// The reserved drama range: no range check, it goes out.
			[{ item: 2 }, '447700900123'],
			[
				{ item: 3 },
				'Recipient Number is not a possible phone number: "+44 7911 1234567" has too many or too few digits for a number of +44',
			],
		]);
		expect(numbersSent()).toEqual(['447700900123']);
	});

	test('a number with an extension or letters is refused, naming the item and the field', async () => {
		const result = await runWorkflow({
			parameters: send(),
			items: phones('+44 7911 123456', '+44 7911 123456 ext. 12', '+1 800 FLOWERS'),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'Recipient Number is not a phone number: "+44 7911 123456 ext. 12"',
		);
		expect(result.error?.description).toContain('letters and extensions cannot receive an SMS');
		expect(result.error?.context).toMatchObject({ itemIndex: 1 });
		expect(ctx.sim.requests).toEqual([]);
	});

	test('with Continue On Fail a refused number is an error item and the others go out', async () => {
		const result = await runWorkflow({
			parameters: send({ defaultCountryCode: 'US' }),
			items: phones('(212) 555-1234', '+1 800 FLOWERS', '+44 7911', '011 44 7911 123456'),
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(
			result.items.map((item) => [item.pairedItem, item.json.error ?? item.json.recipient]),
		).toEqual([
			[{ item: 0 }, '12125551234'],
			[{ item: 1 }, 'Recipient Number is not a phone number: "+1 800 FLOWERS"'],
			[
				{ item: 2 },
				'Recipient Number is not a possible phone number: "+44 7911" has too many or too few digits for a number of +44',
			],
			[{ item: 3 }, '447911123456'],
		]);
		expect(numbersSent()).toEqual(['12125551234', '447911123456']);
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
			'Add the country code (for example +44 7700 900123 for the British 07700 900123), or set Default Country Code in Options (44 or GB for Britain, 1 or US for the United States).',
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
		for (const code of ['044', '999', 'XX']) {
			const result = await runWorkflow({
				parameters: send({ defaultCountryCode: code }),
				items: phones('07700 900123'),
				credentials: ctx.credentials,
			});
			expect(result.error?.message).toBe(`Default Country Code is not a country code: "${code}"`);
		}
		expect(ctx.sim.requests).toEqual([]);
	});

	test('Dry Run shows each number as it will be sent, and as written where reading changed it', async () => {
		const result = await runWorkflow({
			parameters: send({ dryRun: true, defaultCountryCode: '1' }),
			items: phones('+44 (0)7700 900123', '(212) 555-1234', '+39 06 6982 1234', '447700900123'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [item.json.number, item.json.numberAsWritten ?? 'unchanged']),
		).toEqual([
			['447700900123', '+44 (0)7700 900123'],
			['12125551234', '(212) 555-1234'],
			['390669821234', '+39 06 6982 1234'],
			['447700900123', 'unchanged'],
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

	test('a (0) or a trunk 0 after the country code is dropped by the country’s rules', async () => {
		const result = await runWorkflow({
			nodeType: APPROVAL_TYPE,
			parameters: approval,
			items: phones('+44 (0)7700 900123', '0039 06 6982 1234', '+44 07911 123456'),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(numbersSent()).toEqual(['447700900123', '390669821234', '447911123456']);
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
			'Add the country code (for example +44 7700 900123 for the British 07700 900123).',
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

	test('a number too short for its country is refused before any request', async () => {
		const result = await runWorkflow({
			parameters: getStatus,
			items: phones('+44 7911'),
			credentials: ctx.credentials,
		});
		expect(result.error?.message).toBe(
			'Recipient Number is not a possible phone number: "+44 7911" has too many or too few digits for a number of +44',
		);
		expect(ctx.sim.requests).toEqual([]);
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
