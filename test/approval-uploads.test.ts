// SMS Messaging Approval's file fields, part six: a file as an attacker sends it. Active content
// is never stored under a type a browser runs script in unless the field names it, a file's name
// cannot climb or lie about what it is stored as, and the node's detector tells real files apart
// (and a truncated one). Through n8n-core's engine and WebhookContext against the simulator, files
// posted as n8n's multipart parser hands them over.
import type { IBinaryData, INodeParameters } from 'n8n-workflow';

import { answer, approvalRun, linksSent, type Upload } from './helpers/approval';
import { fileBytes } from './helpers/approval-fixtures';
import type { RunResult } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-uploads-test-secret';

const ctx = useSimulator();

const DRIVERS = [{ phone: '254712345678', text: 'Parcel P-77: proof of delivery' }];

/** A Custom Form of one file field, Accepted File Types as given ('' for none). */
const waitingRun = (acceptFileTypes: string) =>
	approvalRun(ctx.credentials, DRIVERS, {
		responseType: 'customForm',
		defineForm: 'json',
		jsonOutput: JSON.stringify([{ fieldLabel: 'File', fieldType: 'file', acceptFileTypes }]),
	} as INodeParameters);

const send = (waiting: RunResult, file: Upload) =>
	answer(waiting, {
		method: 'POST',
		link: linksSent(ctx.sim)[0],
		body: { whole: '1' },
		files: { 'field-0': file },
	});

/** Types a browser runs script in, as served. */
const ACTIVE = /^(text\/html|[a-z]+\/([\w.-]+\+)?xml|(application|text)\/(x-)?(java|ecma)script)$/;

/** What was stored for the answer's one file, and what `data` says of it. */
function storedFile(
	items: Array<{ json: Record<string, unknown>; binary?: Record<string, IBinaryData> }>,
) {
	const { File: stored } = items[0].binary!;
	const { File: summary } = items[0].json.data as { File: Record<string, unknown> };
	expect(summary).toEqual({
		filename: stored.fileName,
		mimetype: stored.mimeType,
		size: expect.any(Number),
	});
	return stored;
}

const text = (content: string) => Buffer.from(content, 'latin1');
const SCRIPT_AFTER_COMMENT = text('<!--x--><script>alert(document.domain)</script>');
const IMG_ONERROR = text('<img src=x onerror=alert(1)>');
const SVG_AFTER_LONG_COMMENT = text(`<!--${'x'.repeat(4_100)}--><svg onload="alert(1)"></svg>`);
const HTML_PAGE = text('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');

describe('active content is stored under a type a browser runs script in only where the field names it', () => {
	// Content the node does not recognise, declared as a type a browser runs script in.
	test.each([
		[
			'application/*',
			'page.xhtml',
			'application/xhtml+xml',
			'an img onerror',
			'page.bin',
			IMG_ONERROR,
		],
		['.csv', 'data.csv', 'text/html', 'an img onerror', 'data.csv', IMG_ONERROR],
		['', 'note.html', 'text/html', 'a script after a comment', 'note.bin', SCRIPT_AFTER_COMMENT],
		[
			'',
			'drawing.svg',
			'image/svg+xml',
			'an svg after a 4,100-byte comment',
			'drawing.bin',
			SVG_AFTER_LONG_COMMENT,
		],
		['', 'feed.xml', 'application/rss+xml', 'an img onerror', 'feed.bin', IMG_ONERROR],
		['', 'app.js', 'text/javascript', 'a script', 'app.bin', text('alert(document.domain)')],
	])(
		'Accepted %j: %s (%s) of %s is stored as application/octet-stream, %s',
		async (accept, filename, mimetype, _, storedName, content) => {
			const waiting = await waitingRun(accept);
			const { response, items } = await send(waiting, { filename, mimetype, content });
			expect(response.statusCode).toBe(200);
			const stored = storedFile(items!);
			expect(stored).toMatchObject({ mimeType: 'application/octet-stream', fileName: storedName });
			expect(stored.mimeType).not.toMatch(ACTIVE);
			expect(Buffer.from(stored.data, 'base64').equals(content)).toBe(true);
		},
	);

	test.each([
		['.html', 'page.html', HTML_PAGE, 'text/html', 'html'],
		[
			'image/svg+xml',
			'drawing.svg',
			text('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'),
			'image/svg+xml',
			'svg',
		],
	])(
		'a page the node recognises (%s): stored as what it is where the field names it, as application/octet-stream where the field takes any file',
		async (accept, filename, content, mimeType, fileExtension) => {
			const named = await waitingRun(accept);
			const asked = await send(named, { filename, mimetype: mimeType, content });
			expect(storedFile(asked.items!)).toMatchObject({
				mimeType,
				fileExtension,
				fileName: filename,
			});
			const any = await waitingRun('');
			const taken = await send(any, { filename, mimetype: mimeType, content });
			expect(storedFile(taken.items!)).toMatchObject({
				mimeType: 'application/octet-stream',
				fileExtension: 'bin',
				fileName: filename.replace(/\.\w+$/, '.bin'),
			});
		},
	);
});

