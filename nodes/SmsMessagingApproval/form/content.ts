// What a file is by its first bytes (and a ZIP's list of entries), whatever its name or the type a browser gave it.

/** A kind of file the node recognises by its first bytes. */
interface Kind {
	/** Its content types, the one it is stored as first. */
	mimes: string[];
	/** The extensions its files carry. */
	extensions: string[];
	/** A browser that opens it runs what it holds (HTML, SVG, XML): only named entries take it. */
	active?: boolean;
}

/** What a file's first bytes say it is; null: none of the kinds the node recognises. */
export type Content = Kind | null;

/** How many first bytes tell a file's kind (a ZIP's first entries, an SVG after its prolog). */
export const HEAD_BYTES = 4096;

/** How many last bytes of a ZIP are read for its central directory (thousands of entries). */
export const TAIL_BYTES = 1 << 20;

/** Whether a file's first bytes are a ZIP's, whose last bytes then say more (contentOf's `tail`). */
export const isZip = (head: Buffer) => head.subarray(0, 4).equals(ZIP_ENTRY);

const kind = (mimes: string, extensions: string, active?: true): Kind => ({
	mimes: mimes.split(' '),
	extensions: extensions.split(' '),
	...(active ? { active } : {}),
});

const OOXML = 'application/vnd.openxmlformats-officedocument';
const ODF = 'application/vnd.oasis.opendocument';

/** Every kind the node recognises: the images a phone takes, PDF, office files, archives, media. */
const KINDS = {
	jpeg: kind('image/jpeg', '.jpg .jpeg .jpe .jfif'),
	png: kind('image/png', '.png'),
	gif: kind('image/gif', '.gif'),
	webp: kind('image/webp', '.webp'),
	heic: kind('image/heic image/heif', '.heic .heif'),
	avif: kind('image/avif', '.avif'),
	tiff: kind('image/tiff', '.tif .tiff .dng'),
	bmp: kind('image/bmp', '.bmp'),
	pdf: kind('application/pdf', '.pdf'),
	rtf: kind('application/rtf text/rtf', '.rtf'),
	docx: kind(`${OOXML}.wordprocessingml.document`, '.docx .docm .dotx'),
	xlsx: kind(`${OOXML}.spreadsheetml.sheet`, '.xlsx .xlsm .xltx'),
	pptx: kind(`${OOXML}.presentationml.presentation`, '.pptx .pptm .ppsx'),
	/** An Office file whose part names come after the first bytes read. */
	ooxml: kind(
		`${OOXML}.wordprocessingml.document ${OOXML}.spreadsheetml.sheet ${OOXML}.presentationml.presentation`,
		'.docx .docm .dotx .xlsx .xlsm .xltx .pptx .pptm .ppsx',
	),
	odt: kind(`${ODF}.text`, '.odt'),
	ods: kind(`${ODF}.spreadsheet`, '.ods'),
	odp: kind(`${ODF}.presentation`, '.odp'),
	epub: kind('application/epub+zip', '.epub'),
	/** Office 97–2003 files and Outlook messages (one container format). */
	cfb: kind(
		'application/x-cfb application/msword application/vnd.ms-excel application/vnd.ms-powerpoint application/vnd.ms-outlook',
		'.doc .dot .xls .xlt .ppt .pps .msg',
	),
	zip: kind('application/zip application/x-zip-compressed', '.zip'),
	gzip: kind('application/gzip application/x-gzip', '.gz .tgz'),
	sevenZip: kind('application/x-7z-compressed', '.7z'),
	rar: kind('application/vnd.rar application/x-rar-compressed', '.rar'),
	mp4: kind('video/mp4', '.mp4 .m4v'),
	threeGp: kind('video/3gpp video/3gpp2 audio/3gpp', '.3gp .3g2'),
	mov: kind('video/quicktime', '.mov .qt'),
	m4a: kind('audio/mp4 audio/x-m4a audio/m4a', '.m4a .m4b'),
	webm: kind('video/webm audio/webm', '.webm'),
	mkv: kind('video/x-matroska audio/x-matroska', '.mkv .mka'),
	avi: kind('video/x-msvideo video/avi', '.avi'),
	mpeg: kind('video/mpeg', '.mpg .mpeg'),
	asf: kind('video/x-ms-asf video/x-ms-wmv audio/x-ms-wma', '.wmv .wma .asf'),
	wav: kind('audio/wav audio/x-wav audio/wave', '.wav'),
	mp3: kind('audio/mpeg audio/mp3', '.mp3'),
	aac: kind('audio/aac audio/x-aac', '.aac'),
	ogg: kind('audio/ogg video/ogg audio/opus application/ogg', '.ogg .oga .ogv .opus'),
	flac: kind('audio/flac audio/x-flac', '.flac'),
	amr: kind('audio/amr', '.amr'),
	exe: kind('application/x-msdownload application/vnd.microsoft.portable-executable', '.exe .dll'),
	elf: kind('application/x-executable application/x-elf', '.elf .so'),
	html: kind('text/html application/xhtml+xml', '.html .htm .xhtml .shtml', true),
	svg: kind('image/svg+xml', '.svg', true),
	xml: kind('application/xml text/xml', '.xml', true),
};

