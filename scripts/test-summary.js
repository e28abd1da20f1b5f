'use strict';
// The last line of CI's test output: the sum of the `N passed, M failed` lines of its jest runs,
// read from the file test/summary-reporter.js appends each run's counts to.
// Usage: node scripts/test-summary.js <TEST_SUMMARY_FILE> <number of jest runs expected>
// A run that never reported (its setup failed before any test ran) counts as one failure.
const fs = require('node:fs');

const [file, expected = '1'] = process.argv.slice(2);
const runs = fs.existsSync(file)
	? fs
			.readFileSync(file, 'utf8')
			.split('\n')
			.filter(Boolean)
			.map((line) => JSON.parse(line))
	: [];
const sum = (key) => runs.reduce((total, run) => total + (run[key] || 0), 0);
const missing = Math.max(0, Number(expected) - runs.length);
const skipped = sum('skipped');
if (missing) process.stdout.write(`${missing} jest run(s) did not report: counted as failed\n`);
process.stdout.write(
	`\n${sum('passed')} passed, ${sum('failed') + missing} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
);
