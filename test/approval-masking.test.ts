// The provider's SMS list stores each SMS as sent, approval links included: Get Many, Get Delivery
// Status and the trigger output those records with the link's code masked, so that a workflow that
// forwards `content` publishes no link that answers. Through n8n-core's engine and the simulator.
import { answer, APPROVAL_TYPE } from './helpers/approval';
import { runWorkflow } from './helpers/n8n';
import { activateTrigger, TRIGGER_TYPE } from './helpers/poll';
import { useSimulator } from './helpers/simulator';

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-masking-test-secret';

const ctx = useSimulator({ smsRecords: 0 });

/** Runs an approval of one item, one SMS to 254712345678. */
const runApproval = (continueOnFail?: boolean) =>
	runWorkflow({
		nodeType: APPROVAL_TYPE,
		parameters: {
			operation: 'sendAndWait',
			senderId: 'ACME',
			number: '254712345678',
			message: 'Refund 120 EUR to Alice?',
		},
		items: [{}],
		credentials: ctx.credentials,
		continueOnFail,
	});

/** The SMS text of the approval's send request, as the provider received it. */
function sentMessage(): string {
	const [request] = ctx.sim.requests.filter((r) => r.host === 'send');
	return (request.body as { envelopes: Array<{ message: string }> }).envelopes[0].message;
}

/** Sends an approval; gives the waiting run and the SMS text as the provider stores it. */
async function sendApproval() {
	const waiting = await runApproval();
	expect(waiting.error).toBeUndefined();
	return { waiting, message: sentMessage() };
}

/** The content with the code masked, the rest of the link as sent. */
function expectMasked(content: unknown, message: string) {
	const link = new URL(message.split('\n')[1]);
	const code = link.searchParams.get('k')!.split('.')[1];
	expect(content).toBe(message.replace(code, '[code hidden]'));
	expect(content).not.toContain(code);
}

test('Get Many, Get Delivery Status and the trigger mask the code; the link itself still answers', async () => {
	const { waiting, message } = await sendApproval();

	const many = await runWorkflow({
		parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
		credentials: ctx.credentials,
	});
	expect(many.items).toHaveLength(1);
	expectMasked(many.items[0].json.content, message);

	// Get Delivery Status finds the record by the text as sent, link included.
	const status = await runWorkflow({
		parameters: { resource: 'sms', operation: 'getStatus' },
		items: [{ recipient: '254712345678', message }],
		credentials: ctx.credentials,
	});
	expect(status.error).toBeUndefined();
	expectMasked(status.items[0].json.content, message);

	const manual = await runWorkflow({
		nodeType: TRIGGER_TYPE,
		parameters: { statuses: ['SENT'] },
		credentials: ctx.credentials,
		inputDirect: true,
	});
	expectMasked(manual.items[0].json.content, message);

	const trigger = await activateTrigger({
		parameters: { statuses: ['DELIVERED'] },
		credentials: ctx.credentials,
	});
	const [record] = ctx.sim.sms;
	ctx.sim.setSmsStatus(record.id, 'DELIVERED');
	const polled = await trigger.poll();
	expect(polled.items).toHaveLength(1);
	expectMasked(polled.items![0].json.content, message);

	// Masking is on output only: the recipient's own link answers.
	const { items } = await answer(waiting, {
		method: 'POST',
		link: message.split('\n')[1],
		body: { approved: 'true' },
	});
	expect(items!.map((item) => item.json.data)).toEqual([{ approved: true }]);
});

/** The link's query as each encoding a stored text may carry it in writes it. */
const ENCODINGS: Array<[string, (message: string) => string]> = [
	['plain', (message) => message],
	['HTML-escaped', (message) => message.replace(/&/g, '&amp;')],
	[
		'HTML-escaped to the last sign',
		(message) =>
			message
				.replace(/&/g, '&#38;')
				.replace(/\?/g, '&#63;')
				.replace(/=/g, '&#61;')
				.replace(/\./g, '&#x2E;'),
	],
	[
		'percent-encoded (a link in a tracking link)',
		(message) => `Track: https://t.example/r?u=${encodeURIComponent(message.split('\n')[1])}`,
	],
	[
		'percent-encoded twice',
		(message) =>
			`Track: https://t.example/r?u=${encodeURIComponent(encodeURIComponent(message.split('\n')[1]))}`,
	],
	[
		'JSON-escaped (Go, Java: \\u0026, \\u003d)',
		(message) =>
			JSON.stringify(message)
				.replace(/&/g, '\\u0026')
				.replace(/=/g, '\\u003d')
				.replace(/\?/g, '\\u003f'),
	],
	['JSON-escaped, once more as text', (message) => JSON.stringify(JSON.stringify(message))],
];

