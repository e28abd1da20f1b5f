// SMS Messaging Approval's Custom Form with the six field types beyond the first six (checkboxes,
// radio buttons, password, hidden field, HTML, file), through n8n-core's engine and
// WebhookContext against the simulator: the page, the answer as n8n's Form node gives it (a file
// as binary data on the item), and every rule the page states checked again on the server: a
// refused answer records nothing, names the field and keeps the rest, and the wait goes on.
import type { INodeParameters } from 'n8n-workflow';

import { answer, approvalRun, linksSent, type Upload } from './helpers/approval';
import { fileBytes, MORE_FIELD_TYPES, SANITIZED_NOTICE } from './helpers/approval-fixtures';
import type { RunResult } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-fields-test-secret';

const ctx = useSimulator();

// Sizes in decimal megabytes, as phones and n8n show them (part five; they were binary).
const MB = 1_000_000;
const DRIVERS = [
	{ phone: '254712345678', text: 'Parcel P-77 for 12 Kenyatta Ave: proof of delivery' },
];

const waitingRun = (extra: INodeParameters) => approvalRun(ctx.credentials, DRIVERS, extra);
const byFields = (values: object[]): INodeParameters =>
	({ responseType: 'customForm', formFields: { values } }) as INodeParameters;
const more = byFields(MORE_FIELD_TYPES);

const PHOTO: Upload = { filename: 'meter.jpg', mimetype: 'image/jpeg', content: fileBytes('jpeg') };

/** MORE_FIELD_TYPES answered well: fields 0-4 and the marker of a whole post, and the photo. */
const GOOD = {
	'field-0': ['seal', 'meter'],
	'field-1': 'back door',
	'field-2': ' s3cret ',
	whole: '1',
};

const post = (
	waiting: RunResult,
	body: Record<string, unknown>,
	files: Record<string, Upload | Upload[]> = { 'field-5': PHOTO },
) => answer(waiting, { method: 'POST', link: linksSent(ctx.sim)[0], body, files });

const pageOf = async (waiting: RunResult) =>
	(await answer(waiting, { method: 'GET', link: linksSent(ctx.sim)[0] })).response.body!;

