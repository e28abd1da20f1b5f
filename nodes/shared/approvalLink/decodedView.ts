// A text as a reader sees it once its escapes are decoded, each character tied to where it stands in the text.

/**
 * The text with its character escapes decoded, nested ones too (`%2541` → `%41` → `A`), and
 * zero-width characters left out; `from[i]` and `to[i]` are where the text's character `i` comes
 * from in the original (an escape is one character). Without them, each character is its own.
 */
export interface DecodedView {
	text: string;
	from?: number[];
	to?: number[];
}

/** The named references whose characters can stand in a link (HTML and HTML5 names). */
const NAMED: Record<string, string> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	apos: "'",
	equals: '=',
	quest: '?',
	period: '.',
	sol: '/',
	colon: ':',
	semi: ';',
	num: '#',
	percnt: '%',
	lowbar: '_',
	excl: '!',
	commat: '@',
	plus: '+',
	comma: ',',
	nbsp: '\u00a0',
};

/**
 * One character escaped as percent-encoding, an HTML reference (with its `;`: without it a
 * reference takes any digits that follow), JavaScript or JSON; or a character that shows nothing
 * (zero-width space, joiners, word joiner, byte order mark, soft hyphen).
 */
const ESCAPE =
	/%([0-9a-f]{2})|&#x([0-9a-f]{1,6});|&#([0-9]{1,7});|&([a-z]{2,8});|\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})|\\([\\/"'])|[\u200b-\u200d\u2060\ufeff\u00ad]/gi;

/** Where an escape can be, or an invisible character: a text without them reads as it is. */
const MAY_ESCAPE = /[%&\\\u200b-\u200d\u2060\ufeff\u00ad]/;

/** The character an escape stands for ('' for an invisible one), or undefined when it is none. */
function characterOf(escape: string, groups: Array<string | undefined>): string | undefined {
	const [percent, hex, decimal, name, braced, unicode, byte, literal] = groups;
	if (name !== undefined) return NAMED[name.toLowerCase()];
	if (literal !== undefined) return literal;
	const code = percent ?? byte ?? hex ?? braced ?? unicode;
	const point = code !== undefined ? parseInt(code, 16) : decimal ? Number(decimal) : undefined;
	if (point === undefined) return escape.length === 1 ? '' : undefined;
	return point <= 0x10ffff ? String.fromCodePoint(point) : undefined;
}

/** One pass: every escape of the view decoded once; the view itself when it holds none. */
function decodeOnce(view: DecodedView): DecodedView {
	const escapes = [...view.text.matchAll(ESCAPE)]
		.map((match) => ({ match, character: characterOf(match[0], match.slice(1)) }))
		.filter(({ character }) => character !== undefined);
	if (escapes.length === 0) return view;
	const from = view.from ?? Array.from({ length: view.text.length }, (_, at) => at);
	const to = view.to ?? from.map((at) => at + 1);
	const decoded = { text: '', from: [] as number[], to: [] as number[] };
	let last = 0;
	const keep = (end: number) => {
		decoded.text += view.text.slice(last, end);
		for (let at = last; at < end; at++) {
			decoded.from.push(from[at]);
			decoded.to.push(to[at]);
		}
	};
	for (const { match, character } of escapes) {
		keep(match.index);
		// A character outside the BMP is two code units: both stand where the escape stood.
		for (const unit of character!.split('')) {
			decoded.text += unit;
			decoded.from.push(from[match.index]);
			decoded.to.push(to[match.index + match[0].length - 1]);
		}
		last = match.index + match[0].length;
	}
	keep(view.text.length);
	return decoded;
}

/** The text with its escapes decoded, up to four levels deep (a link in JSON in HTML in a query). */
export function decodedView(text: string): DecodedView {
	let view: DecodedView = { text };
	for (let pass = 0; pass < 4 && MAY_ESCAPE.test(view.text); pass++) {
		const next = decodeOnce(view);
		if (next === view) break;
		view = next;
	}
	return view;
}

/** Where the view's characters `start` to `end` stand in the original text: `[start, end)`. */
export function spanOf(view: DecodedView, start: number, end: number): [number, number] {
	return view.from ? [view.from[start], view.to![end - 1]] : [start, end];
}