test.each(ENCODINGS)(
	'the code is masked in a stored text written %s, in content and in any other field of the record',
	async (_, encode) => {
		const { message } = await sendApproval();
		const code = new URL(message.split('\n')[1]).searchParams.get('k')!.split('.')[1];
		ctx.sim.sms.length = 0;
		const record = ctx.sim.addSms({ recipient: '254712345678', content: encode(message) });
		Object.assign(record, { message: encode(message), details: { text: [encode(message)] } });
		expect(JSON.stringify(record)).toContain(code);

		const many = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
			credentials: ctx.credentials,
		});
		const manual = await runWorkflow({
			nodeType: TRIGGER_TYPE,
			parameters: { statuses: ['SENT'] },
			credentials: ctx.credentials,
			inputDirect: true,
		});
		const status = await runWorkflow({
			parameters: { resource: 'sms', operation: 'getStatus' },
			items: [{ recipient: '254712345678', message: encode(message) }],
			credentials: ctx.credentials,
		});
		for (const { items } of [many, manual, status]) {
			expect(items).toHaveLength(1);
			const json = items[0].json as { content: string; message: string };
			expect(JSON.stringify(json)).not.toContain(code);
			expect(json.content).toContain('[code hidden]');
			expect(json.content).toBe(encode(message).replace(code, '[code hidden]'));
			expect(json.message).toBe(json.content);
		}
	},
);

test('an approval whose send has an unknown outcome fails, and its saved execution quotes the envelopes with the codes masked', async () => {
	// The send is processed, the connection lost; the SMS list cannot say whether it went out.
	ctx.sim.inject({ host: 'send', network: 'reset', process: true });
	ctx.sim.inject({ host: 'api', path: '/sms', status: 500, count: Infinity });
	const failed = await runApproval(false);
	expect(failed.error?.message).toBeDefined();
	const code = new URL(sentMessage().split('\n')[1]).searchParams.get('k')!.split('.')[1];
	expect(failed.error?.description).toContain('Envelopes: ');
	expect(failed.error?.description).toContain('[code hidden]');
	expect(failed.serialized).not.toContain(code);
});

/**
 * Encodings a stored text may carry a link in, each a whole encoder of text, as systems write
 * them: the masking must not know any of them (approvalLink.ts masks by what a code is).
 */