describe('a file name is stored without a path, control characters or a lying extension', () => {
	test.each([
		['a path', '../../etc/passwd', 'passwd.jpg'],
		['a Windows path', 'a\\..\\b.jpg', 'b.jpg'],
		['a NUL byte', 'evil.html\u0000.jpg', 'evil.html.jpg'],
		['an extension of another type', 'x.jpg.html', 'x.jpg'],
		['a leading dot', '.htaccess', 'htaccess.jpg'],
		['a right-to-left override', '\u202egpj.exe', 'gpj.jpg'],
		['5,000 characters', `${'x'.repeat(4_996)}.jpg`, `${'x'.repeat(251)}.jpg`],
		['300 two-byte letters', `${'é'.repeat(300)}.jpeg`, `${'é'.repeat(125)}.jpeg`],
	])(
		'a JPEG whose name has %s is stored under its last part, at most 255 bytes, ending with a JPEG extension',
		async (_, filename, expected) => {
			const waiting = await waitingRun('image/*');
			const { items } = await send(waiting, {
				filename,
				mimetype: 'image/jpeg',
				content: fileBytes('jpeg'),
			});
			const stored = storedFile(items!);
			expect(stored).toMatchObject({ fileName: expected, mimeType: 'image/jpeg' });
			expect(Buffer.byteLength(stored.fileName!)).toBeLessThanOrEqual(255);
		},
	);
});

/** A ZIP of `entries` as an archiver writes it: each entry stored, then the central directory. */
function zipOf(entries: Array<[string, Buffer | string]>): Buffer {
	const parts: Buffer[] = [];
	const directory: Buffer[] = [];
	let offset = 0;
	for (const [name, given] of entries) {
		const data = Buffer.from(given);
		const nameBytes = Buffer.from(name);
		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		local.writeUInt32LE(data.length, 18);
		local.writeUInt32LE(data.length, 22);
		local.writeUInt16LE(nameBytes.length, 26);
		const central = Buffer.alloc(46);
		central.writeUInt32LE(0x02014b50, 0);
		central.writeUInt32LE(data.length, 20);
		central.writeUInt32LE(data.length, 24);
		central.writeUInt16LE(nameBytes.length, 28);
		central.writeUInt32LE(offset, 42);
		parts.push(local, nameBytes, data);
		directory.push(central, nameBytes);
		offset += 30 + nameBytes.length + data.length;
	}
	const listed = Buffer.concat(directory);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(entries.length, 8);
	end.writeUInt16LE(entries.length, 10);
	end.writeUInt32LE(listed.length, 12);
	end.writeUInt32LE(offset, 16);
	return Buffer.concat([...parts, listed, end]);
}

const WORD = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const CONTENT_TYPES =
	'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>';

describe('what a file is: real files are taken, a truncated one is not, HTML after a comment is HTML', () => {
	test.each([
		[
			'a .docx whose first entry is docProps/thumbnail.jpeg',
			'.docx',
			'report.docx',
			'application/octet-stream',
			zipOf([
				['docProps/thumbnail.jpeg', fileBytes('jpeg', 6_000)],
				['[Content_Types].xml', CONTENT_TYPES],
				['_rels/.rels', '<Relationships/>'],
				['word/document.xml', '<w:document/>'],
			]),
			WORD,
		],
		[
			'a .zip holding a word/ folder',
			'.zip',
			'notes.zip',
			'application/zip',
			zipOf([
				['word/notes.txt', 'notes'],
				['word/draft.txt', 'draft'],
			]),
			'application/zip',
		],
		[
			'XML without <?xml',
			'.xml',
			'order.xml',
			'text/xml',
			text('<order><id>7</id></order>\n'),
			'text/xml',
		],
		[
			'a PDF after a byte order mark',
			'.pdf',
			'scan.pdf',
			'application/pdf',
			text('\xef\xbb\xbf%PDF-1.7\n%\xe2\xe3'),
			'application/pdf',
		],
		[
			'a PDF after a line break',
			'.pdf',
			'scan.pdf',
			'application/pdf',
			text('\r\n%PDF-1.4\n'),
			'application/pdf',
		],
		[
			'an MP4 of brand XAVC',
			'.mp4',
			'clip.mp4',
			'video/mp4',
			text('\x00\x00\x00\x18ftypXAVC\x00\x00\x00\x00XAVCmp42'),
			'video/mp4',
		],
		[
			'a QuickTime film starting with a wide atom',
			'.mov',
			'clip.mov',
			'video/quicktime',
			text('\x00\x00\x00\x08wide\x00\x00\x10\x00mdat'),
			'video/quicktime',
		],
	])(
		'%s is taken for %s, stored as what it is',
		async (_, accept, filename, mimetype, content, mimeType) => {
			const waiting = await waitingRun(accept);
			const { response, items } = await send(waiting, { filename, mimetype, content });
			expect([response.statusCode, response.body!.match(/File: [^<]*/)?.[0]]).toEqual([
				200,
				undefined,
			]);
			expect(storedFile(items!)).toMatchObject({ mimeType, fileName: filename });
		},
	);

	test.each([
		['text/*', 'note.html', 'text/html'],
		['.txt', 'notes.txt', 'text/html'],
		['application/*', 'page.xhtml', 'application/xhtml+xml'],
	])(
		'Accepted %s: %s (%s) of a script after a comment is refused as HTML by its content',
		async (accept, filename, mimetype) => {
			const waiting = await waitingRun(accept);
			const refused = await send(waiting, { filename, mimetype, content: SCRIPT_AFTER_COMMENT });
			expect(refused.response.statusCode).toBe(400);
			expect(refused.response.body).toContain(
				`File: ${filename} is not what it says: its content is text/html,`,
			);
			expect(refused.resumed).toBeUndefined();
		},
	);

	test('the three bytes FF D8 FF are no JPEG: refused for .jpg', async () => {
		const waiting = await waitingRun('.jpg');
		const content = Buffer.from([0xff, 0xd8, 0xff]);
		const refused = await send(waiting, { filename: 'photo.jpg', mimetype: 'image/jpeg', content });
		expect(refused.response.statusCode).toBe(400);
		expect(refused.response.body).toContain(
			'File: photo.jpg is not what it says: its content is not a kind of file this node recognises, not one of the accepted types (.jpg).',
		);
		expect(refused.resumed).toBeUndefined();
	});
});
