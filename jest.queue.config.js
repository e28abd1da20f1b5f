/**
 * `npm run test:queue`: n8n's queue mode (main, two workers, PostgreSQL, Redis) with the packed
 * package, in a jest run of its own (test/queue/), after `npm test` in CI.
 * @type {import('jest').Config}
 */
module.exports = {
	projects: [
		{
			displayName: 'queue',
			preset: 'ts-jest',
			testEnvironment: 'node',
			roots: ['<rootDir>/test/queue'],
			testMatch: ['**/*.queue.ts'],
			globalSetup: '<rootDir>/test/queue/global-setup.ts',
			globalTeardown: '<rootDir>/test/queue/global-teardown.ts',
		},
	],
	testTimeout: 600000,
	reporters: ['<rootDir>/test/summary-reporter.js'],
};
