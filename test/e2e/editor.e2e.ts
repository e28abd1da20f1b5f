// The node in n8n's editor, in a real browser: it can be added from the nodes panel by its short
// actions (and the trigger by its own), each resource and operation shows its own fields and none
// of the others', the PENDING hint shows only where it applies, and a wrong token's credential
// test says what to fix. Its screenshots go to docs/ only with SCREENSHOTS=1, as
// `npm run screenshots` sets (screenshots.ts); otherwise to a temporary folder.
import type { Browser, Page } from 'playwright-core';

import { signedInPage } from './sign-in';
import {
	codeNode,
	CREATE_SENDER_ID_PER_BRAND,
	linearWorkflow,
	lines,
	N8n,
	smsNode,
} from './n8n-rest';
import { describeOnNewest, NEWEST_LINE } from './lines';
import { screenshotPath } from './screenshots';

// The editor is checked on the newest line; the workflows run on every line in workflows.e2e.ts.
const endpoints = lines().find(({ line }) => line === NEWEST_LINE) ?? lines()[0];

/** Field labels of each resource and operation: shown, and others' that must stay hidden. */
const FORMS: Array<{
	title: string;
	parameters: Record<string, unknown>;
	shown: string[];
	hidden: string[];
}> = [
	{
		title: 'Sender ID → Create',
		parameters: { resource: 'senderId', operation: 'create' },
		shown: ['Name', 'Purpose', 'Access', 'Sample Message'],
		hidden: ['Sender ID', 'Recipient Number', 'Message', 'Return All', 'Limit', 'Filters'],
	},
	{
		title: 'Sender ID → Update',
		parameters: { resource: 'senderId', operation: 'update' },
		shown: ['Sender ID Number', 'Name', 'Purpose', 'Access', 'Sample Message'],
		hidden: ['Recipient Number', 'Return All', 'Limit', 'Filters'],
	},
	{
		title: 'SMS → Send',
		parameters: { resource: 'sms', operation: 'send' },
		shown: ['Sender ID', 'Recipient Number', 'Message', 'Reference', 'Options'],
		hidden: ['Name', 'Purpose', 'Sample Message', 'Return All', 'Limit', 'Filters'],
	},
	{
		title: 'SMS → Get Many',
		parameters: { resource: 'sms', operation: 'getAll' },
		shown: ['Return All', 'Limit', 'Filters', 'Options'],
		hidden: ['Sender ID', 'Recipient Number', 'Message', 'Name'],
	},
	{
		title: 'SMS → Get Many with Return All',
		parameters: { resource: 'sms', operation: 'getAll', returnAll: true },
		shown: ['Return All', 'Filters', 'Options'],
		hidden: ['Limit'],
	},
	{
		title: 'Contact → Get Many',
		parameters: { resource: 'contact', operation: 'getAll' },
		shown: ['Return All', 'Limit', 'Filters'],
		hidden: ['Options', 'Sender ID', 'Recipient Number', 'Message', 'Name'],
	},
];

