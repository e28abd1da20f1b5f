// Global setup's part of the trigger's end-to-end test: a workflow with the SMS Messaging Trigger
// polling every minute is activated in a real n8n as soon as the line is up, with the example
// workflow examples/alert-on-failed-sms.json polling the same simulator, and one message is failed
// once the activations' polls are over. The minute until n8n's next poll passes while the other
// e2e tests run; trigger.e2e.ts then looks for the executions.
import fs from 'node:fs';
import path from 'node:path';

import { packageRoot } from '../helpers/package-root';
import { localN8n, type LineEndpoints, type TriggerWatch } from './lines';
import { N8n } from './n8n-rest';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require('../simulator/simulator');

const TRIGGER_WORKFLOW_NAME = 'E2E: SMS Messaging Trigger every minute';

/** Waits until the simulator has had no request for `forMs` (at most `atMostMs`). */
async function quiet(simulator: { requests: unknown[] }, forMs: number, atMostMs: number) {
	const deadline = Date.now() + atMostMs;
	let seen = -1;
	while (seen !== simulator.requests.length && Date.now() < deadline) {
		seen = simulator.requests.length;
		await new Promise((resolve) => setTimeout(resolve, forMs));
	}
}

export async function startTriggerWatch(
	endpoints: LineEndpoints,
	ports: { triggerApi: number; triggerSend: number },
): Promise<{ watch: TriggerWatch; stop: () => Promise<void> }> {
	const editorToken = `e2e-trigger-editor-${endpoints.line}-5e2a`;
	const simulator = new Simulator({
		token: `e2e-trigger-${endpoints.line}-3b9d`,
		otherTokens: [editorToken],
		smsRecords: 0,
	});
	const urls = await simulator.start({ apiPort: ports.triggerApi, sendPort: ports.triggerSend });
	try {
		const toFail = simulator.addSms({ recipient: '254711000001', content: 'Your code is 4821' });
		const deliveredBefore = simulator.addSms({
			recipient: '254711000002',
			content: 'Your parcel is on its way',
		});
		simulator.setSmsStatus(deliveredBefore.id, 'DELIVERED');

		const n8n = new N8n(endpoints);
		await n8n.login();
		const credential = await n8n.createCredential('SMS Messaging (trigger simulator)', {
			apiToken: simulator.token,
			...urls,
		});
		const { id } = await n8n.createWorkflow({
			name: TRIGGER_WORKFLOW_NAME,
			nodes: [
				{
					id: 'watch',
					name: 'SMS Messaging Trigger',
					type: 'n8n-nodes-sms-messaging.smsMessagingTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] } },
					credentials: { smsMessagingApi: credential },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
			active: false,
		});
		await localN8n.activateWorkflow(endpoints.n8nUrl, n8n.sessionCookie, id);
		// The example as a user imports it, its trigger's credential pointed at this simulator.
		const example = JSON.parse(
			fs.readFileSync(path.join(packageRoot(), 'examples/alert-on-failed-sms.json'), 'utf8'),
		) as { name: string; nodes: Array<{ type: string }>; connections: unknown; settings: unknown };
		const { id: exampleWorkflowId } = await n8n.createWorkflow({
			name: `E2E: ${example.name}`,
			nodes: example.nodes.map((node) =>
				node.type.endsWith('.smsMessagingTrigger')
					? { ...node, credentials: { smsMessagingApi: credential } }
					: node,
			),
			connections: example.connections,
			settings: example.settings,
			active: false,
		});
		await localN8n.activateWorkflow(endpoints.n8nUrl, n8n.sessionCookie, exampleWorkflowId);
		// n8n 2.x polls more than once as it activates (each time as an activation, which records
		// and emits nothing); the change must come after those polls, as a real one would.
		await quiet(simulator, 5_000, 30_000);
		simulator.setSmsStatus(toFail.id, 'FAILED');
		const changedAt = Date.now();
		return {
			watch: {
				workflowId: id,
				exampleWorkflowId,
				changedAt,
				simulatorBaseUrl: urls.baseUrl,
				simulatorToken: simulator.token,
				editorToken,
				failedId: toFail.id,
				deliveredBeforeId: deliveredBefore.id,
			},
			stop: async () => await simulator.stop(),
		};
	} catch (error) {
		await simulator.stop();
		throw error;
	}
}
