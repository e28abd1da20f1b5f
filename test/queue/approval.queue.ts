// SMS Messaging Approval in n8n's queue mode: a production execution started by a webhook sends the
// SMS on a worker and waits; the answer to the link reaches main, and a worker resumes the
// execution to the end. It brings up a cluster of its own (as stalled-1x.queue.ts does): the shared
// one loses its workers in queue-mode.queue.ts; and beside it a webhook process, as n8n's scaling
// guide runs one, with binary data in the database (the mode n8n 2.x takes in queue mode), to which
// a phone posts a photo answer.
import fs from 'node:fs';
import path from 'node:path';

import { fileOf, postForm } from '../e2e/form-post';
import { fileBytes } from '../helpers/approval-fixtures';
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
import type { WorkflowNode } from '../e2e/n8n-rest';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/lib/queue-mode');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const local = require('../../scripts/lib/local-n8n');

let state: QueueState;
let n8n: ReturnType<typeof n8nClient>;
let credential: { id: string; name: string };
let stop: () => Promise<void> = async () => {};
/** The webhook process's address: answers to links posted there instead of main. */
let webhookUrl: string;

/** Binary data as n8n recommends it in queue mode (main, webhook process and workers share it). */
const BINARY_DATA_ENV = { N8N_DEFAULT_BINARY_DATA_MODE: 'database' };

beforeAll(async () => {
	const dataDir = `${DATA_DIR}-approval`;
	fs.rmSync(dataDir, { recursive: true, force: true });
	const ports = queue.portsFrom(PORT_BASE + 80);
	const simulator = new Simulator({ token: 'queue-approval-token', balance: 1e9, smsRecords: 0 });
	const urls = await simulator.start({ apiPort: ports.api, sendPort: ports.send });
	stop = async () => await simulator.stop();
	const env = { ...TEST_QUEUE_ENV, ...BINARY_DATA_ENV };
	const cluster = await queue.startQueueMode({ dataDir, ports, workers: 2, env });
	stop = async () => {
		await cluster.stop();
		await simulator.stop();
	};
	await local.installPackage(path.join(dataDir, 'webhook'), await local.packPackage());
	const webhook = queue.launchWebhookProcess({
		dataDir,
		ports,
		port: ports.n8n + 6,
		brokerPort: ports.n8n + 7,
		env,
	});
	stop = async () => {
		await webhook.stop();
		await cluster.stop();
		await simulator.stop();
	};
	await webhook.ready;
	webhookUrl = webhook.url;
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

const NODE_ID = '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a';

/**
 * Publishes a webhook workflow whose approval asks about `release`, calls it, and gives the waiting
 * execution and the link its SMS carries (checked: one send, the message, then the signed link).
 */
async function waitingApproval(
	webhookPath: string,
	release: string,
	extra: object = {},
	after: WorkflowNode[] = [],
) {
	await n8n.simReset();
	const workflow = await publishWebhookWorkflow(n8n, state, `queue: ${webhookPath}`, webhookPath, [
		{
			id: NODE_ID,
			name: 'SMS Messaging Approval',
			type: 'n8n-nodes-sms-messaging.smsMessagingApproval',
			typeVersion: 1,
			parameters: {
				operation: 'sendAndWait',
				senderId: 'ACME',
				number: '={{ $json.body.number }}',
				message: '=Deploy {{ $json.body.release }}?',
				...extra,
			},
			credentials: { smsMessagingApi: credential },
		},
		...after,
	]);
	await callWebhook(workflow.url, { number: '254712000077', release });
	const [waiting] = await settledExecutions(state, workflow.id, 1);
	expect(waiting.status).toBe('waiting');
	const sends = (await n8n.simRequests()).filter((r) => r.host === 'send');
	expect(sends).toHaveLength(1);
	const [text, link] = sends[0].body.envelopes![0].message.split('\n');
	expect(text).toBe(`Deploy ${release}?`);
	expect(link).toMatch(
		new RegExp(
			`/webhook-waiting/${waiting.id}/${NODE_ID}\\?k=0\\.[\\w-]{22}&signature=[0-9a-f]{64}$`,
		),
	);
	return { waiting, link };
}

/** The execution once it has finished (or the deadline passed), and the approval's output. */
async function finished(executionId: string, timeoutMs = 60_000) {
	const deadline = Date.now() + timeoutMs;
	let run = await executionData(n8n, state, executionId);
	while (run.status !== 'success' && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 500));
		run = await executionData(n8n, state, executionId);
	}
	expect(run.status).toBe('success');
	return run.resultData.runData['SMS Messaging Approval'][0].data!.main[0].map((item) => item.json);
}

const answer = async (link: string, approved: boolean) =>
	await postForm(link, { approved: String(approved) });

