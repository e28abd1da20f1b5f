// A photo from a phone, in Chromium sized as a phone (375 px wide, touch), through a real n8n on
// every line: the page is one column, its file input offers the camera, its own style and script
// run under its Content-Security-Policy and nothing else does; a 12 MB photo over the stated
// limit is refused before it is sent (with the page's script) or by the node (without it), one
// under the limit shows that it is sending and arrives whole; an optional file field left empty
// does not cut the answer.
import net from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import { fileBytes, SEND_AND_WAIT } from '../helpers/approval-fixtures';
import { lineSession } from './line-session';
import { launchChromium } from './sign-in';
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
	`return ${JSON.stringify([{ json: { phone: '254712000001', text: 'Parcel P-3107: a photo of the delivered parcel, please' } }])};`,
);

/** A photo field (10 MB at most), a box to tick, an optional second photo, and HTML that tries to run script. */
const FIELDS = [
	{
		fieldLabel: 'Photo',
		fieldType: 'file',
		acceptFileTypes: 'image/*',
		multipleFiles: false,
		maxFileSizeMb: 10,
		requiredField: true,
	},
	{
		fieldLabel: 'Handed over',
		fieldType: 'checkbox',
		fieldOptions: { values: [{ option: 'to the customer' }, { option: 'to a neighbour' }] },
		limitSelection: 'exact',
		numberOfSelections: 1,
		requiredField: true,
	},
	{
		fieldLabel: 'Another photo',
		fieldType: 'file',
		acceptFileTypes: 'image/*',
		multipleFiles: false,
	},
	{
		fieldType: 'html',
		html: '<p>Keep the label readable.</p><script>alert("html field")</script><img src="x" onerror="alert(1)">',
	},
];

const PHONE = {
	viewport: { width: 375, height: 740 },
	deviceScaleFactor: 2,
	isMobile: true,
	hasTouch: true,
	userAgent:
		'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
};

/**
 * A port on 127.0.0.1 that forwards to n8n's, passing on what the browser sends at
 * `bytesPerSecond` at most (an upload as slow as a phone's), each request's Host made n8n's own.
 */
