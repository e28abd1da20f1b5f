// End to end, in a real n8n on every line, as a recipient's phone posts the page: the six other
// field types of n8n's forms (checkboxes, radio buttons, password, hidden field, HTML, a photo),
// each rule the page states refused on the server with the field named while the wait goes on,
// the answer typed with the photo as binary data; the headers of every page the node answers; a
// link a phone cannot reach refused before anything is sent; and the proof-of-delivery example.
import {
	fileBytes,
	MORE_FIELD_TYPES,
	SANITIZED_NOTICE,
	SEND_AND_WAIT,
} from '../helpers/approval-fixtures';
import { fileOf, postForm } from './form-post';
import { expectPageHeaders } from './page-headers';
import { lineSession } from './line-session';
import {
	codeNode,
	linearWorkflow,
	lines,
	pageServed,
	sleep,
	until,
	type WorkflowNode,
} from './n8n-rest';

const APPROVAL = 'n8n-nodes-sms-messaging.smsMessagingApproval';
// Sizes in decimal megabytes, as phones and n8n show them.
const MB = 1_000_000;

const ROWS = codeNode(
	`return ${JSON.stringify([{ json: { phone: '254712000001', text: 'Meter M-7: reading and photo, please' } }])};`,
);

const photo = (bytes = fileBytes('jpeg'), name = 'meter.jpg') => fileOf(name, 'image/jpeg', bytes);

/** MORE_FIELD_TYPES answered well, in the page's order, the end marker last. */
const good = (file: File = photo()): Array<[string, string | File]> => [
	['field-0', 'seal'],
	['field-0', 'meter'],
	['field-1', 'back door'],
	['field-2', ' s3cret '],
	['field-5', file],
	['whole', '1'],
];