test('a waiting approval resumes on a worker with the answer', async () => {
	const { waiting, link } = await waitingApproval('queue-approval', 'v2.3');
	expect((await answer(link, true)).status).toBe(200);
	expect(await finished(waiting.id)).toEqual([
		{ data: { approved: true }, answeredBy: '254712000077' },
	]);
	// Both parts ran on workers: the send before the wait, and the resumed run after the answer.
	const log = await workerLogWhenFinished(state, [waiting.id]);
	expect(log.started.get(waiting.id)).toEqual([
		expect.stringMatching(/^worker-/),
		expect.stringMatching(/^worker-/),
	]);
	expect((await n8n.simRequests()).filter((r) => r.host === 'send')).toHaveLength(1);
});

test('Decline: the execution resumes on a worker with approved false', async () => {
	const { waiting, link } = await waitingApproval('queue-decline', 'v2.4', {
		approvalOptions: { values: { approvalType: 'double' } },
	});
	expect((await answer(link, false)).status).toBe(200);
	expect(await finished(waiting.id)).toEqual([
		{ data: { approved: false }, answeredBy: '254712000077' },
	]);
	const log = await workerLogWhenFinished(state, [waiting.id]);
	expect(log.started.get(waiting.id)).toHaveLength(2);
});

test('the time limit passes first: main resumes it on a worker, with one item that says so, not approved', async () => {
	// n8n's wait tracker, on main, looks for due executions once a minute.
	const { waiting, link } = await waitingApproval('queue-time-limit', 'v2.5', {
		options: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: 0.05, resumeUnit: 'minutes' },
			},
		},
	});
	const output = await finished(waiting.id, 100_000);
	expect(output).toEqual([{ data: { approved: false }, timedOut: true }]);
	const log = await workerLogWhenFinished(state, [waiting.id]);
	expect(log.started.get(waiting.id)).toHaveLength(2);
	// A late answer changes nothing.
	expect((await answer(link, true)).status).toBeLessThan(500);
	expect(await finished(waiting.id)).toEqual([{ data: { approved: false }, timedOut: true }]);
});

/** What the node after the approval computes of the photo, on a worker: its size and a checksum. */
const CHECK_PHOTO: WorkflowNode = {
	id: 'check-photo',
	name: 'Check photo',
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	parameters: {
		jsCode: `const bytes = await this.helpers.getBinaryDataBuffer(0, 'Photo');
let sum = 0;
for (const byte of bytes) sum = (sum * 31 + byte) >>> 0;
const photo = $input.first().binary.Photo;
return [{ json: { size: bytes.length, sum, mimeType: photo.mimeType, fileName: photo.fileName } }];`,
	},
};

test('a photo answered through the webhook process reaches the next node on a worker, its bytes intact (binary data in the database)', async () => {
	const { waiting, link } = await waitingApproval(
		'queue-photo',
		'v2.6',
		{
			responseType: 'customForm',
			formFields: {
				values: [
					{
						fieldLabel: 'Photo',
						fieldType: 'file',
						multipleFiles: false,
						acceptFileTypes: 'image/*',
						requiredField: true,
					},
				],
			},
		},
		[CHECK_PHOTO],
	);
	// A 3.5 MB photo of varied bytes, as a phone's.
	const photo = fileBytes('jpeg', 3_500_000);
	for (let at = 16; at < photo.length; at++) photo[at] = (at * 7919) % 251;
	let sum = 0;
	for (const byte of photo) sum = (sum * 31 + byte) >>> 0;
	const viaWebhookProcess = link.replace(state.n8nUrl, webhookUrl);
	expect(viaWebhookProcess.startsWith(webhookUrl)).toBe(true);
	const answered = await postForm(viaWebhookProcess, [
		['field-0', fileOf('IMG_5001.jpg', 'image/jpeg', photo)],
		['whole', '1'],
	]);
	expect(answered.status).toBe(200);
	expect(await answered.text()).toContain('Your answer was recorded');
	const deadline = Date.now() + 60_000;
	let run = await executionData(n8n, state, waiting.id);
	while (run.status !== 'success' && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 500));
		run = await executionData(n8n, state, waiting.id);
	}
	expect(run.status).toBe('success');
	const [checked] = run.resultData.runData['Check photo'][0].data!.main[0];
	expect(checked.json).toEqual({
		size: photo.length,
		sum,
		mimeType: 'image/jpeg',
		fileName: 'IMG_5001.jpg',
	});
	// The send and the resumed run ran on workers; the answer went to the webhook process only.
	const log = await workerLogWhenFinished(state, [waiting.id]);
	expect(log.started.get(waiting.id)).toHaveLength(2);
});
