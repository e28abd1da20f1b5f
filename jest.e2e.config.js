/** End-to-end tests against a real n8n (see test/e2e/). */
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	testTimeout: 180000,
	maxWorkers: 1,
	reporters: ['<rootDir>/test/summary-reporter.js'],
};
