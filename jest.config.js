/** @type {import('jest').Config} */
module.exports = {
	projects: [
		{
			displayName: 'unit',
			preset: 'ts-jest',
			testEnvironment: 'node',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.ts'],
			// n8n's logger silent (N8N_LOG_LEVEL): not in e2e, whose test files start n8n hosts.
			setupFiles: ['<rootDir>/test/helpers/quiet-n8n-logger.ts'],
		},
		{
			// A real n8n per line (2.x and 1.x) with the packed package, and a browser (test/e2e/).
			displayName: 'e2e',
			preset: 'ts-jest',
			testEnvironment: 'node',
			roots: ['<rootDir>/test/e2e'],
			testMatch: ['**/*.e2e.ts'],
			globalSetup: '<rootDir>/test/e2e/global-setup.ts',
			globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
		},
	],
	testTimeout: 180000,
	reporters: ['<rootDir>/test/summary-reporter.js'],
};
