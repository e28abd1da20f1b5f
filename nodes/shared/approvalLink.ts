// The code an SMS Messaging Approval link carries, in one place: the approval node makes and checks
// it, and every operation that outputs SMS records masks it in their text.

/** The query parameter of an approval link: `<recipient>.<code>`, whose link it is and the proof. */
export const LINK_PARAMETER = 'k';

/** The code: 16 random bytes, base64url. */
export const CODE_PATTERN = '[A-Za-z0-9_-]{22}';

// How a link's `?`, `=` and `.` read in the encodings a text may carry it in: as written, HTML-escaped
// (`&amp;`, `&#61;`), percent-encoded once or twice (`%3F`, `%253D`), JSON-escaped (`\u0026`).
// A base64url code reads the same in all of them.
const BEFORE = String.raw`(?:[?&;]|%(?:25)?(?:3[Ff]|26)|\\u00(?:3[Ff]|26))`;
const EQUALS = String.raw`(?:=|%(?:25)?3[Dd]|&#(?:61|[xX]0*3[Dd]);|&equals;|\\u003[Dd])`;
const DOT = String.raw`(?:\.|%(?:25)?2[Ee]|&#(?:46|[xX]0*2[Ee]);|&period;|\\u002[Ee])`;

const IN_TEXT = new RegExp(
	`(${BEFORE}${LINK_PARAMETER}${EQUALS}(?:0|[1-9][0-9]{0,8})${DOT})${CODE_PATTERN}`,
	'g',
);

/**
 * A text with the code of every approval link in it replaced, in any of the encodings above, so
 * that an SMS record read back from the provider's list (which stores the text as sent) or an
 * error that quotes a message holds no link that answers.
 */
export function maskApprovalCodes(text: string): string {
	return text.replace(IN_TEXT, '$1[code hidden]');
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
