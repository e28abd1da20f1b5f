'use strict';
// The guards the tests must catch: each is taken out of the built package (dist/, so build first)
// in turn, the test files named with it run, and at least one test must fail. Lists what each run
// did; exits 1 when a guard taken out went unnoticed. dist/ is put back after each run (and on
// Ctrl-C), so build nothing meanwhile.
// Usage: npm run test:mutations [-- <part of a guard's name> …]; MUTATION_TESTS="<file> …" runs
// those test files instead of each guard's own (to see which files catch a guard).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const jest = path.join(root, 'node_modules/jest/bin/jest.js');

/**
 * Each guard: where it is in dist/ (each edit's `file`, the exact text `find`, found once), what it
 * becomes without it (`replace`), and the test files that catch it.
 */
const GUARDS = [
	{
		name: 'lease: a poll another took over from (in n8n or in this process) stores and emits nothing',
		edits: [
			{
				file: 'SmsMessagingTrigger/poll.js',
				find: 'if (!stillHeld() || !(0, processMemory_1.stillCurrent)(start) || records === undefined)',
				replace: 'if (records === undefined)',
			},
		],
		tests: ['test/trigger-drift.test.ts'],
	},
	{
		name: 'lease: a poll that starts while another holds the lease does nothing',
		edits: [
			{
				file: 'SmsMessagingTrigger/state/storedState.js',
				find: 'if (lease && now >= lease.at && now - lease.at < LEASE_MS)',
				replace: 'if (false)',
			},
		],
		tests: ['test/trigger.test.ts'],
	},
	{
		name: 'pages overlap: each page starts on the last record of the one before',
		edits: [
			{
				file: 'SmsMessagingTrigger/reading/search.js',
				find: 'page.served - (follow ? 0 : exports.OVERLAP)',
				replace: 'page.served',
			},
		],
		tests: ['test/trigger-readings.test.ts'],
	},
	{
		name: 'full reading: due at the first poll of each slot',
		edits: [
			{
				file: 'SmsMessagingTrigger/reading/fullReading.js',
				find: 'return lastAt < now - (now % watch.fullReadingMs);',
				replace: 'return false;',
			},
		],
		tests: ['test/trigger-drift.test.ts'],
	},
	{
		name: "baseline: the lists' counts add up to the list of every status",
		edits: [
			{
				file: 'SmsMessagingTrigger/reading/baseline.js',
				find: 'if (sum > observed.ALL || (sum < observed.ALL && !other))',
				replace: 'if (false)',
			},
		],
		tests: ['test/trigger-readings.test.ts'],
	},
	{
		name: 'once: a message is never emitted twice in one status',
		edits: [
			{
				file: 'SmsMessagingTrigger/reading/findings.js',
				find: '|| this.picture.recorded(id).has(status)',
				replace: '',
			},
		],
		tests: ['test/trigger.test.ts'],
	},
	{
		name: 'in flight: PENDING and SENT read whole while 2,000 or fewer',
		edits: [
			{
				file: 'SmsMessagingTrigger/reading/resolve.js',
				find: 'if (PENDING + SENT <= IN_FLIGHT_WHOLE)',
				replace: 'if (false)',
			},
		],
		tests: ['test/trigger-readings.test.ts'],
	},
	{
		name: "gone: a tracked message a page's range skips has left its list",
		edits: [
			{
				file: 'SmsMessagingTrigger/reading/findings.js',
				find: 'this.judgeGone(page);',
				replace: ';',
			},
		],
		tests: ['test/trigger-readings.test.ts'],
	},
	{
		name: 'baseline: a message first seen after it and sent 12 h 10 min before it counts as recorded',
		edits: [
			{
				file: 'SmsMessagingTrigger/reading/findings.js',
				find: 'if (fresh && sinceAt !== undefined && this.sentAt(record) <= sinceAt)',
				replace: 'if (false)',
			},
		],
		tests: ['test/trigger-readings.test.ts'],
	},
	{
		name: 'listed late: a message listed late below the mark is sought in the list of every status',
		edits: [
			{
				file: 'SmsMessagingTrigger/reading/resolve.js',
				find: 'if (residuals.ALL > 0 && !this.lateSearched)',
				replace: 'if (false)',
			},
		],
		tests: ['test/trigger-late-histories.test.ts'],
	},
	{
		name: 'API Time Zone: the trigger reads Sent At in the credential’s zone',
		edits: [
			{
				file: 'SmsMessagingTrigger/poll.js',
				find: 'const zone = (0, apiTime_1.apiZoneOf)(this.getNode(), credentials);',
				replace: "const zone = 'UTC';",
			},
		],
		tests: ['test/trigger-zone.test.ts'],
	},
	{
		name: 'budget: no wait that would end past the deadline begins (a Retry-After, a backoff, a hold)',
		edits: [
			{
				file: 'shared/requests/limiter.js',
				find: 'if ((0, deadline_1.passes)(deadline, at - now))',
				replace: 'if (false)',
			},
			{
				file: 'shared/requests/transport.js',
				find: 'if ((0, deadline_1.passes)(deadline, next.wait))',
				replace: 'if (false)',
			},
		],
		tests: ['test/trigger-budget.test.ts'],
	},
	{
		name: 'list reader: a page is taken only where it shows its place',
		edits: [
			{
				file: 'shared/lists/place.js',
				find: 'if (this.given.size > 0 && shown < 0 && !this.adjoins(content)) {',
				replace: 'if (false) {',
			},
		],
		tests: ['test/moving-lists.test.ts'],
	},
	{
		name: 'list reader: pages that repeat the first page end the reading',
		edits: [
			{
				file: 'shared/lists/place.js',
				find: 'if (this.repeats >= pages_1.REPEATS)',
				replace: 'if (false)',
			},
		],
		tests: ['test/sms-list.test.ts'],
	},
	{
		name: "Send's lookup: a record older than the run is no proof",
		edits: [
			{
				file: 'shared/send/lookup.js',
				find: 'const since = runStartedAt - sentWindow_1.CLOCK_MARGIN_MS;',
				replace: 'const since = 0;',
			},
		],
		tests: ['test/sms-send-outcomes.test.ts'],
	},
];