/** `good` with the entries of `name` replaced. */
const withField = (name: string, ...values: Array<string | File>) => {
	const entries = good().filter(([key]) => key !== name);
	return [...values.map((value): [string, string | File] => [name, value]), ...entries];
};

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s',
	(line, endpoints) => {
		const { n8n, credential } = lineSession(endpoints, 'Approval fields');

		const approvalNode = (
			id: string,
			parameters: Record<string, unknown>,
			use = credential,
		): WorkflowNode => ({
			id,
			name: 'Approval',
			type: APPROVAL,
			typeVersion: 1,
			parameters: { ...SEND_AND_WAIT, ...parameters },
			credentials: { smsMessagingApi: use },
		});

		const runs = (executionId: string, node = 'Approval') => n8n.executionRuns(executionId, node);
		const finished = (executionId: string, node = 'Approval') =>
			until(
				() => n8n.executionOutput(executionId, node),
				(execution) =>
					!['new', 'running', 'waiting'].includes(execution.status) && execution.items.length > 0,
			);

		async function start(id: string) {
			const workflowData = await n8n.rest<Record<string, unknown>>('GET', `/workflows/${id}`);
			const { executionId } = await n8n.rest<{ executionId: string }>(
				'POST',
				`/workflows/${id}/run`,
				{ workflowData, triggerToStartFrom: { name: 'Run manually' }, startNodes: [] },
			);
			return executionId;
		}

		/** Runs a workflow until `node` waits; gives the execution and the first SMS's link. */
		async function waiting(id: string, node = 'Approval') {
			const executionId = await start(id);
			await until(
				() => runs(executionId, node),
				(execution) => execution.status === 'waiting',
			);
			const [send] = await until(
				async () => (await n8n.simRequests()).filter((r) => r.host === 'send'),
				(found) => found.length > 0,
			);
			const link = send.body.envelopes![0].message.split('\n')[1];
			await pageServed(link);
			return { executionId, link };
		}

		async function started(nodeId: string, parameters: Record<string, unknown>) {
			const { id } = await n8n.createWorkflow(
				linearWorkflow(`Approval fields ${Date.now()}`, [ROWS, approvalNode(nodeId, parameters)]),
			);
			return await waiting(id);
		}

		const more = { responseType: 'customForm', formFields: { values: MORE_FIELD_TYPES } };

		test('the six other types: each rule the page states refused and named, the wait goes on; a good answer typed, the photo as binary data', async () => {
			const { executionId, link } = await started('c4a1e2d3-0000-4000-8000-000000000201', more);
			const page = await fetch(link);
			expect(page.status).toBe(200);
			expectPageHeaders(page);
			const html = await page.text();
			expect(html).toContain(`<div class="html">${SANITIZED_NOTICE}</div>`);
			expect(html).toContain('accept="image/*"');
			expect(html).not.toContain('A-2291');

			const pdf = fileBytes('pdf');
			const refusals: Array<[Array<[string, string | File]>, string]> = [
				[withField('field-0', 'seal', 'meter', 'cable'), 'Checks done: Choose exactly 2 options.'],
				[withField('field-1', 'window'), 'Access: Choose an option of the list.'],
				[withField('field-2', ''), 'PIN: This field is required.'],
				[withField('field-5'), 'Meter photo: Choose a file.'],
				[
					withField('field-5', fileOf('invoice.pdf', 'application/pdf', pdf)),
					'Meter photo: invoice.pdf is not one of the accepted types (image/*).',
				],
				[
					withField('field-5', fileOf('photo.jpg', 'image/jpeg', pdf)),
					'Meter photo: photo.jpg is not what it says: its content is application/pdf',
				],
				[
					withField(
						'field-5',
						fileOf(
							'photo.jpg',
							'image/jpeg',
							Buffer.from('<!DOCTYPE html><html><script>x()</script>'),
						),
					),
					'Meter photo: photo.jpg is not what it says: its content is text/html',
				],
				[
					withField('field-5', photo(fileBytes('jpeg', 12 * MB), 'IMG_4031.jpg')),
					'Meter photo: IMG_4031.jpg is 12 MB; this field takes files up to 10 MB.',
				],
				[withField('field-5', photo(), photo()), 'Meter photo: Choose one file.'],
			];
			for (const [entries, problem] of refusals) {
				const refused = await postForm(link, entries);
				expect(refused.status).toBe(400);
				expectPageHeaders(refused);
				const text = await refused.text();
				expect(text).toContain(problem);
				// The rest as given, the password never sent back.
				if (!problem.startsWith('Access'))
					expect(text).toContain('value="back door" required checked>');
				expect(text).not.toContain('s3cret');
			}
			await sleep(1_000);
			expect((await runs(executionId)).status).toBe('waiting');

			// A hidden field's value changed by the client, and the HTML: the node's own come out.
			const answered = await postForm(link, [
				['field-3', 'B-9999'],
				['field-4', 'changed'],
				...good(),
			]);
			expect(answered.status).toBe(200);
			expectPageHeaders(answered);
			const done = await finished(executionId);
			expect(done.status).toBe('success');
			const [item] = done.items as Array<{
				json: unknown;
				binary: Record<string, Record<string, unknown>>;
			}>;
			expect(item.json).toEqual({
				data: {
					'Checks done': ['seal', 'meter'],
					Access: 'back door',
					PIN: ' s3cret ',
					orderId: 'A-2291',
					notice: SANITIZED_NOTICE,
					'Meter photo': { filename: 'meter.jpg', mimetype: 'image/jpeg', size: 2_048 },
				},
				answeredBy: '254712000001',
			});
			expect(Object.keys(item.binary)).toEqual(['Meter_photo']);
			expect(item.binary.Meter_photo).toMatchObject({
				fileName: 'meter.jpg',
				mimeType: 'image/jpeg',
			});
		});

		test('Using JSON, several files, and a 12 MB photo under the default limit (25 MB): taken whole', async () => {
			const { executionId, link } = await started('c4a1e2d3-0000-4000-8000-000000000202', {
				responseType: 'customForm',
				defineForm: 'json',
				jsonOutput: JSON.stringify([
					{
						fieldLabel: 'Photos',
						fieldType: 'file',
						multipleFiles: true,
						acceptFileTypes: '.jpg, .png',
						requiredField: true,
					},
				]),
			});
			expect(await (await fetch(link)).text()).toContain(
				'<p class="hint">Up to 25 MB per file. Accepted: .jpg, .png, by name and by content: a file renamed is refused.</p>',
			);
			const gif = fileOf('seal.gif', 'image/gif', Buffer.from('GIF89a'));
			const refused = await postForm(link, [
				['field-0', gif],
				['whole', '1'],
			]);
			expect(refused.status).toBe(400);
			expect(await refused.text()).toContain(
				'Photos: seal.gif is not one of the accepted types (.jpg,.png).',
			);
			const large = photo(fileBytes('jpeg', 12 * MB), 'IMG_4031.jpg');
			const png = fileOf('seal.png', 'image/png', fileBytes('png'));
			const answered = await postForm(link, [
				['field-0', large],
				['field-0', png],
				['whole', '1'],
			]);
			expect(answered.status).toBe(200);
			const done = await finished(executionId);
			const [item] = done.items as Array<{
				json: { data: unknown };
				binary: Record<string, Record<string, unknown>>;
			}>;
			expect(item.json.data).toEqual({
				Photos: [
					{ filename: 'IMG_4031.jpg', mimetype: 'image/jpeg', size: 12 * MB },
					{ filename: 'seal.png', mimetype: 'image/png', size: 2_048 },
				],
			});
			expect(Object.keys(item.binary)).toEqual(['Photos_0', 'Photos_1']);
			expect(item.binary.Photos_0).toMatchObject({
				fileName: 'IMG_4031.jpg',
				mimeType: 'image/jpeg',
			});
		});

		test('the headers of the approval page, a refused choice, "too late", and "not valid" where n8n lets the node answer it', async () => {
			const { link } = await started('c4a1e2d3-0000-4000-8000-000000000203', {
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 0.05, resumeUnit: 'minutes' },
					},
				},
			});
			const page = await fetch(link);
			expect(page.status).toBe(200);
			expectPageHeaders(page);
			const refused = await postForm(link, { approved: 'maybe' });
			expect(refused.status).toBe(400);
			expectPageHeaders(refused);
			const forged = new URL(link);
			forged.searchParams.set('k', `0.${'A'.repeat(22)}`);
			const invalid = await fetch(forged);
			if (line === '1.82') {
				// n8n 1.82 signs no link: the node itself refuses it.
				expect(invalid.status).toBe(403);
				expectPageHeaders(invalid);
			} else {
				// n8n checks its signature over the whole query first and answers itself.
				expect(invalid.status).toBe(401);
			}
			await sleep(4_000);
			const late = await postForm(link, { approved: 'true' });
			// n8n's wait tracker may have resumed the execution already, and then answers itself.
			if (late.status === 410) {
				expect(await late.text()).toContain('This request has expired');
				expectPageHeaders(late);
			} else {
				expect(await late.text()).toMatch(/No action required|is running already/);
			}
		});

		test('a link a phone cannot reach (n8n without WEBHOOK_URL) and an API elsewhere: nothing sent, the error says to set WEBHOOK_URL', async () => {
			const elsewhere = await n8n.createCredential(`API elsewhere ${Date.now()}`, {
				baseUrl: 'http://api.example.com/api/v3',
				sendBaseUrl: 'http://send.example.com/api/v3',
			});
			const { id } = await n8n.createWorkflow(
				linearWorkflow(`Approval unreachable ${Date.now()}`, [
					ROWS,
					approvalNode('c4a1e2d3-0000-4000-8000-000000000204', {}, elsewhere),
				]),
			);
			const executionId = await start(id);
			const failed = await until(
				() => n8n.executionError(executionId),
				// n8n 1.82 can say error before it saved the error.
				(execution) => execution.status === 'error' && execution.error !== undefined,
			);
			expect(failed.error?.message).toContain(
				'an address a phone cannot reach (127.0.0.1 is local to this n8n), while the SMS go out through send.example.com',
			);
			expect(failed.error?.description).toContain(
				"Set n8n's WEBHOOK_URL to the address phones can reach",
			);
			expect((await n8n.simRequests()).filter((r) => r.host === 'send')).toHaveLength(0);
		});

		test('example: proof of delivery, a photo and a box from the driver, the photo goes on as binary data', async () => {
			const { executionId, link } = await waiting('exProofOfDelivery', 'Ask the driver for proof');
			const form = await (await fetch(link)).text();
			expect(form).toContain(
				'Parcel P-3107, 12 Kenyatta Ave: send a photo of the delivered parcel.',
			);
			expect(form).toContain('accept="image/*"');
			const answered = await postForm(link, [
				['field-0', photo(fileBytes('jpeg', 3 * MB), 'parcel.jpg')],
				['field-1', 'to a neighbour'],
				['whole', '1'],
			]);
			expect(answered.status).toBe(200);
			const done = await finished(executionId, 'Proof');
			const [item] = done.items as Array<{
				json: unknown;
				binary: Record<string, Record<string, unknown>>;
			}>;
			expect(item.json).toEqual({
				parcel: 'P-3107',
				driver: '254700000003',
				handedOver: 'to a neighbour',
				photo: 'parcel.jpg',
			});
			expect(item.binary.photo).toMatchObject({ fileName: 'parcel.jpg', mimeType: 'image/jpeg' });
		});
	},
);
