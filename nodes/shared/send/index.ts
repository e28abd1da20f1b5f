// Sending messages, for every node of the package: the parts SMS → Send uses, and sendInOneRequest.
//
// The parts: the plan (every item checked before the first request), the request of one batch,
// the scheduler of the run's requests, the outcome of every envelope and the run's error. SMS →
// Send builds on them (it adds Continue On Fail, the dry run and its ledger, resources/sms/send/);
// other nodes send through `sendInOneRequest` (oneRequest.ts), which keeps no ledger.

export { outcomeItem, sendEnvelopes, type EnvelopeOutcome } from './outcomes';
export { planRun, type RunPlan } from './plan';
export { runError } from './runError';
export { sendInOneRequest } from './oneRequest';