/** Runs the test files; gives how many tests passed and failed, and whether any suite broke. */
function runTests(tests) {
	const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mutation-')), 'report.json');
	spawnSync(process.execPath, [jest, '--json', `--outputFile=${report}`, ...tests], {
		cwd: root,
		stdio: 'ignore',
		env: { ...process.env, TEST_SUMMARY_FILE: '' },
	});
	const result = JSON.parse(fs.readFileSync(report, 'utf8'));
	fs.rmSync(path.dirname(report), { recursive: true, force: true });
	return {
		passed: result.numPassedTests,
		failed: result.numFailedTests,
		broken: result.numRuntimeErrorTestSuites,
	};
}

let restore = () => undefined;
for (const signal of ['SIGINT', 'SIGTERM']) {
	process.on(signal, () => {
		restore();
		process.exit(1);
	});
}

const wanted = process.argv.slice(2);
const guards = GUARDS.filter((guard) => wanted.every((part) => guard.name.includes(part)));
let missed = 0;
for (const guard of guards) {
	const files = new Map(
		guard.edits.map(({ file }) => {
			const at = path.join(root, 'dist/nodes', file);
			return [at, fs.readFileSync(at, 'utf8')];
		}),
	);
	const mutated = new Map(files);
	const misplaced = guard.edits.filter(({ file, find, replace }) => {
		const at = path.join(root, 'dist/nodes', file);
		const text = mutated.get(at);
		if (text.split(find).length !== 2) return true;
		mutated.set(at, text.replace(find, replace));
		return false;
	});
	if (misplaced.length) {
		const where = misplaced.map(({ file, find }) => `"${find}" in ${file}`).join(', ');
		console.log(`✗ ${guard.name}: ${where}, not found once: update scripts/mutations.js`);
		missed++;
		continue;
	}
	restore = () => {
		for (const [file, text] of files) fs.writeFileSync(file, text);
	};
	const started = Date.now();
	const tests = process.env.MUTATION_TESTS?.split(' ') ?? guard.tests;
	let outcome;
	try {
		for (const [file, text] of mutated) fs.writeFileSync(file, text);
		outcome = runTests(tests);
	} finally {
		restore();
		restore = () => undefined;
	}
	const seconds = Math.round((Date.now() - started) / 1000);
	// A suite that broke (a syntax error, a module that fails to load) proves nothing.
	const caught = outcome.failed > 0 && outcome.broken === 0;
	if (!caught) missed++;
	console.log(
		`${caught ? '✓ caught' : '✗ MISSED'} ${guard.name}: ${outcome.failed} of ${outcome.failed + outcome.passed} tests failed in ${tests.join(', ')} (${seconds} s)`,
	);
}
console.log(`${guards.length - missed} of ${guards.length} guards caught`);
process.exitCode = missed ? 1 : 0;
