'use strict';
// Jest's own default output, then the plain `N passed, M failed` line that CI reads, last.
const { DefaultReporter, SummaryReporter } = require('@jest/reporters');

class PlainSummaryReporter extends DefaultReporter {
	constructor(globalConfig, options, context) {
		super(globalConfig);
		this.summary = new SummaryReporter(globalConfig, options, context);
	}

	onRunStart(results, options) {
		super.onRunStart(results, options);
		this.summary.onRunStart(results, options);
	}

	onRunComplete(testContexts, results) {
		super.onRunComplete?.(testContexts, results);
		this.summary.onRunComplete(testContexts, results);
		const skipped = results.numPendingTests + results.numTodoTests;
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		process.stderr.write(
			`\n${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
		);
		// CI runs more than one jest run (npm test, then npm run test:queue); each one's counts go to
		// TEST_SUMMARY_FILE, and scripts/test-summary.js prints their sum as the last line.
		if (process.env.TEST_SUMMARY_FILE) {
			require('node:fs').appendFileSync(
				process.env.TEST_SUMMARY_FILE,
				`${JSON.stringify({ passed: results.numPassedTests, failed, skipped })}\n`,
			);
		}
	}
}

module.exports = PlainSummaryReporter;
