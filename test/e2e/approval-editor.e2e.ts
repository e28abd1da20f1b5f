// SMS Messaging Approval in n8n's editor, in a real browser: the example workflows on the canvas and
// the node's panel with its fields (a file field among them), and, with several input items, what
// the output pane says beside n8n's own note for send-and-wait operations. Its screenshots go to docs/ only with SCREENSHOTS=1, as
// `npm run screenshots` sets (screenshots.ts); otherwise to a temporary folder.
import type { Browser, Page } from 'playwright-core';

import { SEND_AND_WAIT } from '../helpers/approval-fixtures';
import { signedInPage } from './sign-in';
import { describeOnNewest, NEWEST_LINE } from './lines';
import { codeNode, linearWorkflow, lines, N8n, until } from './n8n-rest';
import { screenshotPath } from './screenshots';

const APPROVAL = 'n8n-nodes-sms-messaging.smsMessagingApproval';

const endpoints = lines().find(({ line }) => line === NEWEST_LINE) ?? lines()[0];

/** The open node panel and its fields' labels, once its first field shows. */
async function panelOf(page: Page) {
	const pane = page.locator('[data-test-id=ndv]');
	await pane.locator('[data-test-id=parameter-item]').first().waitFor();
	const labels = (
		await pane
			.locator('[data-test-id=parameter-item] label')
			.evaluateAll((elements) => elements.map((element) => (element.textContent ?? '').trim()))
	).map((label) => label.replace(/FixedExpression$/, '').trim());
	return { pane, labels };
}

describeOnNewest(`SMS Messaging Approval in the editor of n8n ${endpoints.version}`, () => {
	let browser: Browser;
	let page: Page;

	beforeAll(async () => {
		({ browser, page } = await signedInPage(endpoints.n8nUrl));
	});

	afterAll(async () => await browser?.close());

	test('the example shows the node, whose panel offers its fields', async () => {
		await page.goto(`${endpoints.n8nUrl}/workflow/exApproveBulkSend`);
		const node = page.locator('[data-test-id=canvas-node]', { hasText: 'Ask for approval by SMS' });
		await node.waitFor();
		await page.screenshot({ path: screenshotPath('editor-approval-example.png') });

		await node.dblclick();
		const { pane, labels } = await panelOf(page);
		expect(labels).toEqual(
			expect.arrayContaining([
				'Credential',
				'Operation',
				'Sender ID',
				'Recipient Number',
				'Message',
				'Response Type',
				'Approval Options',
				'Options',
			]),
		);
		await pane.screenshot({ path: screenshotPath('editor-approval.png') });
	});

	test('the field report example: Response Type Custom Form and its Form Fields', async () => {
		await page.goto(`${endpoints.n8nUrl}/workflow/exFieldReport`);
		const node = page.locator('[data-test-id=canvas-node]', {
			hasText: 'Ask for the report by SMS',
		});
		await node.waitFor();
		await node.dblclick();
		const { pane, labels } = await panelOf(page);
		expect(labels).toEqual(
			expect.arrayContaining(['Response Type', 'Define Form', 'Form Fields', 'Options']),
		);
		expect(labels).not.toContain('Approval Options');
		await pane.screenshot({ path: screenshotPath('editor-approval-form.png') });
	});
});

describeOnNewest(
	`SMS Messaging Approval with a file field and several items, in the editor of n8n ${endpoints.version}`,
	() => {
		const n8n = new N8n(endpoints);
		const credential = { id: '', name: '' };
		let browser: Browser;
		let page: Page;

		beforeAll(async () => {
			await n8n.login();
			Object.assign(credential, await n8n.createCredential(`Approval editor ${Date.now()}`));
			({ browser, page } = await signedInPage(endpoints.n8nUrl));
		});

		afterAll(async () => await browser?.close());

		test('the proof-of-delivery example: its File, Radio Buttons and Hidden Field fields in the panel', async () => {
			await page.goto(`${endpoints.n8nUrl}/workflow/exProofOfDelivery`);
			const node = page.locator('[data-test-id=canvas-node]', {
				hasText: 'Ask the driver for proof',
			});
			await node.waitFor();
			// The canvas says what the node does.
			expect(await node.textContent()).toContain(
				'One SMS per item, then wait for the first answer',
			);
			await node.dblclick();
			const { pane, labels } = await panelOf(page);
			expect(labels).toEqual(
				expect.arrayContaining([
					'Form Fields',
					'Element Type',
					'Multiple Files',
					'Accepted File Types',
					'Max File Size (MB)',
					'Radio Buttons',
					'Field Name',
					'Field Value',
				]),
			);
			await pane.getByText('Accepted File Types').first().scrollIntoViewIfNeeded();
			await pane.screenshot({ path: screenshotPath('editor-approval-file.png') });
			await page.keyboard.press('Escape');
		});

		test('three input items: beside n8n’s "run only once, for the first input item", the node says it sends one SMS per item, and it does', async () => {
			await n8n.simReset();
			const { id } = await n8n.createWorkflow(
				linearWorkflow(`Editor approval items ${Date.now()}`, [
					codeNode(
						`return ${JSON.stringify(['254712000001', '254712000002', '254712000003'].map((phone) => ({ json: { phone, text: 'Proof of delivery, please' } })))};`,
					),
					{
						id: 'f6c3a4b5-0000-4000-8000-000000000401',
						name: 'Ask for proof',
						type: APPROVAL,
						typeVersion: 1,
						parameters: {
							...SEND_AND_WAIT,
							responseType: 'customForm',
							formFields: {
								values: [
									{
										fieldLabel: 'Photo',
										fieldType: 'file',
										acceptFileTypes: 'image/*',
										requiredField: true,
									},
								],
							},
						},
						credentials: { smsMessagingApi: credential },
					},
				]),
			);
			await page.goto(`${endpoints.n8nUrl}/workflow/${id}`);
			const node = page.locator('[data-test-id=canvas-node]', { hasText: 'Ask for proof' });
			await node.waitFor();
			await node.dblclick();
			const { pane } = await panelOf(page);
			expect(await pane.textContent()).toContain(
				'One SMS to each input item, all in one request; the first answer of any recipient resumes the workflow, once.',
			);
			// Run the node (and the rows before it) from its panel: it sends and waits.
			await pane.locator('[data-test-id=node-execute-button]').click();
			const sends = await until(
				async () => (await n8n.simRequests()).filter((r) => r.host === 'send'),
				(found) => found.length > 0,
				60_000,
			);
			expect(sends).toHaveLength(1);
			expect(sends[0].body.envelopes!.map((envelope) => envelope.number)).toEqual([
				'254712000001',
				'254712000002',
				'254712000003',
			]);
			const hint = pane.locator('[data-test-id=node-hint]');
			await hint.first().waitFor({ timeout: 60_000 });
			const hints = (await hint.allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
			expect(hints).toEqual(
				expect.arrayContaining([
					expect.stringContaining('This action will run only once, for the first input item'),
					expect.stringContaining(
						'This node sends one SMS to each input item (unless Execute Once is on in its Settings), not only to the first',
					),
				]),
			);
			await pane.screenshot({ path: screenshotPath('editor-approval-items.png') });
		});
	},
);
