// The main Send, lookup and trigger tests again, against the simulator answering as a Java
// service may (SMS_SIM_SHAPE=java: times without an offset, texts normalised) and with the process
// in another time zone: `npm run zones` runs them in Asia/Tokyo, and test/api-shapes.test.ts also in
// America/New_York. Each jest run adds its counts to the summary (test/summary-reporter.js).
/** @type {import('jest').Config} */
module.exports = {
	displayName: 'zones',
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	// n8n's logger silent (N8N_LOG_LEVEL), as in the unit run.
	setupFiles: ['<rootDir>/test/helpers/quiet-n8n-logger.ts'],
	testMatch: [
		'**/api-shapes.test.ts',
		'**/sms-send.test.ts',
		'**/sms-send-outcomes.test.ts',
		'**/send-truth.test.ts',
		'**/sms-get-status.test.ts',
		'**/trigger.test.ts',
	],
	testTimeout: 180000,
	reporters: ['<rootDir>/test/summary-reporter.js'],
};
