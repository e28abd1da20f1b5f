// Which n8n lines the end-to-end tests run, and where each one listens.
import path from 'node:path';

import { packageRoot } from '../helpers/package-root';

export const E2E_LINES = (process.env.E2E_N8N_LINES || '2.x,1.x,1.82')
	.split(',')
	.map((line) => line.trim());

/** The line whose editor, `npm start` and AI agent are checked: the newest. */
export const NEWEST_LINE = '2.x';

/** Describes a block of the newest line's checks; skips it where E2E_N8N_LINES leaves that line out. */
export function describeOnNewest(name: string, block: () => void) {
	(E2E_LINES.includes(NEWEST_LINE) ? describe : describe.skip)(name, block);
}

export interface LineEndpoints {
	line: string;
	version: string;
	n8nUrl: string;
	simulatorBaseUrl: string;
	simulatorSendBaseUrl: string;
	simulatorToken: string;
	/** Where n8n's own package installs live, to load `flatted` the way n8n serialises. */
	n8nDir: string;
	/** The active trigger workflow global setup left polling (trigger-watch.ts). */
	triggerWatch?: TriggerWatch;
	/**
	 * On the 2.x line: the same in a second n8n of the line running its task scheduler (a
	 * workflow from the database at every poll, the static data stored only when a poll emits).
	 */
	schedulerWatch?: TriggerWatch & { n8nUrl: string };
}

/** A workflow whose SMS Messaging Trigger polls its own simulator every minute. */
export interface TriggerWatch {
	workflowId: string;
	/** examples/alert-on-failed-sms.json, active, polling the same simulator. */
	exampleWorkflowId: string;
	/** When the message was failed, after the activation's polls, in ms since the epoch. */
	changedAt: number;
	simulatorBaseUrl: string;
	/** The token of the credential the two active workflows poll with. */
	simulatorToken: string;
	/**
	 * Another token of the same simulator account, for the editor's Fetch Test Event (editor.e2e.ts):
	 * the request log tells the active workflows' polls from the editor's reads by the token.
	 */
	editorToken: string;
	/** Set to FAILED right after the activation: the one message an execution must carry. */
	failedId: number;
	/** DELIVERED before the activation: recorded, never emitted. */
	deliveredBeforeId: number;
}

/** The scripts that install and start a local n8n (`npm start` uses them too). */
export const localN8n: {
	LINES: Record<string, unknown>;
	OWNER: { email: string; password: string };
	login(n8nUrl: string): Promise<Response>;
	activateWorkflow(n8nUrl: string, cookie: string, workflowId: string): Promise<unknown>;
	version(line: string): string;
	paths(line: string): { dir: string };
} =
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	require(path.join(packageRoot(), 'scripts/lib/local-n8n'));

/** Where a started line and its simulator answer. */
export function lineEndpoints(
	line: string,
	n8nPort: number,
	simulator: { baseUrl: string; sendBaseUrl: string; token: string },
): LineEndpoints {
	return {
		line,
		version: localN8n.version(line),
		n8nUrl: `http://127.0.0.1:${n8nPort}`,
		simulatorBaseUrl: simulator.baseUrl,
		simulatorSendBaseUrl: simulator.sendBaseUrl,
		simulatorToken: simulator.token,
		n8nDir: localN8n.paths(line).dir,
	};
}

/** Every line the project installs, in a fixed order: each keeps its block of ports. */
const ALL_LINES = Object.keys(localN8n.LINES);

/**
 * Ports per line, away from `npm start`'s 5678/8787/8788, the same whichever lines a run takes (`npm
 * test` runs each line's tests in a jest run of its own, at once); E2E_PORT_BASE moves them, so
 * that two checkouts can run their end-to-end tests at once.
 */
export function portsFor(line: string) {
	const base = Number(process.env.E2E_PORT_BASE || 5710) + ALL_LINES.indexOf(line) * 10;
	return {
		n8n: base,
		broker: base + 1,
		api: base + 2,
		send: base + 3,
		// The trigger's own simulator: other tests reset theirs, which would change what it polls.
		triggerApi: base + 4,
		triggerSend: base + 5,
		// The second n8n, with its task scheduler, and its trigger's simulator (2.x only).
		schedulerN8n: base + 6,
		schedulerBroker: base + 7,
		schedulerApi: base + 8,
		schedulerSend: base + 9,
	};
}

/**
 * The ports after the lines' blocks, for the tests that start servers of their own: test/e2e/start.e2e.ts's
 * n8n, its task broker and its simulator.
 */
export function sparePorts() {
	const base = Number(process.env.E2E_PORT_BASE || 5710) + ALL_LINES.length * 10;
	return { n8n: base, broker: base + 1, api: base + 2, send: base + 3 };
}

/** What global setup started, for the test files of this jest run (one per set of lines). */
export const STATE_FILE = path.join(
	packageRoot(),
	`.n8n-local/e2e-state-${E2E_LINES.join('-')}.json`,
);
