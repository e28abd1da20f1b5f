// Text made safe for a page: escaped, and an html field's HTML rebuilt from an allowlist (no script,
// no handler, no style, nothing unclosed).

/** Text made safe to put into a page's HTML, between tags or in a quoted attribute. */
export function escapeHtml(text: string): string {
	return text.replace(
		/[&<>"']/g,
		(char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
	);
}

/**
 * Tags kept, with the attributes each keeps (n8n's Form keeps a like set, and iframes and videos,
 * which this page's Content-Security-Policy would block anyway).
 */
const ALLOWED = new Map<string, string[]>([
	['a', ['href', 'title']],
	['img', ['src', 'alt', 'width', 'height']],
	['td', ['colspan', 'rowspan']],
	['th', ['colspan', 'rowspan']],
	...(
		'b i em strong u s sub sup small code pre span div p br hr h1 h2 h3 h4 h5 h6 ' +
		'ul ol li blockquote table thead tbody tfoot tr caption'
	)
		.split(' ')
		.map((tag): [string, string[]] => [tag, []]),
]);

const VOID = new Set(['br', 'hr', 'img']);

/** Elements whose content is not text to show: dropped with everything in them. */
const DROPPED_WITH_CONTENT = new Set([
	'script',
	'style',
	'textarea',
	'title',
	'iframe',
	'noscript',
	'noembed',
	'noframes',
	'xmp',
	'template',
	'svg',
	'math',
	'object',
	'select',
]);

/** The tokens of HTML: comments and declarations, tags (with their attributes), text. */
const TOKEN =
	/<!--[\s\S]*?(?:-->|$)|<![^>]*>?|<\?[^>]*>?|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|[^<]+|</g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

const NAMED: Record<string, string> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	apos: "'",
	colon: ':',
	tab: '\t',
	newline: '\n',
	nbsp: '\u00a0',
};

/** An attribute's value as a browser reads it; undefined when it holds a reference this does not know. */
function decoded(value: string): string | undefined {
	let unknown = false;
	const text = value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (reference, name: string) => {
		if (name[0] !== '#') {
			const char = NAMED[name.toLowerCase()];
			if (char === undefined) unknown = true;
			return char ?? reference;
		}
		const code =
			name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
		return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
	});
	return unknown ? undefined : text;
}

/** A link or image address kept only with a scheme that opens nothing but a page (or mail, a call). */
function safeUrl(value: string, tag: string): string | undefined {
	// Browsers drop tabs and line breaks anywhere in a URL ("java\tscript:"); other controls: refused.
	const url = decoded(value)
		?.replace(/[\t\n\r]/g, '')
		.trim();
	if (!url || [...url].some((char) => char.charCodeAt(0) < 0x20 || char === '\u007f')) {
		return undefined;
	}
	const schemes = tag === 'img' ? ['https:'] : ['https:', 'http:', 'mailto:', 'tel:'];
	try {
		return schemes.includes(new URL(url).protocol) ? url : undefined;
	} catch {
		return undefined;
	}
}

/** A kept tag's attributes, each name allowed for it and each value escaped. */
function attributesOf(tag: string, raw: string): string {
	const kept: string[] = [];
	for (const [, name, ...values] of raw.matchAll(ATTRIBUTE)) {
		const attribute = name.toLowerCase();
		if (
			!ALLOWED.get(tag)!.includes(attribute) ||
			kept.some((k) => k.startsWith(` ${attribute}=`))
		) {
			continue;
		}
		const given = values.find((value) => value !== undefined) ?? '';
		const value =
			attribute === 'href' || attribute === 'src' ? safeUrl(given, tag) : decoded(given);
		if (value !== undefined) kept.push(` ${attribute}="${escapeHtml(value)}"`);
	}
	if (tag === 'a') kept.push(' rel="noopener noreferrer nofollow"');
	return kept.join('');
}

/** Text as the page shows it: what looks like markup escaped, character references kept. */
const textOf = (text: string) =>
	text
		.replace(/&(?!(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);)/gi, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;');

/**
 * An html field's HTML, rebuilt token by token: only the tags and attributes above, links and
 * images only to http(s) (images https only), every tag closed in order, text escaped. What
 * comes out can neither run script nor break out of the place the page gives it.
 */
export function sanitizeHtml(html: string): string {
	const out: string[] = [];
	const open: string[] = [];
	let skipUntil: string | undefined;
	for (const [token, closing, name, attributes] of html.matchAll(TOKEN)) {
		const tag = name?.toLowerCase();
		if (skipUntil !== undefined) {
			if (closing && tag === skipUntil) skipUntil = undefined;
		} else if (tag === undefined) {
			if (!token.startsWith('<!') && !token.startsWith('<?')) out.push(textOf(token));
		} else if (DROPPED_WITH_CONTENT.has(tag)) {
			if (!closing && !attributes.trim().endsWith('/')) skipUntil = tag;
		} else if (!ALLOWED.has(tag)) {
			continue;
		} else if (!closing) {
			out.push(`<${tag}${attributesOf(tag, attributes)}>`);
			if (!VOID.has(tag)) open.push(tag);
		} else if (open.includes(tag)) {
			while (open.length) {
				const last = open.pop()!;
				out.push(`</${last}>`);
				if (last === tag) break;
			}
		}
	}
	out.push(...open.reverse().map((tag) => `</${tag}>`));
	return out.join('');
}
