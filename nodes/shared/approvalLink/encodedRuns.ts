// Texts carried inside a text as base64, base64url or hex (UCS-2 as gateways report it): read, masked, written back as they were.

/**
 * A run of characters that could be base64 or base64url (its lines wrapped, as e-mail wraps them at
 * 76 characters), hex among them: long enough to carry a link's parameter and some of its code.
 */
const RUN = /[A-Za-z0-9+/_-]{16,}(?:\r?\n[A-Za-z0-9+/_-]+)*={0,2}/g;

/** What a decoded text never holds: control characters, a replaced byte, half a surrogate pair. */
const NOT_TEXT = /(?![\t\n\r])\p{Cc}|\ufffd|\p{Cs}/u;

/** How bytes hold a text: read back only when they are text in it, written again byte for byte. */
interface Charset {
	read(bytes: Buffer): string;
	write(text: string): Buffer;
}

const CHARSETS: Charset[] = [
	{ read: (bytes) => bytes.toString('utf8'), write: (text) => Buffer.from(text, 'utf8') },
	{
		read: (bytes) => Buffer.from(bytes).swap16().toString('utf16le'),
		write: (text) => Buffer.from(text, 'utf16le').swap16(),
	},
	{ read: (bytes) => bytes.toString('utf16le'), write: (text) => Buffer.from(text, 'utf16le') },
];

/** The text the bytes hold in a charset, when they hold one exactly. */
function textIn(charset: Charset, bytes: Buffer): string | undefined {
	if (charset !== CHARSETS[0] && bytes.length % 2 !== 0) return undefined;
	const text = charset.read(bytes);
	return !NOT_TEXT.test(text) && charset.write(text).equals(bytes) ? text : undefined;
}

/** One way to read a run: the bytes it encodes after `kept` characters, and how to write bytes so. */
interface Reading {
	bytes: Buffer;
	write(bytes: Buffer): string;
}

/** The run as hex (upper or lower case as written), after its first character when it is odd. */
function hexReading(body: string): Reading[] {
	if (!/^[0-9a-f]+$/i.test(body)) return [];
	const kept = body.slice(0, body.length % 2);
	const upper = /[A-F]/.test(body);
	return [
		{
			bytes: Buffer.from(body.slice(kept.length), 'hex'),
			write: (bytes) =>
				kept + (upper ? bytes.toString('hex').toUpperCase() : bytes.toString('hex')),
		},
	];
}

/**
 * The run as base64 or base64url, from its start or from after a `/` or `+` near it (a path before
 * it: `/r/aHR0…`); written back in the same alphabet, padded if it was.
 */
function base64Readings(body: string, padded: boolean): Reading[] {
	const url = /[-_]/.test(body) || (!padded && !/[+/]/.test(body));
	const starts = [0, ...[...body.slice(0, 16).matchAll(/[+/]/g)].map(({ index }) => index + 1)];
	return starts.map((start) => ({
		bytes: Buffer.from(body.slice(start), 'base64'),
		write: (bytes) => {
			const written = bytes.toString(url ? 'base64url' : 'base64');
			return body.slice(0, start) + (padded ? written : written.replace(/=+$/, ''));
		},
	}));
}

/** A run written back with its lines as long as they were, broken as they were. */
function wrapped(run: string, text: string): string {
	const lines = /^(.*?)(\r?\n)/.exec(run);
	if (!lines) return text;
	const width = lines[1].length;
	return (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(lines[2]);
}

/** One run with every text it carries masked and written again as it was; unchanged without one. */
function maskedRun(run: string, mask: (text: string) => string): string {
	const body = run.replace(/\r?\n/g, '');
	const padded = body.endsWith('=');
	const readings = [...hexReading(body), ...base64Readings(body.replace(/=+$/, ''), padded)];
	for (const { bytes, write } of readings) {
		for (const charset of CHARSETS) {
			const text = textIn(charset, bytes);
			if (text === undefined) continue;
			const masked = mask(text);
			if (masked !== text) return wrapped(run, write(charset.write(masked)));
		}
	}
	return run;
}

/**
 * A text whose base64, base64url and hex runs are each read as the text they carry (UTF-8,
 * UTF-16 either way round), `mask`ed, and written again in the run's own encoding: only what
 * `mask` changes changes.
 */
export function maskEncodedRuns(text: string, mask: (text: string) => string): string {
	return text.replace(RUN, (run) => maskedRun(run, mask));
}
