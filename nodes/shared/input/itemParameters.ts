// Reads a parameter of many items at once where its expression only names fields of the item.
import { isSafeObjectProperty, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

/**
 * One `{{ $json.a.b }}` / `{{ $json["a b"] }}` part: dotted names and quoted keys (no backslash,
 * no line break in a key), with only spaces, tabs or newlines around inside the braces. Anything
 * else (calls, numeric indexes, `$('Node')`, `$item(0)`, operators) is left to n8n.
 */
const JSON_PATH =
	/^\{\{[ \t\n]*\$json((?:\.[A-Za-z_$][\w$]*|\[(?:"[^"\n\r\u2028\u2029]*"|'[^'\n\r\u2028\u2029]*')\])+)[ \t\n]*\}\}$/;
const SEGMENT = /\.([A-Za-z_$][\w$]*)|\[(?:"([^"]*)"|'([^']*)')\]/g;
const TEMPLATE_PART = /\{\{[\s\S]*?\}\}/g;

/** A read of the item's fields: the value, or undefined to leave this item to n8n. */
type Reader = (json: IDataObject) => { value: string | number } | undefined;

/** A string or a finite number: the values whose text is the same however n8n joins them. */
function plain(value: unknown): value is string | number {
	return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function pathReader(part: string): ((json: IDataObject) => unknown) | undefined {
	const match = JSON_PATH.exec(part);
	if (!match) return undefined;
	const keys = [...match[1].matchAll(SEGMENT)].map((m) => m[1] ?? m[2] ?? m[3]);
	// n8n refuses some names (`__proto__`, `constructor`…) in expressions; leave those to it, and
	// leave everything to it on an n8n whose n8n-workflow cannot tell which.
	if (
		typeof isSafeObjectProperty !== 'function' ||
		!keys.every((key) => isSafeObjectProperty(key))
	) {
		return undefined;
	}
	return (json) => {
		let value: unknown = json;
		for (const key of keys) {
			if (
				value === null ||
				typeof value !== 'object' ||
				!Object.prototype.hasOwnProperty.call(value, key)
			) {
				return undefined;
			}
			value = (value as IDataObject)[key];
		}
		return value;
	};
}

/**
 * A reader for an expression made only of plain text and `{{ $json.field }}` parts, or undefined
 * for anything else. It takes only what it can show gives n8n's own result (test/item-parameters):
 * - no backslash anywhere: n8n reads `\{{` as an escape and `\\` before a `{{` as one backslash;
 * - no `constructor` anywhere: n8n refuses an expression with `.constructor`, even in its text;
 * - no `{{` or `}}` in the text between parts: an unclosed `{{` is code to n8n;
 * - per item, every value read is a string or a finite number; anything else (missing, null,
 *   booleans, objects, arrays) is left to n8n for that item.
 */
function compile(expression: string): Reader | undefined {
	if (expression.includes('\\') || expression.includes('constructor')) return undefined;
	const parts = expression.match(TEMPLATE_PART) ?? [];
	const texts = expression.split(TEMPLATE_PART);
	if (texts.some((text) => text.includes('{{') || text.includes('}}'))) return undefined;
	const readers = parts.map(pathReader);
	if (readers.some((reader) => reader === undefined)) return undefined;
	const reads = readers as Array<(json: IDataObject) => unknown>;
	if (parts.length === 1 && texts[0] === '' && texts[1] === '') {
		// The whole value is one part: n8n gives the field's value itself (a number stays a number).
		return (json) => {
			const value = reads[0](json);
			return plain(value) ? { value } : undefined;
		};
	}
	return (json) => {
		let text = texts[0];
		for (let i = 0; i < reads.length; i++) {
			const value = reads[i](json);
			if (!plain(value)) return undefined;
			text += String(value) + texts[i + 1];
		}
		return { value: text };
	};
}

/**
 * Reads a parameter for every item of a run. n8n evaluates an expression per item at a cost of
 * tens of microseconds each, which dominates a send of many items; so a parameter without an
 * expression is read once, and one that only reads fields of the item (`{{ $json.phone }}`,
 * `Hi {{ $json.name }}`) is read from the item directly. Everything else goes through n8n.
 */
export function itemParameterReader(
	context: IExecuteFunctions,
	name: string,
	fallback: unknown,
): (itemIndex: number) => unknown {
	// A dotted name reads inside a collection (`options.defaultCountryCode`), as n8n's own reader does.
	const raw = name
		.split('.')
		.reduce<unknown>(
			(value, key) =>
				value !== null && typeof value === 'object' ? (value as IDataObject)[key] : undefined,
			context.getNode().parameters,
		);
	if (typeof raw !== 'string' || !raw.startsWith('=')) {
		const value = context.getNodeParameter(name, 0, fallback) as unknown;
		return () => value;
	}
	const reader = compile(raw.slice(1));
	const items = context.getInputData();
	return (itemIndex) => {
		const read = reader?.(items[itemIndex].json);
		return read ? read.value : (context.getNodeParameter(name, itemIndex, fallback) as unknown);
	};
}
