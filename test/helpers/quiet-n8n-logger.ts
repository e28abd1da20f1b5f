// Jest setup (setupFiles of the unit and zones runs): n8n's logger says nothing during the tests.
//
// The engine and loader the tests run (test/helpers/n8n.ts) take n8n's Logger from n8n-core's DI
// container (@n8n/backend-common). It reads its level from GlobalConfig, which reads N8N_LOG_LEVEL
// when first built (@n8n/config, LoggingConfig: error, warn, info, debug or silent; `info` if unset)
// and writes through winston's Console transport, i.e. console.log: jest printed each message an
// execution logs (a node's error, a trigger's refused parameter) as a `console.log` block with its
// stack, about 300 in `npm test`. At `silent` the Logger drops them; the errors themselves reach
// the tests as before. Set before any test file imports n8n-core (each file gets its own module
// registry), and only in the test's own environment: the n8n hosts that scripts/lib/local-n8n.js
// launches read N8N_LOG_LEVEL too, so the e2e and queue runs, which start n8n from their test
// files and read its log, do not load this file. `N8N_LOG_LEVEL=info npx jest …` shows them again.
process.env.N8N_LOG_LEVEL ??= 'silent';
