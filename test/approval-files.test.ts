// SMS Messaging Approval's file fields, part five: a file checked by its content whatever Accepted
// File Types name (extensions too), an empty file said to be empty, a file stored as what its
// content is, and binary keys that no two file fields share. Through n8n-core's engine and
// WebhookContext against the simulator, files posted as n8n's multipart parser hands them over.
import type { INodeParameters } from 'n8n-workflow';

import { answer, approvalRun, linksSent, type Upload } from './helpers/approval';
import { fileBytes } from './helpers/approval-fixtures';
import type { RunResult } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-files-test-secret';

const ctx = useSimulator();

const DRIVERS = [{ phone: '254712345678', text: 'Parcel P-77: proof of delivery' }];

const byJson = (values: object[]): INodeParameters => ({
	responseType: 'customForm',
	defineForm: 'json',
	jsonOutput: JSON.stringify(values),
});
const waitingRun = (values: object[]) => approvalRun(ctx.credentials, DRIVERS, byJson(values));

const send = (waiting: RunResult, files: Record<string, Upload | Upload[]>) =>
	answer(waiting, {
		method: 'POST',
		link: linksSent(ctx.sim)[0],
		body: { whole: '1' },
		files,
	});

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');

describe('binary keys are unique across the form’s file fields', () => {
	test.each([
		[
			'a Multiple Files field "Photo" and a single-file field "Photo 0"',
			[
				{ fieldLabel: 'Photo', fieldType: 'file', multipleFiles: true },
				{ fieldLabel: 'Photo 0', fieldType: 'file', multipleFiles: false },
			],
			'Form Fields JSON: field 1 (Photo) and field 2 (Photo 0) would both put a file under "Photo_0"',
		],
		[
			'a single-file field "Scan_3" before a Multiple Files field "Scan"',
			[
				{ fieldLabel: 'Scan_3', fieldType: 'file', multipleFiles: false },
				{ fieldLabel: 'Scan', fieldType: 'file', multipleFiles: true },
			],
			'Form Fields JSON: field 1 (Scan_3) and field 2 (Scan) would both put a file under "Scan_3"',
		],
		[
			'two single-file fields "Photo 1" and "Photo_1"',
			[
				{ fieldLabel: 'Photo 1', fieldType: 'file', multipleFiles: false },
				{ fieldLabel: 'Photo_1', fieldType: 'file', multipleFiles: false },
			],
			'Form Fields JSON: field 1 (Photo 1) and field 2 (Photo_1) would both put a file under "Photo_1"',
		],
	])('%s: the form is refused before anything is sent, naming both', async (_, values, message) => {
		const result = await waitingRun(values);
		expect(result.error?.message).toBe(message);
		expect(result.error?.description).toContain('Nothing was sent.');
		expect(sendRequests()).toHaveLength(0);
		expect(result.run.waitTill).toBeUndefined();
	});

	test.each(['__proto__', '**proto**'])(
		'a file field labelled %s, whose file would go under "__proto__" and vanish: refused before anything is sent',
		async (label) => {
			const result = await waitingRun([
				{ fieldLabel: 'Parcel', fieldType: 'text' },
				{ fieldLabel: label, fieldType: 'file', multipleFiles: false },
			]);
			expect(result.error?.message).toBe(
				`Form Fields JSON: field 2 (${label}): would put its file under "__proto__", which n8n's binary data cannot hold`,
			);
			expect(result.error?.description).toContain('change the label. Nothing was sent.');
			expect(sendRequests()).toHaveLength(0);
			expect(result.run.waitTill).toBeUndefined();
		},
	);

	test('"Photo" with Multiple Files beside "Photo 1 x" and "Photo x": every file keeps a key of its own', async () => {
		// Photo gives Photo_0, Photo_1…: neither Photo_1_x nor Photo_x is one of them.
		const waiting = await waitingRun([
			{ fieldLabel: 'Photo', fieldType: 'file', multipleFiles: true },
			{ fieldLabel: 'Photo 1 x', fieldType: 'file', multipleFiles: false },
			{ fieldLabel: 'Photo x', fieldType: 'file', multipleFiles: false },
		]);
		expect(waiting.error).toBeUndefined();
		const jpeg = (name: string): Upload => ({
			filename: name,
			mimetype: 'image/jpeg',
			content: fileBytes('jpeg'),
		});
		const { items } = await send(waiting, {
			'field-0': [jpeg('a.jpg'), jpeg('b.jpg')],
			'field-1': jpeg('c.jpg'),
			'field-2': jpeg('d.jpg'),
		});
		const binary = items![0].binary!;
		expect(Object.fromEntries(Object.entries(binary).map(([key, b]) => [key, b.fileName]))).toEqual(
			{ Photo_0: 'a.jpg', Photo_1: 'b.jpg', Photo_1_x: 'c.jpg', Photo_x: 'd.jpg' },
		);
	});
});

