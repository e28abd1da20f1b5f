'use strict';
// `npm test`: build and pack once, then lanes side by side: the unit tests; and for each n8n line
// its host's install (scripts/install-hosts.js, lines prefixed "[n8n <line>]"), then that line's
// end-to-end tests in a jest run of their own (prefixed "[e2e <line>]": they mostly wait on n8n,
// so the unit tests have the CPU). Whichever lane is done first takes the time-zone runs (`npm run
// zones`, "[zones]"), and with `--queue` (CI) the queue-mode tests first ("[queue]"). dist/ is not
// built again while tests read it: every n8n gets the tarball packed here (SMS_MESSAGING_TARBALL).
// Every step runs even when one before failed; the last line is the sum of the jest runs' `N
// passed, M failed` (scripts/test-summary.js), and the exit code is 1 when anything failed. Each
// step's time is printed as it ends ("== unit: 700 s"). `--no-build`: dist/ is built already (CI
// built it). E2E_N8N_LINES picks the lines (default every line).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const local = require('./lib/local-n8n');

const root = path.resolve(__dirname, '..');
const jest = path.join(root, 'node_modules/jest/bin/jest.js');
/** `--queue` (CI): the queue-mode tests too (`npm run test:queue`'s jest run). */
const withQueue = process.argv.includes('--queue');
const lines = (process.env.E2E_N8N_LINES || Object.keys(local.LINES).join(','))
	.split(',')
	.map((line) => line.trim());
/** The jest runs of this script: unit, e2e per line, the two of `npm run zones`, the queue's. */
const JEST_RUNS = 1 + lines.length + 2 + (withQueue ? 1 : 0);

// Each jest run appends its counts to this file; CI passes its own, which also counts test:queue.
const ownSummary = !process.env.TEST_SUMMARY_FILE;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sms-messaging-test-'));
const summaryFile = process.env.TEST_SUMMARY_FILE || path.join(work, 'summary');
const env = { ...process.env, TEST_SUMMARY_FILE: summaryFile };

const children = new Set();

/** Runs a command to completion; resolves with its exit code. `prefix`: each line prefixed. */
function run(command, args, { prefix, extraEnv = {} } = {}) {
	return new Promise((resolve) => {
		const child = spawn(command, args, {
			cwd: root,
			env: { ...env, ...extraEnv },
			stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit',
		});
		children.add(child);
		if (prefix) {
			for (const stream of [child.stdout, child.stderr]) {
				let rest = '';
				stream.on('data', (chunk) => {
					const lines = (rest + chunk).split('\n');
					rest = lines.pop();
					for (const line of lines) process.stdout.write(`${prefix} ${line}\n`);
				});
				stream.on('end', () => rest && process.stdout.write(`${prefix} ${rest}\n`));
			}
		}
		child.once('error', () => resolve(1));
		child.once('exit', (code, signal) => {
			children.delete(child);
			resolve(code ?? (signal ? 1 : 0));
		});
	});
}

/** Runs a step and says how long it took. */
async function step(name, command, args, options) {
	const started = Date.now();
	const code = await run(command, args, options);
	const seconds = Math.round((Date.now() - started) / 1000);
	process.stdout.write(`== ${name}: ${seconds} s${code ? ` (exit code ${code})` : ''}\n`);
	return code;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
	process.on(signal, () => {
		for (const child of children) child.kill(signal);
		process.exit(1);
	});
}

async function main() {
	const codes = [];
	if (!process.argv.includes('--no-build')) {
		const built = await step('build', 'npm', ['run', 'build', '--silent']);
		if (built) {
			process.stdout.write('The build failed: no test ran.\n');
			process.exit(built);
		}
	}
	const tarball = path.join(work, 'package.tgz');
	fs.copyFileSync(await local.packBuilt(), tarball);
	env.SMS_MESSAGING_TARBALL = tarball;
	// What either lane takes when its own part is done, the longest first: test:queue's jest run
	// without its build (n8n's queue mode, on ports of its own; its hosts' installs waited for
	// where still going), then the time-zone runs. They may run beside each other.
	const tail = [
		...(withQueue
			? [['queue', process.execPath, [jest, '-c', 'jest.queue.config.js', '--runInBand']]]
			: []),
		['zones', 'npm', ['run', 'zones', '--silent']],
	];
	const takeTail = async () => {
		const done = [];
		for (let job = tail.shift(); job; job = tail.shift()) {
			const [name, command, args] = job;
			done.push(await step(name, command, args, { prefix: `[${name}]` }));
		}
		return done;
	};
	// Each line's lane: its host (installed already, or waited for where another process installs
	// it), then its e2e tests in a jest run of their own.
	const lineLane = async (line) => {
		const hosts = await step(`n8n ${line}`, process.execPath, ['scripts/install-hosts.js', line], {
			prefix: `[n8n ${line}]`,
		});
		// The e2e run installs what is still missing itself, and says so when it cannot.
		const e2e = [jest, '--selectProjects', 'e2e', '--runInBand'];
		return [
			hosts,
			await step(`e2e ${line}`, process.execPath, e2e, {
				prefix: `[e2e ${line}]`,
				extraEnv: { E2E_N8N_LINES: line },
			}),
			...(await takeTail()),
		];
	};
	const lineLanes = Promise.all(lines.map(lineLane));
	codes.push(await step('unit', process.execPath, [jest, '--selectProjects', 'unit']));
	codes.push(...(await takeTail()));
	codes.push(...(await lineLanes).flat());
	if (ownSummary) {
		codes.push(await run(process.execPath, ['scripts/test-summary.js', summaryFile, JEST_RUNS]));
	}
	fs.rmSync(work, { recursive: true, force: true });
	process.exit(codes.some((code) => code !== 0) ? 1 : 0);
}

main();
