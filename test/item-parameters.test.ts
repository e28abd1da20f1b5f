// SMS → Send reads plain `{{ $json.field }}` parts of its fields from the item itself, for speed
// (BENCHMARKS.md). Every form below is sent twice through n8n's engine with Dry Run (nothing goes
// out; each item's checked `message` comes out): once as written, and once wrapped in
// `$evaluateExpression`, which makes n8n evaluate the very same text itself. Both runs must give
// the same items, and the expected text is written out so that the table also says what n8n does.
import { Expression, type INodeExecutionData } from 'n8n-workflow';

import { runWorkflow } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator();

const items = [
	{
		phone: '254712345678',
		name: 'Amina',
		n: 7,
		price: 1.5,
		big: 1e21,
		negZero: -0,
		nothing: null,
		yes: true,
		no: false,
		empty: '',
		customer: { first: 'Chen', address: { city: 'Nairobi' } },
		'first name': 'Amina W.',
		'a.b': 'dotted key',
		tags: ['vip', 'new'],
		text: 'Line 1\nLine 2',
		braces: '{{ $json.name }}',
	},
	{
		phone: '254712345679',
		name: 'Brian',
		n: 0,
		price: -2.25,
		big: 123456789012345680000,
		negZero: 0,
		nothing: null,
		yes: false,
		no: true,
		empty: '',
		customer: { first: 'Dana', address: {} },
		'first name': 'Brian K.',
		'a.b': 'other',
		tags: [],
		text: '',
		braces: '}}',
	},
];

/** What the node sends for an item, or that it refused it (the error's text is compared apart). */
const REFUSED = { refused: true } as const;
type Outcome = string | typeof REFUSED;

/**
 * [form of the Message field, what goes out for each item, for how many items n8n evaluates it]
 * 0: the node reads the form itself for both items; 2: it leaves the form to n8n; 1: it reads
 * item 1 and leaves item 2, whose value is missing or not text, to n8n.
 */
const forms: Array<[string, [Outcome, Outcome], 0 | 1 | 2]> = [
	// Plain reads: the node's own.
	['={{ $json.name }}', ['Amina', 'Brian'], 0],
	[
		'=Hi {{ $json.name }}, your order has shipped.',
		['Hi Amina, your order has shipped.', 'Hi Brian, your order has shipped.'],
		0,
	],
	['={{$json.name}}', ['Amina', 'Brian'], 0],
	['={{ \t$json.name\n }}', ['Amina', 'Brian'], 0],
	['= {{ $json.name }} ', [' Amina ', ' Brian '], 0],
	['={{ $json.name }}{{ $json.n }}', ['Amina7', 'Brian0'], 0],
	[
		'={{ $json.customer.first }} in {{ $json.customer.address.city }}',
		['Chen in Nairobi', 'Dana in '],
		1,
	],
	['={{ $json["first name"] }}', ['Amina W.', 'Brian K.'], 0],
	["={{ $json['a.b'] }}", ['dotted key', 'other'], 0],
	['={{ $json.customer["address"].city }}', ['Nairobi', REFUSED], 1],
	['={{ $json.tags["0"] }}', ['vip', REFUSED], 1],
	['={{ $json.text }}', ['Line 1\nLine 2', REFUSED], 0],
	['={{ $json.braces }}', ['{{ $json.name }}', '}}'], 0],
	['=Habari {{ $json.name }} 👋 {ok}', ['Habari Amina 👋 {ok}', 'Habari Brian 👋 {ok}'], 0],
	['=Hello', ['Hello', 'Hello'], 0],
	['=[{{ $json.empty }}]', ['[]', '[]'], 0],
	['={{ $json.empty }}', [REFUSED, REFUSED], 0],
	// Numbers: a whole-field number stays a number until the node makes it text.
	['={{ $json.n }}', ['7', '0'], 0],
	['=Total {{ $json.price }}', ['Total 1.5', 'Total -2.25'], 0],
	['={{ $json.big }}', ['1e+21', '123456789012345680000'], 0],
	['=Big {{ $json.big }}', ['Big 1e+21', 'Big 123456789012345680000'], 0],
	['={{ $json.negZero }}', ['0', '0'], 0],
	['=Zero {{ $json.negZero }}', ['Zero 0', 'Zero 0'], 0],
	// The item does hold -0 (and n8n keeps it): 1 / -0 is -Infinity.
	['=Sign {{ 1 / $json.negZero }}', ['Sign -Infinity', 'Sign Infinity'], 2],
	// Escapes: n8n's own rules, left to n8n.
	[
		'=Use \\{{ $json.name }} literally',
		['Use \\{{ $json.name }} literally', 'Use \\{{ $json.name }} literally'],
		2,
	],
	['=Use \\\\{{ $json.name }} once', ['Use \\Amina once', 'Use \\Brian once'], 2],
	['=C:\\temp {{ $json.name }}', ['C:\\temp Amina', 'C:\\temp Brian'], 2],
	['={{ $json["first\\u0020name"] }}', ['Amina W.', 'Brian K.'], 2],
	// Values that are not text or numbers: left to n8n for that item.
	['={{ $json.nothing }}', [REFUSED, REFUSED], 2],
	['=Value: {{ $json.nothing }}.', ['Value: .', 'Value: .'], 2],
	['={{ $json.yes }}', [REFUSED, REFUSED], 2],
	['=Flags {{ $json.yes }} {{ $json.no }}', ['Flags true false', 'Flags false true'], 2],
	['={{ $json.customer }}', [REFUSED, REFUSED], 2],
	['=Customer {{ $json.customer }}', ['Customer [object Object]', 'Customer [object Object]'], 2],
	['=Tags {{ $json.tags }}', ['Tags vip,new', 'Tags '], 2],
	['={{ $json.missing }}', [REFUSED, REFUSED], 2],
	['=Hi {{ $json.missing }}!', ['Hi !', 'Hi !'], 2],
	['={{ $json.customer.missing.deeper }}', [REFUSED, REFUSED], 2],
	// Other nodes, other items, code: n8n's.
	["={{ $('Items').item.json.name }}", ['Amina', 'Brian'], 2],
	['={{ $item(0).$json.name }}', ['Amina', 'Amina'], 2],
	['={{ $json.name.toUpperCase() }}', ['AMINA', 'BRIAN'], 2],
	['={{ $json.tags[0] }}', ['vip', REFUSED], 2],
	[
		'=Unclosed {{ $json.name }} and {{ $json.n',
		['Unclosed Amina and 7', 'Unclosed Brian and 0'],
		2,
	],
	['={{ $json.__proto__ }}', [REFUSED, REFUSED], 2],
	['=See the site.constructor page, {{ $json.name }}', [REFUSED, REFUSED], 2],
];

