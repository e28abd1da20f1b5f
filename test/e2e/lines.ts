// Which n8n lines the end-to-end tests run, and where each one listens.
import path from 'node:path';

import { packageRoot } from '../helpers/package-root';

export const E2E_LINES = (process.env.E2E_N8N_LINES || '2.x,1.x')
	.split(',')
	.map((line) => line.trim());

export interface LineEndpoints {
	line: string;
	version: string;
	n8nUrl: string;
	simulatorBaseUrl: string;
	simulatorSendBaseUrl: string;
	simulatorToken: string;
	/** Where n8n's own package installs live, to load `flatted` the way n8n serialises. */
	n8nDir: string;
}

export const OWNER: { email: string; password: string } =
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	require(path.join(packageRoot(), 'scripts/lib/local-n8n')).OWNER;

/** Ports per line, away from `npm start`'s 5678/8787/8788. */
export function portsFor(line: string) {
	const offset = E2E_LINES.indexOf(line) * 10;
	return { n8n: 5710 + offset, broker: 5711 + offset, api: 5712 + offset, send: 5713 + offset };
}

export const STATE_FILE = path.join(packageRoot(), '.n8n-local/e2e-state.json');