/** The first bytes of a ZIP whose first entries are `names` (local file headers, no data). */
function zipWith(...names: string[]): Buffer {
	return Buffer.concat(
		names.map((name) => {
			const header = Buffer.alloc(30);
			header.write('PK\x03\x04', 0, 'latin1');
			header.writeUInt16LE(Buffer.byteLength(name), 26);
			return Buffer.concat([header, Buffer.from(name)]);
		}),
	);
}

const padded = (head: Buffer | string, size = 512) => {
	const bytes = Buffer.alloc(size, 0x20);
	Buffer.from(head as string, typeof head === 'string' ? 'latin1' : undefined).copy(bytes);
	return bytes;
};

/** Contents by what they are, whatever a file is named. */
const CONTENT = {
	jpeg: fileBytes('jpeg'),
	png: fileBytes('png'),
	pdf: fileBytes('pdf'),
	html: padded('\n  <!DOCTYPE html><html><body><script>alert(document.cookie)</script>'),
	svg: padded(
		'<?xml version="1.0" encoding="UTF-8"?>\n<!-- drawn -->\n<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>',
	),
	zip: padded(zipWith('holiday/IMG_1.jpg', 'holiday/IMG_2.jpg')),
	docx: padded(zipWith('[Content_Types].xml', '_rels/.rels', 'word/document.xml')),
	xlsx: padded(zipWith('[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml')),
	mp4: padded('\x00\x00\x00\x20ftypisom\x00\x00\x02\x00isomiso2avc1mp41'),
	mp3: padded('ID3\x04\x00\x00\x00\x00\x00\x00'),
	exe: padded('MZ\x90\x00\x03\x00\x00\x00\x04\x00'),
	text: padded('date,reading\n2026-11-20,10432.7\n'),
	/** Text whose first letters are a bitmap's and an MP3 tag's signatures. */
	carsText: padded('BMW,320d,2019\nID3,badge,2020\n'),
	unknown: padded('\x00\x01\x02\x03 proprietary'),
};

const fileField = (acceptFileTypes: string) => [
	{ fieldLabel: 'Photo', fieldType: 'file', multipleFiles: false, acceptFileTypes },
];

