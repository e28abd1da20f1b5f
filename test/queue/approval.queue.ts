// SMS Messaging Approval in n8n's queue mode: a production execution started by a webhook sends the
// SMS on a worker and waits; the answer to the link reaches main, and a worker resumes the
// execution to the end. It brings up a cluster of its own (as stalled-1x.queue.ts does): the shared
// one loses its workers in queue-mode.queue.ts.
import fs from 'node:fs';

import { Simulator } from '../simulator/simulator';
import {
	callWebhook,
	clusterState,
	DATA_DIR,
	executionData,
	n8nClient,
	PORT_BASE,
	publishWebhookWorkflow,
	settledExecutions,
	TEST_QUEUE_ENV,
	workerLogWhenFinished,
	type QueueState,
} from './cluster';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/lib/queue-mode');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const local = require('../../scripts/lib/local-n8n');

let state: QueueState;
let n8n: ReturnType<typeof n8nClient>;
let credential: { id: string; name: string };
let stop: () => Promise<void> = async () => {};

beforeAll(async () => {
	const dataDir = `${DATA_DIR}-approval`;
	fs.rmSync(dataDir, { recursive: true, force: true });
	const ports = queue.portsFrom(PORT_BASE + 80);
	const simulator = new Simulator({ token: 'queue-approval-token', balance: 1e9, smsRecords: 0 });
	const urls = await simulator.start({ apiPort: ports.api, sendPort: ports.send });
	stop = async () => await simulator.stop();
	const cluster = await queue.startQueueMode({ dataDir, ports, workers: 2, env: TEST_QUEUE_ENV });
	stop = async () => {
		await cluster.stop();
		await simulator.stop();
	};
	state = clusterState(
		cluster,
		{ ...urls, token: simulator.token },
		{ n8nDir: local.paths(queue.LINE).dir, postgresPort: ports.postgres },
	);
	n8n = n8nClient(state);
	await n8n.login();
	credential = await n8n.createCredential('SMS Messaging (queue approval)');
});

afterAll(async () => await stop());

test('a waiting approval resumes on a worker with the answer', async () => {
	await n8n.simReset();
	const workflow = await publishWebhookWorkflow(n8n, state, 'queue: approval', 'queue-approval', [
		{
			id: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
			name: 'SMS Messaging Approval',
			type: 'n8n-nodes-sms-messaging.smsMessagingApproval',
			typeVersion: 1,
			parameters: {
				operation: 'sendAndWait',
				senderId: 'ACME',
				number: '={{ $json.body.number }}',
				message: '=Deploy {{ $json.body.release }}?',
			},
			credentials: { smsMessagingApi: credential },
		},
	]);
	await callWebhook(workflow.url, { number: '254712000077', release: 'v2.3' });
	const [waiting] = await settledExecutions(state, workflow.id, 1);
	expect(waiting.status).toBe('waiting');
	const sends = (await n8n.simRequests()).filter((r) => r.host === 'send');
	expect(sends).toHaveLength(1);
	const [text, link] = sends[0].body.envelopes![0].message.split('\n');
	expect(text).toBe('Deploy v2.3?');
	expect(link).toContain(
		`/webhook-waiting/${waiting.id}/5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a?signature=`,
	);

	const answer = await fetch(link, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: 'approved=true',
	});
	expect(answer.status).toBe(200);
	const deadline = Date.now() + 60_000;
	let run = await executionData(n8n, state, waiting.id);
	while (run.status !== 'success' && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 500));
		run = await executionData(n8n, state, waiting.id);
	}
	expect(run.status).toBe('success');
	const output = run.resultData.runData['SMS Messaging Approval'][0].data!.main[0];
	expect(output.map((item) => item.json)).toEqual([{ data: { approved: true } }]);
	// Both parts ran on workers: the send before the wait, and the resumed run after the answer.
	const log = await workerLogWhenFinished(state, [waiting.id]);
	expect(log.started.get(waiting.id)).toEqual([
		expect.stringMatching(/^worker-/),
		expect.stringMatching(/^worker-/),
	]);
	expect((await n8n.simRequests()).filter((r) => r.host === 'send')).toHaveLength(1);
});
