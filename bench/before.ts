// An earlier build of the package, measured beside this one: a commit's nodes and credentials,
// built into a temporary folder (loaded through BENCH_PACKAGE_ROOT, test/helpers/n8n.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';

/** Builds `commit` into a temporary folder and gives the folder; remove it when done. */
export function buildBefore(commit: string): string {
	const root = packageRoot();
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sms-bench-before-'));
	const files = ['nodes', 'credentials', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
	const archive = execFileSync('git', ['archive', commit, ...files], {
		cwd: root,
		maxBuffer: 1 << 28,
	});
	execFileSync('tar', ['-x', '-C', folder], { input: archive });
	fs.symlinkSync(path.join(root, 'node_modules'), path.join(folder, 'node_modules'));
	execFileSync(
		process.execPath,
		[path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
		{ cwd: folder },
	);
	return folder;
}
