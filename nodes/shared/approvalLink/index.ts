// The code an SMS Messaging Approval link carries, in one place: the approval node makes and checks
// it, and every operation that outputs SMS records masks it in their text.
import { decodedView, spanOf, type DecodedView } from './decodedView';
import { maskEncodedRuns } from './encodedRuns';

/** The query parameter of an approval link: `<recipient>.<code>`, whose link it is and the proof. */
export const LINK_PARAMETER = 'k';

/** The code: 16 random bytes, base64url. */
export const CODE_PATTERN = '[A-Za-z0-9_-]{22}';

/** A code's alphabet and length: what a code is, in any text. */
const ALPHABET = '[A-Za-z0-9_-]';
const CODE_LENGTH = 22;

/** Every run of the code's alphabet at least a code long: a code, if any, is its last 22 characters. */
const RUN = new RegExp(`${ALPHABET}{${CODE_LENGTH},}`, 'g');

// One sign of a link however it is encoded, as every escape is written: a HEAD of signs that are
// not letters or digits (a single space among them), then a TAIL of at most 16 letters and digits
// (`=`, `%253D`, `&#061;`, `&equals;`, `\u002e`, `=3D`, CSS's `\2e `…). No encoding is named; a
// sign nested in several encodings is a few of these (`&amp;#x3D;`). Each part is as long as it
// can be, so a text splits into signs one way only, and a code or a signature (22, 64 letters and
// digits) is never inside one.
const HEAD_SIGN = `(?:[^\\sA-Za-z0-9_-]|(?<! ) (?! ))`;
const HEAD = `${HEAD_SIGN}+(?!${HEAD_SIGN})`;
const TAIL = '[A-Za-z0-9]{1,16}(?![A-Za-z0-9])';
const SIGN = `${HEAD}(?:${TAIL})?`;
/** The tail that ends with the recipient's position (`=0`, `%3D12`, `&#61;3`). */
const POSITION = '[A-Za-z0-9]{0,15}?(?:0|[1-9][0-9]{0,8})(?![A-Za-z0-9])';

/**
 * Where a parameter's name starts: after a sign (`?`, `&`, `;`), or after an escape's hex digits
 * (`%3F`, `\\u003f`, `\\x3f`), not inside a word ("Track").
 */
const NAME_START = `(?<=(?:^|${HEAD_SIGN})[0-9A-Fa-fuUxX]{0,10})`;

/**
 * What stands right before a code in a link however the text around it is encoded: the
 * parameter `k`, a few signs, the recipient's position, a few signs.
 */
const BEFORE_CODE = new RegExp(
	`${NAME_START}${LINK_PARAMETER}(?:${SIGN}){0,4}${HEAD}${POSITION}(?:${SIGN}){0,4}${HEAD}(?:${TAIL})?$`,
);

/** How far before a code its parameter can stand: ten signs of up to 24 characters. */
const LOOK_BACK = 10 * 24;

/**
 * The parameter as a link's query holds it once its escapes are decoded: `?k=` or `&k=`, the
 * recipient's position and one sign (not one that starts an escape the view left as written,
 * such as CSS's `\2e `). What follows is a code, or what is left of one.
 */
const PARAMETER = new RegExp(
	`(?<=^|[?&;])${LINK_PARAMETER}=(?:0|[1-9][0-9]{0,8})[^\\sA-Za-z0-9_\\\\%&=-]`,
	'g',
);

/** Where a code stands in a view: `[start, end)`. */
type Span = [number, number];

/** Every whole code: the last 22 characters of a run, a few signs after `k` and a position. */
function wholeCodes(view: string): Span[] {
	return [...view.matchAll(RUN)]
		.map(({ index, 0: run }): Span => [index + run.length - CODE_LENGTH, index + run.length])
		.filter(([start]) => BEFORE_CODE.test(view.slice(Math.max(0, start - LOOK_BACK), start)));
}