describe('the six other field types of n8n’s forms', () => {
	test('the page: boxes with their limit, radio buttons, a password, the HTML sanitized, a file input for a phone’s camera; the hidden value not shown', async () => {
		const html = await pageOf(await waitingRun(more));
		expect(html).toContain('<legend>Checks done<span class="req"> *</span></legend>');
		expect(html).toContain('<input type="checkbox" name="field-0" value="cable">cable</label>');
		expect(html).toContain('<p class="hint">Choose exactly 2.</p>');
		expect(html).toContain(
			'<input type="radio" name="field-1" value="back door" required>back door</label>',
		);
		expect(html).toContain('<input type="password" id="field-2" name="field-2" required');
		expect(html).toContain(`<div class="html">${SANITIZED_NOTICE}</div>`);
		expect(html).not.toMatch(/alert\(|steal|onclick|javascript:/);
		expect(html).toContain(
			'<input type="file" id="field-5" name="field-5" required aria-describedby="field-5-error" accept="image/*" data-max-bytes="10000000" data-max-files="1" data-label="Meter photo" data-limit="10 MB">',
		);
		expect(html).toContain('<p class="hint">Up to 10 MB. Accepted: image/*.</p>');
		expect(html).not.toContain('A-2291');
		expect(html).not.toContain('field-3');
		expect(html).toContain('<input type="hidden" name="whole" value="1">');
		// The page's one script: sizes checked before sending, and "sending" shown.
		expect(html.match(/<script>/g)).toHaveLength(1);
		expect(html).toContain('<p id="sending" class="sending" role="status" hidden>');
	});

	test('a good answer: a list of boxes, one radio option, the password as typed, the hidden field’s value, the HTML under its Element Name, the photo as binary data', async () => {
		const waiting = await waitingRun(more);
		const { response, items } = await post(waiting, GOOD);
		expect(response.statusCode).toBe(200);
		expect(items).toHaveLength(1);
		const [{ json, binary }] = items!;
		expect(json).toEqual({
			data: {
				'Checks done': ['seal', 'meter'],
				Access: 'back door',
				PIN: ' s3cret ',
				orderId: 'A-2291',
				notice: SANITIZED_NOTICE,
				'Meter photo': { filename: 'meter.jpg', mimetype: 'image/jpeg', size: 2_048 },
			},
			answeredBy: '254712345678',
		});
		expect(Object.keys(binary!)).toEqual(['Meter_photo']);
		expect(binary!.Meter_photo).toMatchObject({
			fileName: 'meter.jpg',
			mimeType: 'image/jpeg',
			fileExtension: 'jpg',
		});
		expect(Buffer.from(binary!.Meter_photo.data, 'base64')).toEqual(PHOTO.content);
	});

	test('a hidden field’s value is the configured one, and the HTML the node’s own, whatever the client posts', async () => {
		const waiting = await waitingRun(more);
		const { items } = await post(waiting, {
			...GOOD,
			'field-3': 'B-9999',
			orderId: 'B-9999',
			'field-4': '<img src=x onerror=alert(1)>',
			notice: 'changed',
		});
		expect(items![0].json.data).toMatchObject({ orderId: 'A-2291', notice: SANITIZED_NOTICE });
	});

	test.each([
		[
			'three boxes for exactly 2',
			{ 'field-0': ['seal', 'meter', 'cable'] },
			'Checks done: Choose exactly 2 options.',
		],
		['one box for exactly 2', { 'field-0': 'seal' }, 'Checks done: Choose exactly 2 options.'],
		[
			'no box for exactly 2 (required)',
			{ 'field-0': [] },
			'Checks done: Choose exactly 2 options.',
		],
		[
			'a box not on the page',
			{ 'field-0': ['seal', 'roof'] },
			'Checks done: Choose options of the list, each once.',
		],
		[
			'one box twice',
			{ 'field-0': ['seal', 'seal'] },
			'Checks done: Choose options of the list, each once.',
		],
		[
			'a radio value not among the options',
			{ 'field-1': 'window' },
			'Access: Choose an option of the list.',
		],
		['two radio values', { 'field-1': ['front door', 'back door'] }, 'Access: Give one value.'],
		['no radio value (required)', { 'field-1': '' }, 'Access: Choose an option.'],
		['an empty password (required)', { 'field-2': '' }, 'PIN: This field is required.'],
	])('%s: refused and named, the rest kept, nothing recorded', async (_, wrong, problem) => {
		const waiting = await waitingRun(more);
		const refused = await post(waiting, { ...GOOD, ...wrong });
		expect(refused.resumed).toBeUndefined();
		expect(refused.response.statusCode).toBe(400);
		const html = refused.response.body!;
		expect(html).toContain(problem);
		expect(html.match(/<p class="error" id=/g)).toHaveLength(1);
		// The rest as given (a password is never sent back; a file must be chosen again).
		if (!('field-1' in wrong)) expect(html).toContain('value="back door" required checked>');
		expect(html).not.toContain('s3cret');
		expect(html).toContain('Received meter.jpg: choose it again, a page cannot keep a file.');
		const { items } = await post(waiting, GOOD);
		expect(items).toHaveLength(1);
	});

	test.each([
		[
			'a style block and a style attribute',
			'<style>body{display:none}</style><p style="color:red">Hi</p>',
			'<p>Hi</p>',
		],
		[
			'a form, an input and a button of its own',
			'<form action="https://evil.example/"><input name="k"><button>Go</button></form>',
			'Go',
		],
		[
			'a frame, an object, an svg with script',
			'<iframe src="https://evil.example/"></iframe><object data="x"></object><svg><script>alert(1)</script></svg>ok',
			'ok',
		],
		['closing the page’s own tags', '</div></form></main><p>after', '<p>after</p>'],
		['an unclosed tag', '<b>bold <i>both', '<b>bold <i>both</i></b>'],
		[
			'a link hidden by entities and a tab',
			'<a href="jav&#x09;ascript&#58;alert(1)">x</a><a href=" java\tscript:alert(1)">y</a>',
			'<a rel="noopener noreferrer nofollow">x</a><a rel="noopener noreferrer nofollow">y</a>',
		],
		[
			'links by mail and phone',
			'<a href="mailto:ops@example.com">mail</a> <a href="tel:+254700000000">call</a>',
			'<a href="mailto:ops@example.com" rel="noopener noreferrer nofollow">mail</a> <a href="tel:+254700000000" rel="noopener noreferrer nofollow">call</a>',
		],
		[
			'an image over http and one with a handler',
			'<img src="http://example.com/a.png"><img src="https://example.com/b.png" onerror="alert(1)" alt="b">',
			'<img><img src="https://example.com/b.png" alt="b">',
		],
		[
			'a comment and a declaration',
			'<!-- <script>alert(1)</script> --><!DOCTYPE html>text',
			'text',
		],
		[
			'text that looks like markup',
			'5 < 6 & "quoted" > 4 &amp; &copy;',
			'5 &lt; 6 &amp; "quoted" &gt; 4 &amp; &copy;',
		],
		[
			'an attribute that breaks out of its quotes',
			'<a title=\'x" onclick="alert(1)\' href="https://example.com">t</a>',
			'<a title="x&quot; onclick=&quot;alert(1)" href="https://example.com" rel="noopener noreferrer nofollow">t</a>',
		],
	])(
		'an html field with %s: rebuilt so that nothing runs nor breaks out',
		async (_, html, shown) => {
			const page = await pageOf(
				await waitingRun(
					byFields([
						{ fieldType: 'html', html },
						{ fieldLabel: 'Reading', fieldType: 'number' },
					]),
				),
			);
			expect(page).toContain(`<div class="html">${shown}</div>`);
			expect(page.match(/<form /g)).toHaveLength(1);
			expect(page.match(/<\/form>/g)).toHaveLength(1);
			expect(page.match(/<\/main>/g)).toHaveLength(1);
			expect(page).not.toMatch(
				/<script|<style[^>]*>(?!\nbody\{margin)|\son[a-z]+=["']|javascript:/i,
			);
		},
	);

	test('Limit Selection as a range, and unlimited boxes left empty on an optional field', async () => {
		const boxes = { values: [{ option: 'a' }, { option: 'b' }, { option: 'c' }] };
		const waiting = await waitingRun(
			byFields([
				{
					fieldLabel: 'Two at most',
					fieldType: 'checkbox',
					fieldOptions: boxes,
					limitSelection: 'range',
					minSelections: 1,
					maxSelections: 2,
					requiredField: true,
				},
				{ fieldLabel: 'Any', fieldType: 'checkbox', fieldOptions: boxes },
			]),
		);
		expect(await pageOf(waiting)).toContain('<p class="hint">Choose from 1 to 2.</p>');
		for (const wrong of [[], ['a', 'b', 'c']]) {
			const refused = await post(waiting, { 'field-0': wrong }, {});
			expect(refused.response.body).toContain('Two at most: Choose from 1 to 2 options.');
		}
		const { items } = await post(waiting, { 'field-0': 'c' }, {});
		expect(items![0].json.data).toEqual({ 'Two at most': ['c'], Any: [] });
	});

	test('Using JSON: the same fields, the same page and answer', async () => {
		const waiting = await waitingRun({
			responseType: 'customForm',
			defineForm: 'json',
			jsonOutput: JSON.stringify(MORE_FIELD_TYPES),
		});
		expect(await pageOf(waiting)).toContain(`<div class="html">${SANITIZED_NOTICE}</div>`);
		const { items } = await post(waiting, GOOD);
		expect(items![0].json.data).toMatchObject({ orderId: 'A-2291', Access: 'back door' });
		expect(Object.keys(items![0].binary!)).toEqual(['Meter_photo']);
	});

	test('text and email come out trimmed, a textarea as typed (as n8n’s forms give them)', async () => {
		const waiting = await waitingRun(
			byFields([
				{ fieldLabel: 'Name', fieldType: 'text' },
				{ fieldLabel: 'E-mail', fieldType: 'email' },
				{ fieldLabel: 'Notes', fieldType: 'textarea' },
			]),
		);
		const { items } = await post(
			waiting,
			{ 'field-0': ' Ann ', 'field-1': ' ann@example.com ', 'field-2': ' two\nlines ' },
			{},
		);
		expect(items![0].json.data).toEqual({
			Name: 'Ann',
			'E-mail': 'ann@example.com',
			Notes: ' two\nlines ',
		});
	});
});

describe('a file field checks what the page promises', () => {
	const photoField = (extra: object = {}) =>
		byFields([{ fieldLabel: 'Meter photo', fieldType: 'file', requiredField: true, ...extra }]);
	const send = (
		waiting: RunResult,
		files: Upload | Upload[] | undefined,
		body: object = { whole: '1' },
	) => post(waiting, body as Record<string, unknown>, files ? { 'field-0': files } : {});

	test.each([
		[
			'a required file left out',
			{ acceptFileTypes: 'image/*' },
			undefined,
			'Meter photo: Choose a file.',
		],
		[
			'a PDF for image/*',
			{ acceptFileTypes: 'image/*' },
			{ filename: 'invoice.pdf', mimetype: 'application/pdf', content: fileBytes('pdf') },
			'Meter photo: invoice.pdf is not one of the accepted types (image/*).',
		],
		[
			'a PDF named and sent as a JPEG, for image/*',
			{ acceptFileTypes: 'image/*' },
			{ filename: 'photo.jpg', mimetype: 'image/jpeg', content: fileBytes('pdf') },
			'Meter photo: photo.jpg is not what it says: its content is application/pdf, not one of the accepted types (image/*).',
		],
		[
			'unknown bytes sent as a JPEG, for image/*',
			{ acceptFileTypes: 'image/*' },
			{
				filename: 'photo.jpg',
				mimetype: 'image/jpeg',
				content: Buffer.from('\x00\x01 not an image'),
			},
			'Meter photo: photo.jpg is not what it says: its content is not a kind of file this node recognises, not one of the accepted types (image/*).',
		],
		[
			// Part five: the node recognises a program too, and says so.
			'a Windows program sent as a JPEG, for image/*',
			{ acceptFileTypes: 'image/*' },
			{
				filename: 'photo.jpg',
				mimetype: 'image/jpeg',
				content: Buffer.from('MZ\x90\0 not an image'),
			},
			'Meter photo: photo.jpg is not what it says: its content is application/x-msdownload, not one of the accepted types (image/*).',
		],
		[
			'a .gif for .jpg, .png',
			{ acceptFileTypes: '.jpg, .png' },
			{ filename: 'meter.gif', mimetype: 'image/gif', content: Buffer.from('GIF89a') },
			'Meter photo: meter.gif is not one of the accepted types (.jpg,.png).',
		],
		[
			'a JPEG named .png, for .jpg, .png',
			{ acceptFileTypes: '.jpg, .png' },
			{ filename: 'meter.png', mimetype: 'image/png', content: fileBytes('jpeg') },
			'Meter photo: meter.png is not what it says: its content is image/jpeg, not one of the accepted types (.jpg,.png).',
		],
		[
			'two files for one',
			{ multipleFiles: false },
			[PHOTO, PHOTO],
			'Meter photo: Choose one file.',
		],
		[
			'a 12 MB photo over a 10 MB limit',
			{ maxFileSizeMb: 10 },
			{ filename: 'IMG_4031.jpg', mimetype: 'image/jpeg', content: fileBytes('jpeg', 12 * MB) },
			'Meter photo: IMG_4031.jpg is 12 MB; this field takes files up to 10 MB.',
		],
	])('%s: refused, named, nothing recorded; the wait goes on', async (_, extra, files, problem) => {
		const waiting = await waitingRun(photoField(extra));
		const refused = await send(waiting, files);
		expect(refused.resumed).toBeUndefined();
		expect(refused.response.statusCode).toBe(400);
		expect(refused.response.body).toContain(problem);
		const { items } = await send(waiting, PHOTO);
		const multiple = (extra as { multipleFiles?: boolean }).multipleFiles ?? true;
		expect(Object.keys(items![0].binary!)).toEqual([multiple ? 'Meter_photo_0' : 'Meter_photo']);
	});

	test('a post that did not arrive whole (no end marker): refused, nothing recorded', async () => {
		const waiting = await waitingRun(photoField());
		const refused = await send(waiting, PHOTO, {});
		expect(refused.response.statusCode).toBe(400);
		expect(refused.response.body).toContain(
			'Nothing was recorded: this n8n did not pass your whole answer on.',
		);
		expect(refused.resumed).toBeUndefined();
	});

	test('a 12 MB photo from a phone under the default limit (25 MB, as the page says): taken, whole', async () => {
		const waiting = await waitingRun(photoField({ acceptFileTypes: 'image/*' }));
		expect(await pageOf(waiting)).toContain(
			'<p class="hint">Up to 25 MB per file. Accepted: image/*.</p>',
		);
		const photo = {
			filename: 'IMG_4031.jpg',
			mimetype: 'image/jpeg',
			content: fileBytes('jpeg', 12 * MB),
		};
		const { items } = await send(waiting, photo);
		expect(items![0].json.data).toEqual({
			'Meter photo': [{ filename: 'IMG_4031.jpg', mimetype: 'image/jpeg', size: 12 * MB }],
		});
		expect(items![0].binary!.Meter_photo_0.bytes).toBe(12 * MB);
		expect(Buffer.from(items![0].binary!.Meter_photo_0.data, 'base64').equals(photo.content)).toBe(
			true,
		);
	});

	test('Multiple Files: each file as binary data with _0, _1…, the field a list; by extension and content type', async () => {
		const waiting = await waitingRun(photoField({ acceptFileTypes: '.png, image/jpeg' }));
		const png = { filename: 'Seal.PNG', mimetype: 'image/png', content: fileBytes('png') };
		// A browser that does not know a type sends application/octet-stream: the content decides.
		const unknownType = { ...PHOTO, filename: 'meter', mimetype: 'application/octet-stream' };
		const { items } = await send(waiting, [PHOTO, png, unknownType]);
		expect(items![0].json.data).toEqual({
			'Meter photo': [
				{ filename: 'meter.jpg', mimetype: 'image/jpeg', size: 2_048 },
				{ filename: 'Seal.PNG', mimetype: 'image/png', size: 2_048 },
				// As stored: the type its content is (part five), a name with its extension (part six).
				{ filename: 'meter.jpg', mimetype: 'image/jpeg', size: 2_048 },
			],
		});
		const binary = items![0].binary!;
		expect(Object.keys(binary)).toEqual(['Meter_photo_0', 'Meter_photo_1', 'Meter_photo_2']);
		expect(binary.Meter_photo_1).toMatchObject({ fileName: 'Seal.PNG', mimeType: 'image/png' });
	});

	test.each([
		['GIF', 'image/gif', Buffer.from('GIF89a\x01\x00', 'latin1')],
		['WebP', 'image/webp', Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1')],
		['HEIC', 'image/heic', Buffer.from('\x00\x00\x00\x18ftypheic\x00\x00\x00\x00', 'latin1')],
		['HEIF', 'image/heic', Buffer.from('\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00', 'latin1')],
		['AVIF', 'image/avif', Buffer.from('\x00\x00\x00\x1cftypavif\x00\x00\x00\x00', 'latin1')],
		['TIFF', 'image/tiff', Buffer.from('II*\x00\x08\x00\x00\x00', 'latin1')],
		['BMP', 'image/bmp', Buffer.from('BM\x36\x00\x00\x00', 'latin1')],
	])(
		'a %s photo sent as application/octet-stream is taken for image/*, by its content',
		async (_, mimeType, head) => {
			const waiting = await waitingRun(photoField({ acceptFileTypes: 'image/*' }));
			const content = Buffer.concat([head, Buffer.alloc(64)]);
			const upload = { filename: 'photo', mimetype: 'application/octet-stream', content };
			const { items } = await send(waiting, upload);
			expect(items![0].binary!.Meter_photo_0.mimeType).toBe(mimeType);
		},
	);

	test('an optional file field left empty: null, or [] with Multiple Files; no binary data', async () => {
		const waiting = await waitingRun(
			byFields([
				{ fieldLabel: 'Photo', fieldType: 'file', multipleFiles: false },
				{ fieldLabel: 'More photos', fieldType: 'file', multipleFiles: true },
			]),
		);
		// 2.x drops an empty file input itself; 1.x and a browser's empty input: size 0, no name.
		const empty = { filename: '', mimetype: 'application/octet-stream', content: Buffer.alloc(0) };
		const { items } = await post(waiting, { whole: '1' }, { 'field-1': empty });
		expect(items![0].json.data).toEqual({ Photo: null, 'More photos': [] });
		expect(items![0].binary).toBeUndefined();
	});
});

describe('a form that cannot work is refused before anything is sent', () => {
	const options = { values: [{ option: 'a' }, { option: 'b' }] };
	test.each([
		[
			'an unknown field type',
			[{ fieldLabel: 'A', fieldType: 'signature' }],
			/field 1 \(A\): Element Type must be one of text, textarea, email, number, password, date, dropdown, checkbox, radio, file, hiddenField, html, got "signature"/,
		],
		[
			'radio buttons without options',
			[{ fieldLabel: 'A', fieldType: 'radio' }],
			/field 1 \(A\): radio buttons need their options/,
		],
		[
			'exactly 3 of 2 boxes',
			[
				{
					fieldLabel: 'A',
					fieldType: 'checkbox',
					fieldOptions: options,
					limitSelection: 'exact',
					numberOfSelections: 3,
				},
			],
			/field 1 \(A\): asks for at least 3 of 2 boxes/,
		],
		[
			'a range whose maximum is below its minimum',
			[
				{
					fieldLabel: 'A',
					fieldType: 'checkbox',
					fieldOptions: options,
					limitSelection: 'range',
					minSelections: 2,
					maxSelections: 1,
				},
			],
			/Maximum Selections must be a whole number of at least 2/,
		],
		[
			'a hidden field without Field Name',
			[{ fieldType: 'hiddenField', fieldValue: 'x' }],
			/field 1 has no Field Name/,
		],
		[
			'Accepted File Types that are neither',
			[{ fieldLabel: 'A', fieldType: 'file', acceptFileTypes: 'images, *.jpg' }],
			/Accepted File Types: "\*\.jpg" is neither an extension nor a content type/,
		],
		[
			'a file limit over n8n’s own',
			[{ fieldLabel: 'A', fieldType: 'file', maxFileSizeMb: 500 }],
			/Max File Size \(MB\) must be above 0 and at most 200, not 500/,
		],
		[
			'Max Files that is no whole number of at least 1',
			[{ fieldLabel: 'A', fieldType: 'file', multipleFiles: true, maxFiles: 0 }],
			/field 1 \(A\): Max Files must be a whole number from 1 to 1000, not 0/,
		],
		[
			'two file fields whose files would share a name',
			[
				{ fieldLabel: 'Photo 1', fieldType: 'file' },
				{ fieldLabel: 'Photo_1', fieldType: 'file' },
			],
			/field 1 \(Photo 1\) and field 2 \(Photo_1\) would both put a file under "Photo_1"/,
		],
		[
			'a hidden field named as another field’s label',
			[{ fieldLabel: 'A' }, { fieldType: 'hiddenField', fieldName: 'A' }],
			/two fields are labelled "A"/,
		],
	])('%s', async (_, values, message) => {
		const result = await waitingRun({
			responseType: 'customForm',
			defineForm: 'json',
			jsonOutput: JSON.stringify(values),
		});
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toContain('Nothing was sent.');
		expect(ctx.sim.requests.filter((r) => r.host === 'send')).toHaveLength(0);
		expect(result.run.waitTill).toBeUndefined();
	});
});