describe('a file is checked by its content, also where Accepted File Types names extensions', () => {
	test.each([
		['.jpg', 'photo.jpg', 'image/jpeg', 'html', 'its content is text/html'],
		['.jpg', 'photo.jpg', 'image/jpeg', 'svg', 'its content is image/svg+xml'],
		['.jpg', 'photo.jpg', 'image/jpeg', 'zip', 'its content is application/zip'],
		['.jpg', 'photo.jpg', 'image/jpeg', 'exe', 'its content is application/x-msdownload'],
		[
			'.jpg',
			'photo.jpg',
			'image/jpeg',
			'unknown',
			'its content is not a kind of file this node recognises',
		],
		[
			'.jpg',
			'photo.jpg',
			'image/jpeg',
			'text',
			'its content is not a kind of file this node recognises',
		],
		['.jpg, .png', 'photo.jpg', 'image/jpeg', 'png', 'its content is image/png'],
		['.pdf', 'invoice.pdf', 'application/pdf', 'html', 'its content is text/html'],
		['.docx', 'report.docx', 'application/octet-stream', 'zip', 'its content is application/zip'],
		[
			'.docx',
			'report.docx',
			'application/octet-stream',
			'xlsx',
			'its content is application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
		],
		['.csv', 'readings.csv', 'text/csv', 'html', 'its content is text/html'],
		[
			'.mp4',
			'clip.mp4',
			'video/mp4',
			'unknown',
			'its content is not a kind of file this node recognises',
		],
		['image/*', 'photo.jpg', 'image/jpeg', 'svg', 'its content is image/svg+xml'],
		['video/*', 'clip.mp4', 'video/mp4', 'html', 'its content is text/html'],
	])(
		'Accepted %s: %s (%s) whose content is %s is refused, the field named',
		async (accept, filename, mimetype, kind, what) => {
			const waiting = await waitingRun(fileField(accept));
			const content = CONTENT[kind as keyof typeof CONTENT];
			const refused = await send(waiting, { 'field-0': { filename, mimetype, content } });
			expect(refused.resumed).toBeUndefined();
			expect(refused.response.statusCode).toBe(400);
			const types = accept
				.split(',')
				.map((entry) => entry.trim())
				.join(',');
			expect(refused.response.body).toContain(
				`Photo: ${filename} is not what it says: ${what}, not one of the accepted types (${types}).`,
			);
		},
	);

	test.each([
		['.jpg', 'photo.jpg', 'image/jpeg', 'jpeg'],
		['.jpeg, .pdf', 'scan.pdf', 'application/pdf', 'pdf'],
		[
			'.docx',
			'report.docx',
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			'docx',
		],
		['.xlsx', 'readings.xlsx', 'application/octet-stream', 'xlsx'],
		['.zip', 'photos.zip', 'application/zip', 'zip'],
		['.csv', 'readings.csv', 'text/csv', 'text'],
		['.csv', 'cars.csv', 'text/csv', 'carsText'],
		['.mp4', 'clip.mp4', 'video/mp4', 'mp4'],
		['audio/*', 'note.mp3', 'audio/mpeg', 'mp3'],
		['video/*', 'clip.mp4', 'video/mp4', 'mp4'],
	])(
		'Accepted %s: %s (%s) whose content is %s is taken',
		async (accept, filename, mimetype, kind) => {
			const waiting = await waitingRun(fileField(accept));
			const content = CONTENT[kind as keyof typeof CONTENT];
			const { items, response } = await send(waiting, {
				'field-0': { filename, mimetype, content },
			});
			expect(response.statusCode).toBe(200);
			expect(Buffer.from(items![0].binary!.Photo.data, 'base64').equals(content)).toBe(true);
		},
	);

	test('the page says before upload that files are checked by their content', async () => {
		const waiting = await waitingRun(fileField('.jpg, .png'));
		const { response } = await answer(waiting, { method: 'GET', link: linksSent(ctx.sim)[0] });
		expect(response.body).toContain(
			'<p class="hint">Up to 25 MB. Accepted: .jpg, .png, by name and by content: a file renamed is refused.</p>',
		);
	});
});

describe('what a phone sends', () => {
	test('an empty file (a photo still in the cloud) is refused as empty, the field named', async () => {
		const waiting = await waitingRun(fileField('image/*'));
		const empty = { filename: 'IMG_5120.HEIC', mimetype: 'image/heic', content: Buffer.alloc(0) };
		const refused = await send(waiting, { 'field-0': empty });
		expect(refused.response.statusCode).toBe(400);
		expect(refused.response.body).toContain(
			'Photo: IMG_5120.HEIC is empty (0 bytes): a file kept in the cloud, such as a photo not yet downloaded, may need to download to the phone first. Choose it again.',
		);
		expect(refused.resumed).toBeUndefined();
	});

	test('a PNG posted as photo.jpg with image/jpeg, for image/*: stored as what it is, image/png, photo.png', async () => {
		const waiting = await waitingRun(fileField('image/*'));
		const png = { filename: 'photo.jpg', mimetype: 'image/jpeg', content: CONTENT.png };
		const { items } = await send(waiting, { 'field-0': png });
		expect(items![0].json.data).toEqual({
			Photo: { filename: 'photo.png', mimetype: 'image/png', size: CONTENT.png.length },
		});
		expect(items![0].binary!.Photo).toMatchObject({
			fileName: 'photo.png',
			mimeType: 'image/png',
			fileExtension: 'png',
		});
	});

	test('sizes in decimal megabytes, as phones and n8n show them: 25 MB is 25,000,000 bytes', async () => {
		const waiting = await waitingRun(fileField('image/*'));
		const { response } = await answer(waiting, { method: 'GET', link: linksSent(ctx.sim)[0] });
		expect(response.body).toContain('data-max-bytes="25000000"');
		expect(response.body).toContain('<p class="hint">Up to 25 MB.');
		const large = Buffer.alloc(27_000_000, 0x20);
		fileBytes('jpeg').copy(large);
		const refused = await send(waiting, {
			'field-0': { filename: 'IMG_4031.jpg', mimetype: 'image/jpeg', content: large },
		});
		expect(refused.response.body).toContain(
			'Photo: IMG_4031.jpg is 27 MB; this field takes files up to 25 MB.',
		);
		const justUnder = large.subarray(0, 25_000_000);
		const { items } = await send(waiting, {
			'field-0': { filename: 'IMG_4032.jpg', mimetype: 'image/jpeg', content: justUnder },
		});
		expect(items![0].binary!.Photo.bytes).toBe(25_000_000);
	});
});