/**
 * The code after a parameter: its 22 characters however they are split (a line break or a space
 * between its parts, which then make exactly a code), or, when it is cut short, what is left of it.
 */
function codeAfter(view: string, start: number): Span | undefined {
	const first = /^[A-Za-z0-9_-]*/.exec(view.slice(start))![0];
	if (first.length === 0) return undefined;
	// A code ends its run (what comes before it in the run is an escape's tail: `\56` for `.`).
	if (first.length >= CODE_LENGTH)
		return [start + first.length - CODE_LENGTH, start + first.length];
	const split = /^(?:\s{1,2}[A-Za-z0-9_-]+)+/.exec(view.slice(start + first.length))?.[0] ?? '';
	let length = first.length;
	for (const part of split.matchAll(/(\s+)([A-Za-z0-9_-]+)/g)) {
		length += part[2].length;
		if (length > CODE_LENGTH) break;
		if (length === CODE_LENGTH) return [start, start + first.length + part.index + part[0].length];
	}
	return [start, start + first.length];
}

/** Where the codes of a view stand: whole ones however the signs before are written, and every code after a parameter. */
function codesIn(view: DecodedView): Span[] {
	const after = [...view.text.matchAll(PARAMETER)]
		.map(({ index, 0: parameter }) => codeAfter(view.text, index + parameter.length))
		.filter((span): span is Span => span !== undefined);
	return [...wholeCodes(view.text), ...after].map(([start, end]) => spanOf(view, start, end));
}

/** The text with every span replaced by `[code hidden]`, spans that overlap made one. */
function hidden(text: string, spans: Span[]): string {
	const merged: Span[] = [];
	for (const [start, end] of [...spans].sort(([a], [b]) => a - b)) {
		const last = merged[merged.length - 1];
		if (last && start < last[1]) last[1] = Math.max(last[1], end);
		else merged.push([start, end]);
	}
	let out = '';
	let at = 0;
	for (const [start, end] of merged) {
		out += `${text.slice(at, start)}[code hidden]`;
		at = end;
	}
	return out + text.slice(at);
}

/** Whether a text can hold a link's parameter at all: a `k`, or an escape that could write one. */
const MAY_HOLD_LINK = /[k%&\\]/;

/**
 * A text with the code of every approval link in it replaced by `[code hidden]`, by what a code
 * is, not by a list of encodings. The text is read with its escapes decoded (percent, HTML
 * references, JavaScript and JSON, nested) and zero-width characters left out; then: every 22
 * characters of the code's alphabet that end a run of it, a few signs after `k` and a position
 * however those signs are written; and after `?k=` or `&k=`, a position and a sign, the run that
 * follows however short (a text cut) or split (a line break or a space in it). Base64, base64url
 * and hex runs (UCS-2 included) are read as the text they carry, masked so, and written again as
 * they were. So an SMS record read back from the provider's list (which stores the text as sent)
 * or an error that quotes a message holds no link that answers, and no other text changes.
 */
export function maskApprovalCodes(text: string): string {
	return maskedText(text, 0);
}

/** maskApprovalCodes at a depth: a run read inside a run read (hex in base64) is as deep as it goes. */
function maskedText(text: string, depth: number): string {
	const masked = MAY_HOLD_LINK.test(text) ? hidden(text, codesIn(decodedView(text))) : text;
	return depth < 2 ? maskEncodedRuns(masked, (inner) => maskedText(inner, depth + 1)) : masked;
}

/** A value with approval codes masked in every text it holds, however deep. */
function masked(value: unknown): unknown {
	if (typeof value === 'string') return maskApprovalCodes(value);
	if (Array.isArray(value)) return value.map(masked);
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, masked(each)]));
	}
	return value;
}

/**
 * An SMS record as the package outputs it: every text in it with approval codes masked
 * (`content` carries the SMS text; a provider may echo it under other names too).
 */
export function maskedSmsRecord<T extends Record<string, unknown>>(record: T): T {
	return masked(record) as T;
}