const ALL_KINDS = Object.values(KINDS);

/** A MP4-family file by its `ftyp` brand. */
function byBrand(brand: string): Content {
	if (/^(heic|heix|hevc|hevx|heim|heis|mif1|msf1)$/.test(brand)) return KINDS.heic;
	if (/^avi[fs]$/.test(brand)) return KINDS.avif;
	if (brand === 'qt  ') return KINDS.mov;
	if (/^M4[AB] $/.test(brand)) return KINDS.m4a;
	if (/^3g[p2]/.test(brand)) return KINDS.threeGp;
	// Any other brand of four printable characters (Sony's XAVC, a camera's own) is ISO base media.
	return /^[\x20-\x7e]{4}$/.test(brand) ? KINDS.mp4 : null;
}

/** What the first entry of an OpenDocument file or an EPUB, `mimetype`, says. */
const ZIP_MIMETYPES: Record<string, Kind> = {
	[`${ODF}.text`]: KINDS.odt,
	[`${ODF}.spreadsheet`]: KINDS.ods,
	[`${ODF}.presentation`]: KINDS.odp,
	'application/epub+zip': KINDS.epub,
};

const ZIP_ENTRY = Buffer.from('PK\x03\x04', 'latin1');
const ZIP_DIRECTORY_END = Buffer.from('PK\x05\x06', 'latin1');

/** The names of the local entries in a ZIP's first bytes, in order. */
function localNames(head: Buffer, ascii: string): string[] {
	// Each local file header: its signature, then at 26 its name's length, at 30 the name.
	const names: string[] = [];
	for (let at = head.indexOf(ZIP_ENTRY); at >= 0; at = head.indexOf(ZIP_ENTRY, at + 4)) {
		if (at + 30 > head.length) break;
		names.push(ascii.slice(at + 30, at + 30 + head.readUInt16LE(at + 26)));
	}
	return names;
}

/**
 * Every entry's name from a ZIP's central directory, which its last bytes hold (`tail`), whatever
 * order the entries come in; undefined when the tail does not hold it whole (or it is ZIP64).
 */
function directoryNames(tail: Buffer): string[] | undefined {
	const end = tail.lastIndexOf(ZIP_DIRECTORY_END);
	if (end < 0 || end + 22 > tail.length) return undefined;
	const count = tail.readUInt16LE(end + 10);
	// The directory ends where its end record starts: it lies `size` bytes before.
	let at = end - tail.readUInt32LE(end + 12);
	const names: string[] = [];
	for (let entry = 0; entry < count; entry++) {
		if (at < 0 || at + 46 > end || tail.readUInt32LE(at) !== 0x02014b50) return undefined;
		const length = tail.readUInt16LE(at + 28);
		names.push(tail.toString('latin1', at + 46, at + 46 + length));
		at += 46 + length + tail.readUInt16LE(at + 30) + tail.readUInt16LE(at + 32);
	}
	return names;
}