const ENCODERS: Record<string, (text: string) => string> = {
	plain: (text) => text,
	'HTML, named': (text) =>
		text.replace(
			/[&<>"']/g,
			(c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`,
		),
	'HTML, HTML5 names': (text) =>
		text.replace(
			/[?=.&:/]/g,
			(c) =>
				`&${{ '?': 'quest', '=': 'equals', '.': 'period', '&': 'amp', ':': 'colon', '/': 'sol' }[c]};`,
		),
	'HTML, decimal with zeros': (text) =>
		text.replace(/[^A-Za-z0-9 \n_-]/g, (c) => `&#${String(c.charCodeAt(0)).padStart(4, '0')};`),
	'HTML, hex upper case': (text) =>
		text.replace(/[^A-Za-z0-9 \n_-]/g, (c) => `&#X${c.charCodeAt(0).toString(16).toUpperCase()};`),
	'HTML, hex without a semicolon': (text) =>
		text.replace(/[?=.&]/g, (c) => `&#x${c.charCodeAt(0).toString(16)} `.trim()),
	'percent, every sign': (text) =>
		text.replace(/[^A-Za-z0-9_-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`),
	encodeURIComponent: encodeURIComponent,
	'form-urlencoded': (text) => new URLSearchParams({ u: text }).toString(),
	'JSON (\\u escapes)': (text) =>
		JSON.stringify(text).replace(
			/[?=.&]/g,
			(c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
		),
	JSON: (text) => JSON.stringify(text),
	'JavaScript \\x': (text) => text.replace(/[?=.&]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`),
	'quoted-printable': (text) =>
		text.replace(/[=?]/g, (c) => `=${c.charCodeAt(0).toString(16).toUpperCase()}`),
	'XML CDATA': (text) => `<![CDATA[${text}]]>`,
	'Markdown link': (text) => `[open](${text})`,
	'C octal': (text) => text.replace(/[?=.&]/g, (c) => `\\${c.charCodeAt(0).toString(8)}`),
	'CSS escapes': (text) => text.replace(/[?=.&]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `),
};

test('a code is masked in every encoding and every nesting of two of them; nothing else changes', async () => {
	const { message } = await sendApproval();
	const code = new URL(message.split('\n')[1]).searchParams.get('k')!.split('.')[1];
	const names = Object.keys(ENCODERS);
	const texts = names.flatMap((outer) =>
		names.map((inner) => ({
			how: `${inner}, then ${outer}`,
			text: ENCODERS[outer](ENCODERS[inner](message)),
		})),
	);
	// The issue's own example, and three encodings nested.
	texts.push({ how: 'the issue', text: `k&#061;0&#046;${code}` });
	texts.push({
		how: 'JSON, percent, HTML',
		text: ENCODERS['HTML, decimal with zeros'](encodeURIComponent(JSON.stringify(message))),
	});
	// Not codes: no link parameter, no recipient's position, a parameter of another name, a word
	// that ends in k.
	const others = [`Order ${code} shipped`, `?k=${code}&x`, `?key=0.${code}&x`, `Track: 12 ${code}`];
	ctx.sim.sms.length = 0;
	const record = ctx.sim.addSms({ recipient: '254712345678', content: texts[0].text });
	Object.assign(record, { encoded: texts.map(({ text }) => text), others });
	for (const { how, text } of texts) expect([how, text.includes(code)]).toEqual([how, true]);

	const many = await runWorkflow({
		parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
		credentials: ctx.credentials,
	});
	const json = many.items[0].json as { encoded: string[]; others: string[] };
	json.encoded.forEach((text, at) => {
		const { how } = texts[at];
		expect([how, text]).toEqual([how, texts[at].text.split(code).join('[code hidden]')]);
	});
	expect(json.others).toEqual(others);
});

/** A text as a gateway reports a Unicode SMS: UCS-2, big-endian, in upper-case hex. */
const ucs2Hex = (text: string) =>
	Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase();

/** Get Many's output of one record per text, in order. */
async function listed(texts: string[]): Promise<string[]> {
	ctx.sim.sms.length = 0;
	for (const text of texts) ctx.sim.addSms({ recipient: '254712345678', content: text });
	const many = await runWorkflow({
		parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
		credentials: ctx.credentials,
	});
	const contents = many.items.map((item) => item.json.content as string);
	// The list gives newest first; the texts went in oldest first.
	return contents.reverse();
}

test('a code is masked however a gateway reports the text, and only the code: base64 (wrapped at 76), a base64url parameter, UCS-2 hex, split, its own characters escaped, cut short; ordinary texts unchanged', async () => {
	const { message } = await sendApproval();
	const link = message.split('\n')[1];
	const code = new URL(link).searchParams.get('k')!.split('.')[1];
	const hide = (text: string) => text.replace(code, '[code hidden]');
	const at = message.indexOf(code);
	/** The message with its code written `written`, and what the list must show for it. */
	const rewritten = (written: string): [string, string] => [
		message.replace(code, written),
		message.replace(code, '[code hidden]'),
	];
	const base64 = (text: string) => Buffer.from(text).toString('base64');
	const cases: Array<[string, string, string]> = [
		[
			'base64 of the whole text, wrapped at 76',
			base64(message).replace(/.{76}/g, '$&\r\n'),
			base64(hide(message)).replace(/.{76}/g, '$&\r\n'),
		],
		[
			'a tracking link carrying the link as base64url',
			`Track: https://t.example/r?u=${Buffer.from(link).toString('base64url')}`,
			`Track: https://t.example/r?u=${Buffer.from(hide(link)).toString('base64url')}`,
		],
		['UCS-2 hex, as gateways report a Unicode text', ucs2Hex(message), ucs2Hex(hide(message))],
		['split by a line break', ...rewritten(`${code.slice(0, 9)}\n${code.slice(9)}`)],
		['split by a space', ...rewritten(`${code.slice(0, 15)} ${code.slice(15)}`)],
		['split by U+200B between its characters', ...rewritten(code.split('').join('\u200b'))],
		[
			'its own characters percent-encoded',
			...rewritten([...code].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')),
		],
		[
			'its own characters as HTML references',
			...rewritten([...code].map((c) => `&#${c.charCodeAt(0)};`).join('')),
		],
		[
			'cut short after 6 of its characters',
			message.slice(0, at + 6),
			`${message.slice(0, at)}[code hidden]`,
		],
	];
	// Texts a list shows every day: names, numbers, links without a code, tokens, encoded texts.
	const ordinary = [
		'Hi Zoë, your parcel P-77 arrives Tuesday 10:00–12:00. Reply STOP to opt out.',
		"I'll be back, 5 minutes to the station now",
		'Tank=0.5 full; k=3.5 for the spring',
		'Your code is 482913. Ref 8f14e45fceea167a5a36dedd4bea2543',
		'https://shop.example/item?id=12.5&ref=abc&key=0.AbCdEfGhIjKlMnOpQrSt_-',
		`Order ${code} shipped, token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0`,
		base64('Your appointment is confirmed for 12 March at 09:30.'),
		ucs2Hex('Привет, Анна! Ваш заказ 12345 готов 😀'),
		'Привет, Анна! Ваш заказ 12345 готов 😀',
	];
	const shown = await listed([...cases.map(([, text]) => text), ...ordinary]);
	cases.forEach(([how, , expected], index) => {
		expect([how, shown[index]]).toEqual([how, expected]);
	});
	expect(shown.slice(cases.length)).toEqual(ordinary);
});
