// SMS Messaging Approval with Response Type Free Text and Custom Form, through n8n-core's engine
// and WebhookContext against the simulator: the page's form, the node's own checks of every POST
// (a refused one records nothing and names the field), and the typed answer it resumes with.
import type { INodeParameters } from 'n8n-workflow';

import { answer, approvalRun, linksSent } from './helpers/approval';
import { EVERY_FIELD_TYPE } from './helpers/approval-fixtures';
import type { RunResult } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-forms-test-secret';

const ctx = useSimulator();

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');

const METERS = [
	{ phone: '254712345678', text: 'Meter M-1 <north>: reading due' },
	{ phone: '254799000111', text: 'Meter M-2 & south: reading due' },
];

const waitingRun = (extra: INodeParameters) => approvalRun(ctx.credentials, METERS, extra);

const post = (waiting: RunResult, body: Record<string, unknown>, recipient = 0) =>
	answer(waiting, { method: 'POST', link: linksSent(ctx.sim)[recipient], body });

describe('Free Text', () => {
	const freeText = { responseType: 'freeText' };

	test('the page is a form with one text box under the recipient’s own message', async () => {
		const waiting = await waitingRun(freeText);
		const { response, resumed } = await answer(waiting, {
			method: 'GET',
			link: linksSent(ctx.sim)[1],
		});
		expect(resumed).toBeUndefined();
		const html = response.body!;
		expect(html).toContain('Meter M-2 &amp; south: reading due');
		expect(html).toContain('<form method="post" enctype="multipart/form-data">');
		expect(html).toContain('<textarea id="field-0" name="field-0" required');
		expect(html).toContain('<button type="submit">Submit</button>');
		expect(html).not.toMatch(/<script/);
	});

	test('an empty answer is refused and named; nothing is recorded; then a text resumes with data.text', async () => {
		const waiting = await waitingRun(freeText);
		for (const body of [{}, { 'field-0': '   ' }, { 'field-0': ['a', 'b'] }]) {
			const refused = await post(waiting, body);
			expect(refused.resumed).toBeUndefined();
			expect(refused.response.statusCode).toBe(400);
			expect(refused.response.body).toMatch(/<p class="error"[^>]*>Your answer: /);
		}
		const { response, items } = await post(waiting, { 'field-0': 'Reading 4711, seal intact' }, 1);
		expect(response.statusCode).toBe(200);
		expect(response.body).toContain('Your answer was recorded');
		expect(items!.map((item) => item.json)).toEqual([
			{ data: { text: 'Reading 4711, seal intact' }, answeredBy: '254799000111' },
		]);
	});

	test('an answer posted urlencoded (a page served before the forms posted multipart) is recorded', async () => {
		const waiting = await waitingRun(freeText);
		const { response, items } = await answer(waiting, {
			method: 'POST',
			link: linksSent(ctx.sim)[0],
			body: { 'field-0': 'Reading 4711' },
			encoding: 'urlencoded',
		});
		expect(response.statusCode).toBe(200);
		expect(items!.map((item) => item.json.data)).toEqual([{ text: 'Reading 4711' }]);
	});

	test('Form Title, Form Description and Button Label', async () => {
		const waiting = await waitingRun({
			...freeText,
			options: {
				responseFormTitle: 'Field <report>',
				responseFormDescription: 'Tell us what you found',
				responseFormButtonLabel: 'Send report',
			},
		});
		const html = (await answer(waiting, { method: 'GET', link: linksSent(ctx.sim)[0] })).response
			.body!;
		expect(html).toContain('<h1>Field &lt;report&gt;</h1>');
		expect(html).toContain('Tell us what you found');
		expect(html).not.toContain('Meter M-1');
		expect(html).toContain('<button type="submit">Send report</button>');
	});
});

const GOOD = {
	'field-0': 'Ann <b>',
	'field-1': '',
	'field-2': 'ann@example.com',
	'field-3': '-12.5',
	'field-4': '2026-02-28',
	'field-5': 'intact',
	'field-6': ['leak', 'noise'],
};

