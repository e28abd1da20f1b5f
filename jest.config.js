/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testTimeout: 30000,
	reporters: ['<rootDir>/test/summary-reporter.js'],
};
