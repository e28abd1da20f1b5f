// End to end: SMS → Send under n8n's own retries in a real n8n, the simulator checked for what it
// accepted. Retry On Fail on the node, and a failed webhook execution retried through n8n's REST
// API (as the Executions list does), with the original and with the currently saved workflow; and
// SMS Messaging Approval's retried execution, which sends nothing again.
import { randomUUID } from 'node:crypto';

import { SEND_AND_WAIT } from '../helpers/approval-fixtures';
import { localN8n } from './lines';
import { lineSession } from './line-session';
import { codeNode, lines, type N8n, outputOf, smsNode } from './n8n-rest';

const ORDERS = Array.from({ length: 30 }, (_, i) => `ORD-${i}`);
const ROWS =
	'return Array.from({ length: 30 }, (_, i) => ({ json: { phone: `2547${10000000 + i}`, order: `ORD-${i}` } }));';
// Three requests of ten, one after another: the second to reach the API carries items 10-19.
const SEND = {
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '=Order {{ $json.order }} is on its way',
	thirdPartyRef: '={{ $json.order }}',
	options: { batchSize: 10, parallelRequests: 1 },
};

type Node = { name: string } & Record<string, unknown>;

/** A production webhook at `path`, answering when it receives (POST). */
function webhookNode(path: string): Node {
	return {
		id: 'webhook',
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: { path, httpMethod: 'POST', responseMode: 'onReceived', options: {} },
	};
}

