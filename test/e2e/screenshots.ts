// Where the editor tests (editor.e2e.ts, approval-editor.e2e.ts) write their screenshots: the
// tracked docs/editor-*.png only when asked for, with SCREENSHOTS=1 (`npm run screenshots`);
// otherwise a folder of the system's temporary directory, overwritten at each run, so that
// `npm test` leaves a clone as it found it. The tests take the same screenshots either way.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const folder =
	process.env.SCREENSHOTS === '1'
		? path.resolve(__dirname, '../../docs')
		: path.join(os.tmpdir(), 'n8n-nodes-sms-messaging-screenshots');

/** The path to give Playwright's `screenshot()` for `file` (e.g. `editor-sms-send.png`). */
export function screenshotPath(file: string): string {
	fs.mkdirSync(folder, { recursive: true });
	return path.join(folder, file);
}