describeOnNewest(`the editor of n8n ${endpoints.version}`, () => {
	const n8n = new N8n(endpoints);
	let browser: Browser;
	let page: Page;
	let credential: { id: string; name: string };

	beforeAll(async () => {
		await n8n.login();
		credential = await n8n.createCredential('SMS Messaging account');
		({ browser, page } = await signedInPage(endpoints.n8nUrl));
	});

	afterAll(async () => await browser?.close());

	/** Labels of the parameters the open node panel shows. */
	async function shownLabels(): Promise<string[]> {
		const pane = page.locator('[data-test-id=ndv]');
		await pane.locator('[data-test-id=parameter-item]').first().waitFor();
		const labels = await pane
			.locator('[data-test-id=parameter-item] label')
			.evaluateAll((elements) => elements.map((element) => (element.textContent ?? '').trim()));
		return labels.map((label) => label.replace(/FixedExpression$/, '').trim()).filter(Boolean);
	}

	test('the node is added from the nodes panel and opens on an operation', async () => {
		const { id } = await n8n.createWorkflow(linearWorkflow(`Editor add ${Date.now()}`, []));
		await page.goto(`${endpoints.n8nUrl}/workflow/${id}`);
		await page.locator('[data-test-id=canvas-node]').first().waitFor();
		await page.locator('[data-test-id=node-creator-plus-button]').click();
		// Into the search bar itself: keystrokes sent before its autofocus lands would go nowhere.
		await page.locator('[data-test-id=node-creator-search-bar]').fill('SMS Messaging');
		await page
			.locator('[data-test-id=node-creator-item-name]', { hasText: /^SMS Messaging$/ })
			.first()
			.click();
		// Triggers come in their own category, folded while the node has actions.
		await page
			.locator('[data-test-id=node-creator-category-item]', { hasText: 'Triggers' })
			.click();
		// The panel lists the node's actions by resource, short as on n8n's own nodes, and the
		// trigger's action beside them.
		for (const action of [
			'Get many contacts',
			'Create a sender ID',
			'Update a sender ID',
			'Get many messages',
			'Get the delivery status of sent messages',
			'On message delivered or failed',
		]) {
			await page.getByText(action, { exact: true }).waitFor();
		}
		await page.screenshot({ path: screenshotPath('editor-nodes-panel-actions.png') });
		await page.getByText('Send an SMS', { exact: true }).click();
		const labels = await shownLabels();
		expect(labels).toEqual(
			expect.arrayContaining(['Resource', 'Operation', 'Sender ID', 'Recipient Number', 'Message']),
		);
		// n8n names a new node after the action it was added with.
		await page.keyboard.press('Escape');
		await page.locator('[data-test-id=canvas-node]', { hasText: 'Send an SMS' }).waitFor();
	});

	test("the trigger is added from the panel by its action, under the trigger's own name", async () => {
		const { id } = await n8n.createWorkflow(linearWorkflow(`Editor add trigger ${Date.now()}`, []));
		await page.goto(`${endpoints.n8nUrl}/workflow/${id}`);
		await page.locator('[data-test-id=canvas-node]').first().waitFor();
		await page.locator('[data-test-id=node-creator-plus-button]').click();
		// Into the search bar itself: keystrokes sent before its autofocus lands would go nowhere.
		await page.locator('[data-test-id=node-creator-search-bar]').fill('SMS Messaging');
		await page
			.locator('[data-test-id=node-creator-item-name]', { hasText: /^SMS Messaging$/ })
			.first()
			.click();
		await page
			.locator('[data-test-id=node-creator-category-item]', { hasText: 'Triggers' })
			.click();
		await page.getByText('On message delivered or failed', { exact: true }).click();
		expect(await shownLabels()).toEqual(expect.arrayContaining(['Watch Statuses']));
		await page.keyboard.press('Escape');
		await page
			.locator('[data-test-id=canvas-node]', { hasText: 'SMS Messaging Trigger' })
			.waitFor();
	});

	test.each(FORMS)(
		'$title shows its fields and hides the others',
		async ({ title, parameters, shown, hidden }) => {
			const { id } = await n8n.createWorkflow(
				linearWorkflow(`Editor ${title} ${Date.now()}`, [smsNode(credential, parameters)]),
			);
			await page.goto(`${endpoints.n8nUrl}/workflow/${id}`);
			await page.locator('[data-test-id=canvas-node]', { hasText: 'SMS Messaging' }).dblclick();
			const labels = await shownLabels();
			expect(labels).toEqual(
				expect.arrayContaining(['Credential', 'Resource', 'Operation', ...shown]),
			);
			for (const label of hidden) expect(labels).not.toContain(label);

			if (title === 'SMS → Send' || title === 'SMS → Get Many') {
				const file = title === 'SMS → Send' ? 'editor-sms-send.png' : 'editor-sms-get-many.png';
				await page.locator('[data-test-id=ndv]').screenshot({ path: screenshotPath(file) });
			}
		},
	);

	/** Opens the node, runs it from its panel and gives the hints its output pane shows. */
	async function runAndReadHints(workflow: ReturnType<typeof linearWorkflow>): Promise<string[]> {
		const { id } = await n8n.createWorkflow(workflow);
		await page.goto(`${endpoints.n8nUrl}/workflow/${id}`);
		await page.locator('[data-test-id=canvas-node]', { hasText: 'SMS Messaging' }).dblclick();
		await page.locator('[data-test-id=ndv] [data-test-id=node-execute-button]').click();
		const hint = page.locator('[data-test-id=ndv] [data-test-id=node-hint]');
		await hint.first().waitFor({ timeout: 60_000 });
		return (await hint.allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
	}

	test('after Sender ID → Create, the output pane explains what PENDING means', async () => {
		await n8n.simReset();
		const hints = await runAndReadHints(
			linearWorkflow(`Editor pending hint ${Date.now()}`, [
				codeNode("return [{ json: { brand: 'ALPHA' } }, { json: { brand: 'BETA' } }];"),
				smsNode(credential, CREATE_SENDER_ID_PER_BRAND),
			]),
		);
		expect(hints).toEqual([
			expect.stringContaining('A new Sender ID is PENDING: it cannot send SMS until the service'),
		]);
		await page
			.locator('[data-test-id=ndv]')
			.screenshot({ path: screenshotPath('editor-sender-id-pending-hint.png') });
	});

	test('after a Sender ID → Update that leaves it APPROVED, no PENDING hint', async () => {
		await n8n.simReset();
		const { id } = await n8n.createWorkflow(
			linearWorkflow(`Editor no pending hint ${Date.now()}`, [
				// The simulator's ACME (number 1) is approved; changing only its access keeps it so.
				smsNode(credential, {
					resource: 'senderId',
					operation: 'update',
					id: 1,
					name: 'ACME',
					purpose: 'TRANSACTIONAL',
					access: 'PUBLIC',
					sample: 'ACME sample',
				}),
			]),
		);
		await page.goto(`${endpoints.n8nUrl}/workflow/${id}`);
		await page.locator('[data-test-id=canvas-node]', { hasText: 'SMS Messaging' }).dblclick();
		await page.locator('[data-test-id=ndv] [data-test-id=node-execute-button]').click();
		const output = page.locator('[data-test-id=ndv] [data-test-id=output-panel]');
		await output.getByText('APPROVED', { exact: false }).first().waitFor({ timeout: 60_000 });
		const hints = await page
			.locator('[data-test-id=ndv] [data-test-id=node-hint]')
			.allTextContents();
		expect(hints.filter((hint) => hint.includes('PENDING'))).toEqual([]);
	});

	test('the credential test with a wrong token says to check the API Token', async () => {
		const wrong = await n8n.createCredential(`SMS Messaging wrong token ${Date.now()}`, {
			apiToken: 'not-the-token',
		});
		await page.goto(`${endpoints.n8nUrl}/home/credentials/${wrong.id}`);
		const modal = page.locator('[data-test-id=editCredential-modal]');
		await modal.waitFor();
		try {
			// n8n tests a saved credential when its dialog opens; Save tests it again.
			await modal
				.locator('[data-test-id=credential-save-button]')
				.click({ timeout: 5_000 })
				.catch(() => undefined);
			await modal
				.getByText(/Couldn.t connect with these settings/)
				.first()
				.waitFor({ timeout: 30_000 });
			// The banner keeps the test's message behind "More details".
			const details = modal.getByText('More details', { exact: false });
			if (await details.count()) await details.first().click();
			await modal
				.getByText('The API refused the API Token (401): check the API Token of this credential', {
					exact: false,
				})
				.first()
				.waitFor({ timeout: 10_000 });
		} catch (error) {
			await page.screenshot({ path: '/tmp/i22-credential-dialog.png' });
			throw error;
		}
		await modal.screenshot({ path: screenshotPath('editor-credential-wrong-token.png') });
	});

	test("the node's Settings offer n8n's Request Options: Batching, Ignore SSL Issues, Proxy, Timeout", async () => {
		const { id } = await n8n.createWorkflow(
			linearWorkflow(`Editor request options ${Date.now()}`, [
				smsNode(credential, { resource: 'contact', operation: 'getAll' }),
			]),
		);
		await page.goto(`${endpoints.n8nUrl}/workflow/${id}`);
		await page.locator('[data-test-id=canvas-node]', { hasText: 'SMS Messaging' }).dblclick();
		const ndv = page.locator('[data-test-id=ndv]');
		await ndv.getByText('Settings', { exact: true }).first().click();
		await ndv.getByText('Request Options', { exact: true }).waitFor();
		await ndv
			.locator('[data-test-id=parameter-item]', { hasText: 'Request Options' })
			.locator('[data-test-id=collection-parameter-add] input')
			.click();
		for (const option of ['Batching', 'Ignore SSL Issues (Insecure)', 'Proxy', 'Timeout']) {
			await page.getByText(option, { exact: true }).last().waitFor();
		}
		await page.screenshot({ path: screenshotPath('editor-request-options.png') });
	});

	test('the SMS Messaging Trigger panel shows its fields, and Fetch Test Event shows a message', async () => {
		const watch = endpoints.triggerWatch!;
		const triggerCredential = await n8n.createCredential('SMS Messaging (trigger editor)', {
			// Its own token: the trigger's e2e test tells these reads from the active workflows' polls.
			apiToken: watch.editorToken,
			baseUrl: watch.simulatorBaseUrl,
		});
		const { id } = await n8n.createWorkflow({
			name: `Editor trigger ${Date.now()}`,
			nodes: [
				{
					id: 'watch',
					name: 'SMS Messaging Trigger',
					type: 'n8n-nodes-sms-messaging.smsMessagingTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
					credentials: { smsMessagingApi: triggerCredential },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
			active: false,
		});
		await page.goto(`${endpoints.n8nUrl}/workflow/${id}`);
		await page
			.locator('[data-test-id=canvas-node]', { hasText: 'SMS Messaging Trigger' })
			.dblclick();
		expect(await shownLabels()).toEqual(
			expect.arrayContaining(['Credential', 'Poll Times', 'Watch Statuses', 'Filters', 'Options']),
		);
		const fetchButton = page.locator('[data-test-id=ndv] [data-test-id=node-execute-button]');
		expect((await fetchButton.textContent())?.trim()).toBe('Fetch Test Event');
		await fetchButton.click();
		// The newest message in a watched status: the one global setup delivered before activating.
		await page
			.locator('[data-test-id=ndv]')
			.getByText('254711000002', { exact: false })
			.first()
			.waitFor({ timeout: 60_000 });
		await page
			.locator('[data-test-id=ndv]')
			.screenshot({ path: screenshotPath('editor-trigger-fetch-test-event.png') });
	});
});