/** `first` (a trigger) → Code node with the 30 rows → SMS Messaging (`sms`). */
function chain(name: string, first: Node, sms: Node) {
	const nodes = [first, codeNode(ROWS), sms].map((node: Node, i) => ({
		position: [220 * i, 0],
		...node,
	}));
	const connections = Object.fromEntries(
		nodes
			.slice(0, -1)
			.map((node, i) => [
				node.name,
				{ main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] },
			]),
	);
	return { name, nodes, connections, settings: { executionOrder: 'v1' }, active: false };
}

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s',
	(_line, endpoints) => {
		const { n8n, credential } = lineSession(endpoints, 'Simulator retries');

		/** The references of every envelope the simulator accepted, in the order it accepted them. */
		const accepted = async () =>
			(await n8n.simRequests())
				.filter((r) => r.host === 'send' && r.status === 202)
				.flatMap((r) => (r.body.envelopes ?? []).map((e) => e.thirdPartyRef));

		test('Retry On Fail: request 2 of 3 refused once (402); the next try sends only what was not accepted', async () => {
			await n8n.simFault({ host: 'send', status: 402, skip: 1 });
			const manual = {
				id: 'trigger',
				name: 'Run manually',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				parameters: {},
			};
			const sms = smsNode(credential, SEND, {
				retryOnFail: true,
				maxTries: 2,
				waitBetweenTries: 0,
			});
			const { id } = await n8n.createWorkflow(chain('e2e retry on fail', manual, sms));
			const run = await n8n.run(id);
			expect(run.status).toBe('success');
			expect(await accepted()).toEqual(ORDERS);
			const out = outputOf(run, 'SMS Messaging');
			expect(out.map((item) => item.json.thirdPartyRef)).toEqual(ORDERS);
			expect(out.map((item) => item.pairedItem)).toEqual(ORDERS.map((_, item) => ({ item })));
		});

		test.each([false, true])(
			'a webhook execution failed at request 2 of 3 (402), retried through the REST API (loadWorkflow: %s): every envelope reaches the API exactly once',
			async (loadWorkflow) => {
				const path = `e2e-send-retry-${randomUUID()}`;
				const webhook = webhookNode(path);
				const { id } = await n8n.createWorkflow(
					chain(`e2e execution retry ${loadWorkflow}`, webhook, smsNode(credential, SEND)),
				);
				await localN8n.activateWorkflow(endpoints.n8nUrl, n8n.sessionCookie, id);
				await n8n.simFault({ host: 'send', status: 402, skip: 1 });

				const response = await callWebhook(`${endpoints.n8nUrl}/webhook/${path}`);
				expect(`${response.status} ${response.ok ? '' : await response.text()}`).toBe('200 ');
				const failedId = await finished(n8n, id, []);
				expect((await n8n.executionOutput(failedId, 'SMS Messaging')).status).toBe('error');
				expect(await accepted()).toEqual(ORDERS.slice(0, 10));

				await n8n.rest('POST', `/executions/${failedId}/retry`, { loadWorkflow });
				const retriedId = await finished(n8n, id, [failedId]);
				const retried = await n8n.executionOutput(retriedId, 'SMS Messaging');
				expect(retried.status).toBe('success');
				expect(retried.items.map((item) => item.json.thirdPartyRef)).toEqual(ORDERS);
				// Items 0-9 went out once, in the failed execution; 10-29 once, in the retry.
				expect(await accepted()).toEqual(ORDERS);
			},
		);

		test('SMS Messaging Approval: a webhook execution whose send may have gone out in part, retried through the REST API: the retry sends nothing', async () => {
			const path = `e2e-approval-retry-${randomUUID()}`;
			const webhook = webhookNode(path);
			const approval = {
				id: 'approval',
				name: 'SMS Messaging',
				type: 'n8n-nodes-sms-messaging.smsMessagingApproval',
				typeVersion: 1,
				webhookId: randomUUID(),
				parameters: { ...SEND_AND_WAIT, message: '=Ship order {{ $json.order }}?' },
				credentials: { smsMessagingApi: credential },
			};
			const { id } = await n8n.createWorkflow(chain('e2e approval retry', webhook, approval));
			await localN8n.activateWorkflow(endpoints.n8nUrl, n8n.sessionCookie, id);
			// The API takes all 30 but answers with 29 outgoings, and its SMS list cannot be read.
			await n8n.simFault({ host: 'send', dropOutgoings: 1 });
			await n8n.simFault({ path: '/sms', status: 500, count: 1000 });

			await callWebhook(`${endpoints.n8nUrl}/webhook/${path}`);
			const failedId = await finished(n8n, id, [], true);
			expect((await n8n.executionOutput(failedId, 'SMS Messaging')).status).toBe('error');
			expect(await accepted()).toHaveLength(30);

			await n8n.rest('POST', `/executions/${failedId}/retry`, { loadWorkflow: false });
			const retriedId = await finished(n8n, id, [failedId], true);
			const retried = await n8n.rest<{ status: string; data: string }>(
				'GET',
				`/executions/${retriedId}`,
			);
			expect(retried.status).toBe('error');
			expect(retried.data).toContain('Not sent again: an earlier try of this run sent messages');
			// One send request in all: the failed execution's.
			expect((await n8n.simRequests()).filter((r) => r.host === 'send')).toHaveLength(1);
		}, 90_000);
	},
);

/**
 * The id of the workflow's newest execution not in `known`, once it has finished (or, with
 * `waitingEnds`, also once it waits, as an approval does after its send).
 */
async function finished(
	n8n: N8n,
	workflowId: string,
	known: string[],
	waitingEnds = false,
): Promise<string> {
	const pending = waitingEnds ? ['new', 'running'] : ['new', 'running', 'waiting'];
	const deadline = Date.now() + 60_000;
	while (Date.now() < deadline) {
		const [newest] = (await n8n.executionIds(workflowId)).filter((id) => !known.includes(id));
		if (newest) {
			const { status } = await n8n.rest<{ status: string }>('GET', `/executions/${newest}`);
			if (!pending.includes(status)) return newest;
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	throw new Error(`no finished execution of workflow ${workflowId}`);
}

/** POSTs to a production webhook, waiting (10 s at most) for n8n to register it after activation. */
async function callWebhook(url: string): Promise<Response> {
	const deadline = Date.now() + 10_000;
	for (;;) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
		// A 404 starts nothing: the webhook is not registered yet.
		if (response.status !== 404 || Date.now() > deadline) return response;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}
