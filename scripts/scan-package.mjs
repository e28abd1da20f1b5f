// The checks of n8n's community-package scanner (@n8n/scan-community-package), run on this
// checkout and on its packed tarball. The scanner's CLI only takes a published package name (it
// downloads the package and its provenance-linked source); this runs the same analysis, with the
// same ESLint rules, on local files. The provenance check itself can only run after publishing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sms-messaging-scan-'));
try {
	const [{ filename }] = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
			cwd: root,
			encoding: 'utf8',
		}),
	);
	const unpacked = path.join(work, 'package');
	execFileSync('tar', ['-xzf', path.join(work, filename), '-C', work]);

	const results = [
		[
			'source (package.json, nodes/, credentials/)',
			await analyzePackage(root, SOURCE_FILE_PATTERNS),
		],
		['packed tarball', await analyzePackage(unpacked, ['**/*.js', 'package.json'])],
	];
	for (const [what, result] of results) {
		console.log(`scan of the ${what}: ${result.passed ? 'passed' : `FAILED: ${result.message}`}`);
		if (!result.passed && result.details) console.log(result.details);
	}
	process.exitCode = results.every(([, result]) => result.passed) ? 0 : 1;
} finally {
	fs.rmSync(work, { recursive: true, force: true });
}