/**
 * A ZIP by its entries: an OpenDocument file or an EPUB by its first entry, `mimetype`; an Office
 * file by `[Content_Types].xml` and its `word/`, `xl/` or `ppt/` parts (a ZIP that merely holds a
 * `word/` folder is a ZIP); or a plain ZIP. The central directory (`tail`) names every entry; the
 * first bytes alone name only the first few.
 */
function zipKind(head: Buffer, ascii: string, tail?: Buffer): Kind {
	const first = localNames(head, ascii);
	if (first[0] === 'mimetype') {
		const stated = /^mimetype([a-z0-9./+-]+)/.exec(ascii.slice(30))?.[1] ?? '';
		const found = Object.entries(ZIP_MIMETYPES).find(([mime]) => stated.startsWith(mime));
		if (found) return found[1];
	}
	const listed = tail && directoryNames(tail);
	const names = listed ?? first;
	if (!names.includes('[Content_Types].xml')) return KINDS.zip;
	if (names.some((name) => name.startsWith('word/'))) return KINDS.docx;
	if (names.some((name) => name.startsWith('xl/'))) return KINDS.xlsx;
	if (names.some((name) => name.startsWith('ppt/'))) return KINDS.pptx;
	// Every name known and none an Office part: another package (a 3MF, a NuGet package).
	return listed ? KINDS.zip : KINDS.ooxml;
}

/**
 * Markup a browser would render: after comments, the first element (or the XML declaration, or a
 * document type) says SVG, HTML by the WHATWG sniffing rules' tags, or other XML (an element that
 * some end tag closes). A head that ends inside a comment says nothing.
 */
function markupKind(ascii: string): Content {
	const text = ascii.replace(/^(\xef\xbb\xbf)?(\s|<!--[\s\S]*?-->)*/, '');
	if (!text.startsWith('<') || text.startsWith('<!--')) return null;
	if (/^<\?xml[\s?]/i.test(text)) return /<svg[\s>/]/i.test(text) ? KINDS.svg : KINDS.xml;
	if (/^<svg[\s>/]/i.test(text)) return KINDS.svg;
	const html =
		/^<(!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p)[\s>]/i;
	if (html.test(text)) return KINDS.html;
	if (/^<!doctype\s+svg[\s>]/i.test(text)) return KINDS.svg;
	const element = /^<(?:!doctype\s+[^>]*>\s*<)?[A-Za-z_][\w.:-]*[\s>/]/.test(text);
	return element && /<\/[A-Za-z_]|\/>/.test(text) ? KINDS.xml : null;
}

/**
 * A JPEG: its start of image, then a marker segment with its length (a table, a frame, an app or
 * comment segment); the three bytes FF D8 FF alone are no image.
 */
function isJpeg(head: Buffer): boolean {
	if (head.length < 6 || head[0] !== 0xff || head[1] !== 0xd8 || head[2] !== 0xff) return false;
	const marker = head[3];
	return (
		marker >= 0xc0 &&
		marker <= 0xfe &&
		!(marker >= 0xd0 && marker <= 0xd9) &&
		head.readUInt16BE(4) >= 2
	);
}

