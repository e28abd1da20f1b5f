'use strict';
// `npm run lock:n8n -- <line>`: takes a new package-lock.json for an n8n line (scripts/n8n/<line>/)
// from the registry, for `npm ci` to install exactly. Then check it: `npm run test:e2e`.
//
// The registry this project uses lacks some other platforms' optional builds (darwin, win32, arm).
// npm leaves what it cannot resolve out of a lockfile, and `npm ci` then refuses that lockfile
// ("Missing: … from lock file"), so each missing optional dependency is recorded as an optional
// entry at the version its dependent asks for. npm skips a failed optional package on install.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const local = require('./lib/local-n8n');

/** The folder where `name` resolves from the package at `from` (a lockfile `packages` key). */
function resolvedAt(packages, from, name) {
	let base = from;
	for (;;) {
		const where = `${base ? `${base}/` : ''}node_modules/${name}`;
		if (packages[where]) return where;
		if (!base) return undefined;
		const parent = base.lastIndexOf('/node_modules/');
		base = parent === -1 ? '' : base.slice(0, parent);
	}
}

/** Adds an optional entry for each optional dependency the lockfile cannot resolve. */
function recordMissingOptionals(lock) {
	const packages = lock.packages;
	const added = [];
	for (const [from, entry] of Object.entries(packages)) {
		for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
			if (resolvedAt(packages, from, name)) continue;
			const hoisted = `node_modules/${name}`;
			const where = packages[hoisted] ? `${from}/node_modules/${name}` : hoisted;
			packages[where] = { version, optional: true };
			added.push(`${name}@${version}`);
		}
	}
	lock.packages = Object.fromEntries(
		Object.entries(packages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
	);
	return added;
}

function main() {
	const line = process.argv[2];
	const { folder } = local.LINES[line] ?? {};
	if (!folder) {
		console.error(`usage: npm run lock:n8n -- <${Object.keys(local.LINES).join('|')}>`);
		process.exit(2);
	}
	const dir = path.join(local.root, folder);
	const lockfile = path.join(dir, 'package-lock.json');
	fs.rmSync(lockfile, { force: true });
	execFileSync(
		'npm',
		[
			'install',
			'--package-lock-only',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--loglevel=error',
			// No registry address in a committed lockfile.
			'--omit-lockfile-registry-resolved',
		],
		{ cwd: dir, stdio: 'inherit' },
	);
	const lock = JSON.parse(fs.readFileSync(lockfile, 'utf8'));
	const added = recordMissingOptionals(lock);
	fs.writeFileSync(lockfile, `${JSON.stringify(lock, null, '\t')}\n`);
	console.log(
		`${folder}/package-lock.json: n8n ${lock.packages['node_modules/n8n'].version}, ` +
			`${Object.keys(lock.packages).length - 1} packages; optional builds the registry lacks, ` +
			`recorded for npm ci: ${added.join(', ') || 'none'}`,
	);
}

if (require.main === module) main();

module.exports = { recordMissingOptionals };
