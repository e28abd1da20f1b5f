// Jest's hooks for the e2e files (apart from n8n-rest.ts, which the benchmarks compile without
// Jest's globals).
import type { LineEndpoints } from './lines';
import { N8n } from './n8n-rest';

/**
 * One line's session for a describe block: a logged-in n8n, a credential of its own on the line's
 * simulator (filled in before the first test) and the simulator reset before each test.
 */
export function lineSession(endpoints: LineEndpoints, credentialName: string) {
	const n8n = new N8n(endpoints);
	const credential = { id: '', name: '' };
	beforeAll(async () => {
		await n8n.login();
		Object.assign(credential, await n8n.createCredential(`${credentialName} ${Date.now()}`));
	});
	beforeEach(async () => await n8n.simReset());
	return { n8n, credential };
}
