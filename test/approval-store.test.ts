// SMS Messaging Approval's file fields, part six: a link holder cannot fill n8n's binary data
// store. n8n's binary data on disk (filesystem mode, n8n 2.x's default), through n8n-core's engine
// and WebhookContext against the simulator; what each answer stored is counted on the disk.
import { BinaryDataService } from 'n8n-core';
import type { INodeParameters } from 'n8n-workflow';

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { answer, approvalRun, linksSent, type Upload } from './helpers/approval';
import { fileBytes } from './helpers/approval-fixtures';
import type { RunResult } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

// n8n-core resolves its services from its own copy of @n8n/di (as test/helpers/poll.ts does).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Container } = require(
	require.resolve('@n8n/di', { paths: [require.resolve('n8n-core')] }),
) as typeof import('@n8n/di');

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-store-test-secret';
const storage = mkdtempSync(join(tmpdir(), 'sms-approval-binary-data-'));
const userFolder = mkdtempSync(join(tmpdir(), 'sms-approval-n8n-'));
process.env.N8N_USER_FOLDER = userFolder;
process.env.N8N_DEFAULT_BINARY_DATA_MODE = 'filesystem';
process.env.N8N_BINARY_DATA_STORAGE_PATH = storage;

beforeAll(async () => {
	await Container.get(BinaryDataService).init();
});
afterAll(() => {
	for (const dir of [storage, userFolder]) rmSync(dir, { recursive: true, force: true });
});

const ctx = useSimulator();

const DRIVERS = [
	{ phone: '254712345678', text: 'Parcel P-77: proof of delivery' },
	{ phone: '254799000111', text: 'Parcel P-78: proof of delivery' },
];

/** The files n8n's binary data holds on disk (each with a metadata file beside it). */
function storedFiles(dir = storage): number {
	return readdirSync(dir, { withFileTypes: true }).reduce(
		(count, entry) =>
			entry.isDirectory()
				? count + storedFiles(join(dir, entry.name))
				: count + (entry.name.endsWith('.metadata') ? 0 : 1),
		0,
	);
}

const waitingRun = (field: object) =>
	approvalRun(ctx.credentials, DRIVERS, {
		responseType: 'customForm',
		defineForm: 'json',
		jsonOutput: JSON.stringify([{ fieldLabel: 'Photo', fieldType: 'file', ...field }]),
	} as INodeParameters);

const send = (waiting: RunResult, files: Upload | Upload[], recipient = 0) =>
	answer(waiting, {
		method: 'POST',
		link: linksSent(ctx.sim)[recipient],
		body: { whole: '1' },
		files: { 'field-0': files },
	});

const jpeg = (filename: string): Upload => ({
	filename,
	mimetype: 'image/jpeg',
	content: fileBytes('jpeg'),
});
/** A megabyte that is no JPEG, sent as one. */
const notJpeg: Upload = { filename: 'x.jpg', mimetype: 'image/jpeg', content: Buffer.alloc(1e6) };

test('a loop posting bytes that are no JPEG as x.jpg: three answers refused for their content store their file, later ones store nothing and are told so; another recipient’s link still answers', async () => {
	const waiting = await waitingRun({ acceptFileTypes: '.jpg', multipleFiles: false });
	const before = storedFiles();
	const seen: Array<[number, number]> = [];
	for (let post = 0; post < 5; post++) {
		const { response, resumed } = await send(waiting, notJpeg);
		expect(resumed).toBeUndefined();
		seen.push([response.statusCode, storedFiles() - before]);
		if (post >= 3) {
			expect(response.body).toContain(
				'Photo: Nothing was stored: this link sent files that were not what they said too often, and takes no more files. Ask the sender for a new link.',
			);
		} else {
			expect(response.body).toContain('Photo: x.jpg is not what it says');
		}
	}
	expect(seen).toEqual([
		[400, 1],
		[400, 2],
		[400, 3],
		[429, 3],
		[429, 3],
	]);
	const { response, items } = await send(waiting, jpeg('parcel.jpg'), 1);
	expect(response.statusCode).toBe(200);
	expect(items![0].binary!.Photo).toMatchObject({ fileName: 'parcel.jpg', mimeType: 'image/jpeg' });
	expect(storedFiles() - before).toBe(4);
});

test.each([
	['Max Files 3', { maxFiles: 3 }, 4, 'Choose at most 3 files.'],
	['the default Max Files, 50', {}, 51, 'Choose at most 50 files.'],
])(
	'%s: an answer of more files is refused before any is stored',
	async (_, field, count, problem) => {
		const waiting = await waitingRun({ multipleFiles: true, ...field });
		const before = storedFiles();
		const files = Array.from({ length: count }, (__, at) => jpeg(`IMG_${at}.jpg`));
		const refused = await send(waiting, files);
		expect(refused.response.statusCode).toBe(400);
		expect(refused.response.body).toContain(`Photo: ${problem}`);
		expect(refused.resumed).toBeUndefined();
		expect(storedFiles() - before).toBe(0);
		const { items } = await send(waiting, files.slice(1));
		expect(Object.keys(items![0].binary!)).toHaveLength(count - 1);
		expect(storedFiles() - before).toBe(count - 1);
	},
);

test('an answer whose second file is refused by its content stores nothing after it', async () => {
	const waiting = await waitingRun({ acceptFileTypes: '.jpg', multipleFiles: true });
	const before = storedFiles();
	const refused = await send(waiting, [jpeg('a.jpg'), notJpeg, jpeg('c.jpg'), jpeg('d.jpg')]);
	expect(refused.response.statusCode).toBe(400);
	expect(refused.response.body).toContain('Photo: x.jpg is not what it says');
	expect(storedFiles() - before).toBe(2);
});
