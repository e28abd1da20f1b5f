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
	}
}

module.exports = PlainSummaryReporter;