async function throttledForwarder(port: number, bytesPerSecond: number) {
	const sockets = new Set<net.Socket>();
	const server = net.createServer((client) => {
		const upstream = net.connect(port, '127.0.0.1');
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.on('error', () => {
				client.destroy();
				upstream.destroy();
			});
		}
		upstream.pipe(client);
		client.on('data', (chunk: Buffer) => {
			// n8n 1.x signs the link with its host: the request says n8n's own.
			const own = `\r\nhost: 127.0.0.1:${(server.address() as net.AddressInfo).port}\r\n`;
			const text = chunk.toString('latin1');
			const at = text.toLowerCase().indexOf(own);
			upstream.write(
				at < 0
					? chunk
					: Buffer.from(
							`${text.slice(0, at)}\r\nHost: 127.0.0.1:${port}\r\n${text.slice(at + own.length)}`,
							'latin1',
						),
			);
			client.pause();
			setTimeout(() => client.resume(), (chunk.length / bytesPerSecond) * 1000);
		});
		client.on('end', () => upstream.end());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		port: (server.address() as net.AddressInfo).port,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

const photoFile = (name: string, bytes: number) => ({
	name,
	mimeType: 'image/jpeg',
	buffer: fileBytes('jpeg', bytes),
});

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s, a phone',
	(line, endpoints) => {
		const { n8n, credential } = lineSession(endpoints, 'Approval phone');
		let browser: Browser;

		beforeAll(async () => {
			browser = await launchChromium();
		});
		afterAll(async () => await browser?.close());

		const node: WorkflowNode = {
			id: 'e5b2f3a4-0000-4000-8000-000000000301',
			name: 'Approval',
			type: APPROVAL,
			typeVersion: 1,
			parameters: { ...SEND_AND_WAIT, responseType: 'customForm', formFields: { values: FIELDS } },
			credentials: { smsMessagingApi: credential },
		};

		/** A new waiting execution; its link, and the approval node's output once it finishes. */
		async function waitingLink() {
			const { id } = await n8n.createWorkflow(linearWorkflow(`Phone ${Date.now()}`, [ROWS, node]));
			const workflowData = await n8n.rest<Record<string, unknown>>('GET', `/workflows/${id}`);
			const { executionId } = await n8n.rest<{ executionId: string }>(
				'POST',
				`/workflows/${id}/run`,
				{
					workflowData,
					triggerToStartFrom: { name: 'Run manually' },
					startNodes: [],
				},
			);
			await until(
				() => n8n.executionRuns(executionId, 'Approval'),
				(execution) => execution.status === 'waiting',
			);
			const [send] = await until(
				async () => (await n8n.simRequests()).filter((r) => r.host === 'send'),
				(found) => found.length > 0,
			);
			const link = send.body.envelopes![0].message.split('\n')[1];
			await pageServed(link);
			const output = () =>
				until(
					() => n8n.executionOutput(executionId, 'Approval'),
					(execution) => execution.status === 'success' && execution.items.length > 0,
				);
			const status = async () => (await n8n.executionOutput(executionId, 'Approval')).status;
			return { link, output, status };
		}

		/** A phone's page of the link, recording what the page's policy blocked and any dialog. */
		async function phonePage(link: string, javaScriptEnabled = true) {
			const context: BrowserContext = await browser.newContext({ ...PHONE, javaScriptEnabled });
			const page: Page = await context.newPage();
			const blocked: string[] = [];
			const dialogs: string[] = [];
			page.on('console', (message) => {
				if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
			});
			page.on('dialog', async (dialog) => {
				dialogs.push(dialog.message());
				await dialog.dismiss();
			});
			const posts: string[] = [];
			page.on('request', (request) => {
				if (request.method() === 'POST') posts.push(request.url());
			});
			await page.goto(link);
			return { context, page, blocked, dialogs, posts };
		}

		test('one column at 375 px, a file input that offers the camera, the page’s own style and script and nothing else', async () => {
			const { link } = await waitingLink();
			const { context, page, blocked, dialogs } = await phonePage(link);
			const blocks = await page.locator('form > div, form > button').all();
			const layout = {
				// Strings, evaluated in the page: the browser's own numbers.
				scrollWidth: (await page.evaluate('document.documentElement.scrollWidth')) as number,
				width: (await page.evaluate('window.innerWidth')) as number,
				blocks: await Promise.all(
					blocks.map(async (block) => {
						const box = (await block.boundingBox())!;
						return { x: box.x, width: box.width, top: box.y, bottom: box.y + box.height };
					}),
				),
				accept: await page.locator('input[type=file]').first().getAttribute('accept'),
				button: (await page.evaluate(
					"getComputedStyle(document.querySelector('button')).backgroundColor",
				)) as string,
			};
			expect(layout.width).toBe(375);
			expect(layout.scrollWidth).toBeLessThanOrEqual(375);
			expect(layout.blocks.length).toBeGreaterThanOrEqual(4);
			for (const [index, block] of layout.blocks.entries()) {
				expect(block.x).toBe(layout.blocks[0].x);
				expect(block.x + block.width).toBeLessThanOrEqual(375);
				if (index > 0) expect(block.top).toBeGreaterThanOrEqual(layout.blocks[index - 1].bottom);
			}
			expect(layout.accept).toBe('image/*');
			// The style block ran under its hash: the button is the page's green.
			expect(layout.button).toBe('rgb(26, 127, 55)');
			await sleep(500);
			expect(dialogs).toEqual([]);
			expect(blocked).toEqual([]);
			await context.close();
		});

		test('a 12 MB photo over the 10 MB the page states: the page refuses it before sending a byte', async () => {
			const { link, status } = await waitingLink();
			const { context, page, posts } = await phonePage(link);
			await page.setInputFiles('#field-0', photoFile('IMG_4031.jpg', 12 * MB));
			await page.check('input[value="to the customer"]');
			await page.click('button[type=submit]');
			// Under the field it concerns, in the words the node uses; a line above the form says why
			// nothing was sent.
			const problem = page.locator('#field-0-error');
			await problem.waitFor();
			expect(await problem.textContent()).toBe(
				'Photo: IMG_4031.jpg is 12 MB; this field takes files up to 10 MB.',
			);
			expect(await page.locator('#upload-problem').textContent()).toBe(
				'Nothing was sent: one field needs another answer.',
			);
			expect(posts).toEqual([]);
			expect(await status()).toBe('waiting');
			await context.close();
		});

		test('after a file refused by its content, a file too large: the new error replaces the old one under the field', async () => {
			const { link, status } = await waitingLink();
			const { context, page, posts } = await phonePage(link);
			// Text renamed photo.jpg: refused by the node after the upload, under the field.
			await page.setInputFiles('#field-0', {
				name: 'photo.jpg',
				mimeType: 'image/jpeg',
				buffer: Buffer.from('not a photo at all\n'.repeat(50)),
			});
			await page.check('input[value="to the customer"]');
			const [response] = await Promise.all([
				page.waitForResponse((r) => r.request().method() === 'POST'),
				page.click('button[type=submit]'),
			]);
			expect(response.status()).toBe(400);
			await page.waitForLoadState();
			expect(await page.locator('#field-0-error').textContent()).toContain(
				'Photo: photo.jpg is not what it says',
			);
			posts.length = 0;
			await page.setInputFiles('#field-0', photoFile('IMG_4031.jpg', 12 * MB));
			await page.click('button[type=submit]');
			await until(
				() => page.locator('#field-0-error').textContent(),
				(text) => text !== null && text.includes('12 MB'),
			);
			// One error under the field, the one about the file chosen now.
			const shown = await page.locator('p.error:visible').allTextContents();
			expect(shown).toEqual([
				'Nothing was sent: one field needs another answer.',
				'Photo: IMG_4031.jpg is 12 MB; this field takes files up to 10 MB.',
			]);
			expect(posts).toEqual([]);
			expect(await status()).toBe('waiting');
			await context.close();
		});

		test('two boxes ticked where exactly 1 is asked, or a file of a type not accepted: refused on the page before the photo uploads', async () => {
			const { link, output } = await waitingLink();
			const { context, page, posts } = await phonePage(link);
			await page.setInputFiles('#field-0', photoFile('IMG_4035.jpg', 3 * MB));
			await page.check('input[value="to the customer"]');
			await page.check('input[value="to a neighbour"]');
			await page.setInputFiles('#field-2', {
				name: 'notes.txt',
				mimeType: 'text/plain',
				buffer: Buffer.from('notes'),
			});
			await page.click('button[type=submit]');
			await page.locator('#field-1-error').waitFor();
			expect(await page.locator('p.error:visible').allTextContents()).toEqual([
				'Nothing was sent: 2 fields need another answer.',
				'Handed over: Choose exactly 1 option.',
				'Another photo: notes.txt is not one of the accepted types (image/*).',
			]);
			expect(posts).toEqual([]);
			// Put right, the photo still chosen: one upload, recorded.
			await page.uncheck('input[value="to a neighbour"]');
			await page.setInputFiles('#field-2', []);
			await page.click('button[type=submit]');
			await page.getByText('Your answer was recorded').waitFor();
			expect(posts).toHaveLength(1);
			const [item] = (await output()).items as Array<{ json: { data: Record<string, unknown> } }>;
			expect(item.json.data['Handed over']).toEqual(['to the customer']);
			await context.close();
		});

		test('the same photo without JavaScript: the node refuses it, names the field and its limit', async () => {
			const { link, status } = await waitingLink();
			const { context, page } = await phonePage(link, false);
			await page.setInputFiles('#field-0', photoFile('IMG_4031.jpg', 12 * MB));
			// A file in each file field: n8n 1.x stops reading a post at an empty one (the next test).
			await page.setInputFiles('#field-2', photoFile('IMG_4030.jpg', 100_000));
			await page.check('input[value="to the customer"]');
			const [response] = await Promise.all([
				page.waitForResponse((r) => r.request().method() === 'POST'),
				page.click('button[type=submit]'),
			]);
			expect(response.status()).toBe(400);
			await page.waitForLoadState();
			expect(await page.locator('#field-0-error').textContent()).toBe(
				'Photo: IMG_4031.jpg is 12 MB; this field takes files up to 10 MB.',
			);
			// The rest as given.
			expect(await page.isChecked('input[value="to the customer"]')).toBe(true);
			expect(await status()).toBe('waiting');
			await context.close();
		});

		test('a 9 MB photo on a slow upload: "Sending…" shows, the button waits, and the photo arrives whole', async () => {
			const { link, output, status } = await waitingLink();
			// About 8 Mbit/s up, as a phone on a mobile connection: the 9 MB take some 9 s.
			const slow = await throttledForwarder(Number(new URL(link).port), MB);
			try {
				const slowLink = new URL(link);
				slowLink.port = String(slow.port);
				const context = await browser.newContext(PHONE);
				const page = await context.newPage();
				// What a person sees on the page, reported as it changes: the page's own script cannot be
				// read while the browser uploads (the page is navigating), a report sent at once can.
				const seen: Array<{ sending: boolean; disabled: boolean; execution: string }> = [];
				await page.exposeBinding(
					'reportState',
					async (_source, state: { sending: boolean; disabled: boolean }) => {
						seen.push({ ...state, execution: await status() });
					},
				);
				await page.addInitScript({
					content: `document.addEventListener('DOMContentLoaded', function () {
						var report = function () {
							var sending = document.getElementById('sending');
							if (!sending) return;
							window.reportState({ sending: !sending.hidden, disabled: document.querySelector('button[type=submit]').disabled });
						};
						new MutationObserver(report).observe(document.body, { attributes: true, subtree: true });
					});`,
				});
				await page.goto(slowLink.href);
				await page.setInputFiles('#field-0', photoFile('IMG_4032.jpg', 9 * MB));
				await page.check('input[value="to a neighbour"]');
				await page.click('button[type=submit]');
				await page.getByText('Your answer was recorded').waitFor({ timeout: 120_000 });
				// "Sending…" and the disabled button from the tap on, while the answer was on its way.
				expect(seen.at(-1)).toEqual({ sending: true, disabled: true, execution: 'waiting' });
				const done = await output();
				const [item] = done.items as Array<{ json: { data: Record<string, unknown> } }>;
				expect(item.json.data).toEqual({
					Photo: { filename: 'IMG_4032.jpg', mimetype: 'image/jpeg', size: 9 * MB },
					'Handed over': ['to a neighbour'],
					'Another photo': null,
				});
				await context.close();
			} finally {
				await slow.close();
			}
		});

		test('without JavaScript, the optional photo left empty: recorded whole on 2.x; n8n 1.x cuts the post there, and the page says what to do', async () => {
			const { link, output, status } = await waitingLink();
			const { context, page } = await phonePage(link, false);
			const answer = async (another?: number) => {
				await page.setInputFiles('#field-0', photoFile('IMG_4033.jpg', MB));
				if (another) await page.setInputFiles('#field-2', photoFile('IMG_4034.jpg', another));
				await page.check('input[value="to the customer"]');
				const [response] = await Promise.all([
					page.waitForResponse((r) => r.request().method() === 'POST'),
					page.click('button[type=submit]'),
				]);
				await page.waitForLoadState();
				return response.status();
			};
			const expected = {
				Photo: { filename: 'IMG_4033.jpg', mimetype: 'image/jpeg', size: MB },
				'Handed over': ['to the customer'],
				'Another photo': null as unknown,
			};
			if (line === '2.x') {
				expect(await answer()).toBe(200);
			} else {
				expect(await answer()).toBe(400);
				expect(await page.locator('p.error').first().textContent()).toBe(
					'Nothing was recorded: this n8n did not pass your whole answer on. It stops at a file field left empty when the page runs without JavaScript, and at a file larger than it takes. Choose a file for each file field and send again.',
				);
				expect(await status()).toBe('waiting');
				expect(await answer(2_000)).toBe(200);
				expected['Another photo'] = {
					filename: 'IMG_4034.jpg',
					mimetype: 'image/jpeg',
					size: 2_000,
				};
			}
			const done = await output();
			const [item] = done.items as Array<{ json: { data: Record<string, unknown> } }>;
			expect(item.json.data).toEqual(expected);
			await context.close();
		});
	},
);
