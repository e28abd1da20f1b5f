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
