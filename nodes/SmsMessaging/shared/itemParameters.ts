import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/** `{{ $json.a.b }}` or `{{ $json["a b"] }}`: a plain read of the current item's fields. */
const JSON_PATH = /^\{\{\s*\$json((?:\.[A-Za-z_$][\w$]*|\[(?:"[^"]*"|'[^']*')\])+)\s*\}\}$/;
const SEGMENT = /\.([A-Za-z_$][\w$]*)|\[(?:"([^"]*)"|'([^']*)')\]/g;
const TEMPLATE_PART = /\{\{[\s\S]*?\}\}/g;

type Reader = (json: IDataObject) => { value: unknown } | undefined;

function pathReader(expression: string): Reader | undefined {
	const match = JSON_PATH.exec(expression);
	if (!match) return undefined;
	const keys = [...match[1].matchAll(SEGMENT)].map((m) => m[1] ?? m[2] ?? m[3]);
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
		return { value };
	};
}

/**
 * A reader for an expression made only of text and `{{ $json.field }}` parts, or undefined for
 * anything else. It gives up (undefined) on any value that is not a string or a finite number,
 * so that n8n's own evaluation decides every case whose rendering is not plain.
 */
function compile(expression: string): Reader | undefined {
	const whole = pathReader(expression);
	if (whole) return whole;
	const parts = expression.match(TEMPLATE_PART) ?? [];
	const readers = parts.map(pathReader);
	if (readers.some((reader) => reader === undefined)) return undefined;
	const texts = expression.split(TEMPLATE_PART);
	return (json) => {
		let text = texts[0];
		for (let i = 0; i < readers.length; i++) {
			const read = readers[i]!(json);
			const value = read?.value;
			if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
				return undefined;
			}
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
	const raw = context.getNode().parameters[name];
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
