// The code an SMS Messaging Approval link carries, in one place: the approval node makes and checks
// it, and every operation that outputs SMS records masks it in their text.

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
 * A text with the code of every approval link in it replaced: every 22 characters of the code's
 * alphabet that end a run of it and follow, within a few signs, the link's parameter and a
 * recipient's position, however the signs between are encoded (as sent, HTML, percent, JSON,
 * quoted-printable, nested…). So an SMS record read back from the provider's list (which stores
 * the text as sent) or an error that quotes a message holds no link that answers.
 */
export function maskApprovalCodes(text: string): string {
	return text.replace(RUN, (run, at: number) => {
		const start = at + run.length - CODE_LENGTH;
		const before = text.slice(Math.max(0, start - LOOK_BACK), start);
		return BEFORE_CODE.test(before) ? `${run.slice(0, -CODE_LENGTH)}[code hidden]` : run;
	});
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