describe('Custom Form', () => {
	const byFields = { responseType: 'customForm', formFields: { values: EVERY_FIELD_TYPE } };

	test('the page: every field type as plain HTML, required ones marked', async () => {
		const waiting = await waitingRun(byFields);
		const html = (await answer(waiting, { method: 'GET', link: linksSent(ctx.sim)[0] })).response
			.body!;
		expect(html).toContain('Meter M-1 &lt;north&gt;: reading due');
		expect(html).toContain('<input type="text" id="field-0" name="field-0" required');
		expect(html).toContain('placeholder="e.g. Ann"');
		expect(html).toContain('<textarea id="field-1" name="field-1"');
		expect(html).toContain('<input type="email" id="field-2"');
		expect(html).toContain('<input type="number" id="field-3"');
		expect(html).toContain('<input type="date" id="field-4"');
		expect(html).toContain('<select id="field-5" name="field-5" required');
		expect(html).toContain('<option value="broken">broken</option>');
		expect(html).toContain('<input type="checkbox" name="field-6" value="noise">noise</label>');
		expect(html).not.toMatch(/<script/);
	});

	test.each([
		['Name', { 'field-0': ' ' }, 'This field is required.'],
		['E-mail', { 'field-2': 'ann.example.com' }, 'Enter an e-mail address.'],
		['Reading', { 'field-3': '12,5' }, 'Enter a number.'],
		['Reading', { 'field-3': 'Infinity' }, 'Enter a number.'],
		['Next visit', { 'field-4': '2026-02-30' }, 'Enter a date (YYYY-MM-DD).'],
		['Next visit', { 'field-4': '28.02.2026' }, 'Enter a date (YYYY-MM-DD).'],
		['Seal', { 'field-5': 'gone' }, 'Choose an option of the list.'],
		['Seal', { 'field-5': ['intact', 'broken'] }, 'Give one value.'],
		['Checks', { 'field-6': ['leak', 'other'] }, 'Choose options of the list, each once.'],
	])(
		'%s wrong (%j): refused and named, nothing recorded, the wait goes on',
		async (label, wrong, problem) => {
			const waiting = await waitingRun(byFields);
			const refused = await post(waiting, { ...GOOD, ...wrong });
			expect(refused.resumed).toBeUndefined();
			expect(refused.response.statusCode).toBe(400);
			const html = refused.response.body!;
			expect(html).toContain(`${label}: ${problem}`);
			expect(html.match(/<p class="error" id=/g)).toHaveLength(1);
			// What was given comes back, escaped.
			if (label !== 'Name') expect(html).toContain('value="Ann &lt;b&gt;"');
			const { items } = await post(waiting, GOOD);
			expect(items).toHaveLength(1);
		},
	);

	test('a good answer resumes with data keyed by label, values typed', async () => {
		const waiting = await waitingRun(byFields);
		const { response, items } = await post(waiting, GOOD, 1);
		expect(response.statusCode).toBe(200);
		expect(items!.map((item) => item.json)).toEqual([
			{
				data: {
					Name: 'Ann <b>',
					Notes: '',
					'E-mail': 'ann@example.com',
					Reading: -12.5,
					'Next visit': '2026-02-28',
					Seal: 'intact',
					Checks: ['leak', 'noise'],
				},
				answeredBy: '254799000111',
			},
		]);
	});

	test('one option of a multiselect comes out as a list; optional fields left empty', async () => {
		const waiting = await waitingRun({
			responseType: 'customForm',
			defineForm: 'json',
			jsonOutput: JSON.stringify(EVERY_FIELD_TYPE.slice(3)),
		});
		const { items } = await post(waiting, {
			'field-0': '7',
			'field-1': '2026-01-01',
			'field-2': 'broken',
			'field-3': 'none',
		});
		expect(items![0].json.data).toEqual({
			Reading: 7,
			'Next visit': '2026-01-01',
			Seal: 'broken',
			Checks: ['none'],
		});
	});

	test('a field labelled __proto__ keeps its answer as a key of its own', async () => {
		const waiting = await waitingRun({
			responseType: 'customForm',
			defineForm: 'json',
			jsonOutput: JSON.stringify([{ fieldLabel: '__proto__', fieldType: 'text' }]),
		});
		const { items } = await post(waiting, { 'field-0': 'polluted?' });
		const data = items![0].json.data as object;
		expect(Object.keys(data)).toEqual(['__proto__']);
		expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toBe('polluted?');
		expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
	});

	test.each([
		['no fields', { formFields: { values: [] } }, /Form Fields: the form has no fields/],
		[
			'a field without label',
			{ defineForm: 'json', jsonOutput: '[{"fieldType":"text"}]' },
			/field 1 has no Field Label/,
		],
		[
			'two fields with one label',
			{ formFields: { values: [{ fieldLabel: 'A' }, { fieldLabel: 'A', fieldType: 'number' }] } },
			/two fields are labelled "A"/,
		],
		[
			'a dropdown without options',
			{ formFields: { values: [{ fieldLabel: 'A', fieldType: 'dropdown' }] } },
			/a dropdown needs its options/,
		],
		[
			'JSON that does not parse',
			{ defineForm: 'json', jsonOutput: '[{' },
			/Form Fields JSON is not valid JSON/,
		],
		[
			'an unknown field type',
			{ defineForm: 'json', jsonOutput: '[{"fieldLabel":"A","fieldType":"signature"}]' },
			/field 1 \(A\): Element Type must be one of/,
		],
	])('%s: refused before anything is sent', async (_, extra, message) => {
		const result = await waitingRun({ responseType: 'customForm', ...extra });
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toContain('Nothing was sent.');
		expect(sendRequests()).toHaveLength(0);
		expect(result.run.waitTill).toBeUndefined();
	});
});