/** Kinds told by a few first bytes. */
function byMagic(head: Buffer, ascii: string): Content {
	const [b0, b1] = head;
	if (isJpeg(head)) return KINDS.jpeg;
	// PDF readers take a byte order mark or a line break before the header too.
	if (/^(\xef\xbb\xbf)?\s*%PDF-/.test(ascii)) return KINDS.pdf;
	const starts: Array<[string, Kind]> = [
		['\x89PNG\r\n\x1a\n', KINDS.png],
		['GIF87a', KINDS.gif],
		['GIF89a', KINDS.gif],
		['II*\0', KINDS.tiff],
		['MM\0*', KINDS.tiff],
		['{\\rtf', KINDS.rtf],
		['\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1', KINDS.cfb],
		['\x1f\x8b', KINDS.gzip],
		["7z\xbc\xaf'\x1c", KINDS.sevenZip],
		['Rar!\x1a\x07', KINDS.rar],
		['\x1aE\xdf\xa3', /webm/.test(ascii.slice(0, 64)) ? KINDS.webm : KINDS.mkv],
		['\x00\x00\x01\xba', KINDS.mpeg],
		['\x00\x00\x01\xb3', KINDS.mpeg],
		['0&\xb2u\x8ef\xcf\x11', KINDS.asf],
		['OggS', KINDS.ogg],
		['fLaC', KINDS.flac],
		['#!AMR', KINDS.amr],
		['MZ', KINDS.exe],
		['\x7fELF', KINDS.elf],
	];
	const found = starts.find(([magic]) => ascii.startsWith(magic));
	if (found) return found[1];
	// Two letters alone could start a text ("BMW,…"): a bitmap's reserved bytes are zero, an ID3
	// tag's version is 2 to 4.
	if (ascii.startsWith('BM') && head.length >= 26 && head.readUInt32LE(6) === 0) return KINDS.bmp;
	if (ascii.startsWith('ID3') && head[3] >= 2 && head[3] <= 4) return KINDS.mp3;
	if (b0 === 0xff && (b1 & 0xf6) === 0xf0) return KINDS.aac;
	if (b0 === 0xff && (b1 & 0xe0) === 0xe0 && (b1 & 0x06) !== 0) return KINDS.mp3;
	return null;
}

/** QuickTime's first atoms where a file has no `ftyp`. */
const QUICKTIME_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];

/**
 * What a file is by its first bytes (up to HEAD_BYTES of them) and, for a ZIP, its last bytes
 * (`tail`, up to TAIL_BYTES), which hold the list of its entries.
 */
export function contentOf(head: Buffer, tail?: Buffer): Content {
	const ascii = head.toString('latin1');
	if (ascii.startsWith('RIFF')) {
		const form = ascii.slice(8, 12);
		return form === 'WEBP'
			? KINDS.webp
			: form === 'WAVE'
				? KINDS.wav
				: form === 'AVI '
					? KINDS.avi
					: null;
	}
	if (ascii.slice(4, 8) === 'ftyp') return byBrand(ascii.slice(8, 12));
	if (QUICKTIME_ATOMS.includes(ascii.slice(4, 8))) return KINDS.mov;
	if (isZip(head)) return zipKind(head, ascii, tail);
	return byMagic(head, ascii) ?? markupKind(ascii);
}

/**
 * Whether the node recognises every file an entry of Accepted File Types takes, so that a file
 * it does not recognise cannot be one: an extension or a content type of a kind above, and
 * `image/*` (a phone's photos; an SVG is not taken by it). `video/*` or `.csv` are not.
 */
export function recognisable(entry: string): boolean {
	if (entry === 'image/*') return true;
	if (entry.startsWith('.')) return ALL_KINDS.some(({ extensions }) => extensions.includes(entry));
	return !entry.endsWith('/*') && ALL_KINDS.some(({ mimes }) => mimes.includes(entry));
}

/** Whether content of `found` kind is what an entry of Accepted File Types takes. */
export function kindMatches(entry: string, found: Kind): boolean {
	if (entry.startsWith('.')) return found.extensions.includes(entry);
	if (entry.endsWith('/*')) {
		return !found.active && found.mimes.some((mime) => mime.startsWith(entry.slice(0, -1)));
	}
	return found.mimes.includes(entry);
}

/**
 * Types a browser runs script in when it opens a file of them: HTML, XHTML, SVG, any XML (XSLT
 * can script), JavaScript.
 */
export const isActiveType = (mime: string) =>
	/^(text\/html|[a-z]+\/([\w.-]+\+)?xml|(application|text)\/(x-)?(java|ecma)script|text\/xsl)$/.test(
		mime,
	);

/** Extensions a web server serves as one of those types. */
export const isActiveExtension = (extension: string) =>
	/^\.(html?|xht(ml)?|shtml|mht(ml)?|svgz?|xml|xslt?|m?js)$/i.test(extension);

/** Whether Accepted File Types name a kind itself (`.svg`, `image/svg+xml`), not by a wildcard. */
export const namesKind = (accept: string | undefined, found: Kind) =>
	(accept ?? '')
		.split(',')
		.some((entry) => found.extensions.includes(entry) || found.mimes.includes(entry));
