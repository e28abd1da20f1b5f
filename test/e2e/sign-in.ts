// The editor tests' browser session: the owner logged in through n8n's REST API (which waits out
// n8n's limit of 5 logins a minute, scripts/lib/local-n8n.js) and its cookie given to the browser,
// so that a test file that follows others quickly is not refused at n8n's sign-in page.
import { chromium, type Browser, type Page } from 'playwright-core';

import { localN8n } from './lines';

async function signIn(page: Page, n8nUrl: string) {
	const response = await localN8n.login(n8nUrl);
	if (!response.ok) throw new Error(`login failed: ${response.status} ${await response.text()}`);
	const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
	const at = cookie.indexOf('=');
	await page
		.context()
		.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: n8nUrl }]);
	await page.goto(`${n8nUrl}/home/workflows`);
	await page.waitForURL(/\/(home|workflows)/, { timeout: 30_000 });
}

/** Debian's Chromium, headless (never a browser a tool downloads). */
export async function launchChromium(): Promise<Browser> {
	return await chromium.launch({
		executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
	});
}

/** A browser with one desktop-sized page, signed in to the editor at `n8nUrl`. */
export async function signedInPage(n8nUrl: string): Promise<{ browser: Browser; page: Page }> {
	const browser = await launchChromium();
	const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
	await signIn(page, n8nUrl);
	return { browser, page };
}