/** `$evaluateExpression` runs n8n's own evaluation of a text; the text is URI-encoded so that no
 * `{{`, `}}` or quote of the form can end the wrapper. */
const evaluatedByN8n = (form: string) =>
	`={{ $evaluateExpression(decodeURIComponent("${encodeURIComponent(form.slice(1))}")) }}`;

const outcome = (item: INodeExecutionData): Outcome =>
	item.json.dryRun === true ? (item.json.message as string) : REFUSED;

/** Runs Send with Dry Run and counts how often n8n evaluated the Message field itself. */
async function dryRun(message: string, fromItemsNode: boolean) {
	// jest.spyOn calls through to n8n's own method; it only records the calls.
	const spy = jest.spyOn(Expression.prototype, 'resolveSimpleParameterValue');
	try {
		const result = await runWorkflow({
			parameters: {
				resource: 'sms',
				operation: 'send',
				senderId: 'ACME',
				number: '={{ $json.phone }}',
				message,
				options: { dryRun: true },
			},
			items,
			// Items given straight to Send keep -0 (JSON, as the Items node passes them, has no -0);
			// `$('Items')` needs the Items node to have run.
			inputDirect: !fromItemsNode,
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		return {
			result,
			evaluatedByN8n: spy.mock.calls.filter(([value]) => value === message).length,
		};
	} finally {
		spy.mockRestore();
	}
}

describe('SMS → Send reads `{{ $json.x }}` exactly as n8n evaluates it', () => {
	test.each(forms)('%j', async (form, expected, leftToN8n) => {
		const fromItemsNode = form.includes("$('Items')");
		const direct = await dryRun(form, fromItemsNode);
		const evaluated = await dryRun(evaluatedByN8n(form), fromItemsNode);

		expect(direct.result.error).toBeUndefined();
		expect(evaluated.result.error).toBeUndefined();
		expect(direct.result.items.map(outcome)).toEqual(expected);
		expect(evaluated.result.items.map(outcome)).toEqual(expected);
		// The same items, refusals and their texts included.
		expect(direct.result.items).toEqual(evaluated.result.items);
		expect(direct.evaluatedByN8n).toBe(leftToN8n);
		expect(ctx.sim.requests).toEqual([]);
	});
});

test('Recipient Number, Message and Reference read by the node reach the API as n8n evaluates them', async () => {
	const fields = {
		number: '={{ $json.phone }}',
		message: '=Hi {{ $json["first name"] }}, you have {{ $json.n }} new\nmessages',
		thirdPartyRef: '={{ $json.customer.address.city }}',
	};
	const sent = async (parameters: Record<string, string>) => {
		ctx.sim.reset();
		const result = await runWorkflow({
			parameters: { resource: 'sms', operation: 'send', senderId: 'ACME', ...parameters },
			items: [{ ...items[0], phone: 254712345678 }, items[1]],
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		return ctx.sim.requests.map((request) => request.body);
	};
	const direct = await sent(fields);
	const evaluated = await sent(
		Object.fromEntries(Object.entries(fields).map(([name, form]) => [name, evaluatedByN8n(form)])),
	);
	expect(direct).toEqual(evaluated);
	expect(direct).toEqual([
		{
			senderId: 'ACME',
			envelopes: [
				{
					number: '254712345678',
					message: 'Hi Amina W., you have 7 new\nmessages',
					thirdPartyRef: 'Nairobi',
				},
				// Item 2 has no city: no reference, read by n8n.
				{ number: '254712345679', message: 'Hi Brian K., you have 0 new\nmessages' },
			],
		},
	]);
});
