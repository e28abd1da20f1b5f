// SMS Messaging Approval in n8n's editor, in a real browser: the example workflow on the canvas and
// the node's panel with its fields. Its screenshots go to docs/ only with SCREENSHOTS=1, as
// `npm run screenshots` sets (screenshots.ts); otherwise to a temporary folder.
import { chromium, type Browser, type Page } from 'playwright-core';

import { OWNER } from './lines';
import { lines } from './n8n-rest';
import { screenshotPath } from './screenshots';

const endpoints = lines()[0];

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

describe(`SMS Messaging Approval in the editor of n8n ${endpoints.version}`, () => {
	let browser: Browser;
	let page: Page;

	beforeAll(async () => {
		browser = await chromium.launch({
			executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
		});
		page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
		await page.goto(`${endpoints.n8nUrl}/signin`);
		await page.fill('input[name=emailOrLdapLoginId]', OWNER.email);
		await page.fill('input[name=password]', OWNER.password);
		await page.click('[data-test-id=form-submit-button]');
		await page.waitForURL(/\/(home|workflows)/, { timeout: 30_000 });
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
