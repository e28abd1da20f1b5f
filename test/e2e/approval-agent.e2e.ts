// End to end on n8n 2.x: SMS Messaging Approval as an AI Agent's Human review tool. The agent's
// chat model is n8n's OpenAI Chat Model pointed at a scripted OpenAI-compatible server on
// 127.0.0.1 (no real model): it asks for the gated Calculator tool once, then answers with what
// the tool returned. The Calculator runs only after the reviewer approves by SMS.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { postForm } from './form-post';
import { describeOnNewest, NEWEST_LINE } from './lines';
import { lines, N8n, pageServed } from './n8n-rest';

const APPROVAL_HITL = 'n8n-nodes-sms-messaging.smsMessagingApprovalHitlTool';

interface ChatRequest {
	messages: Array<{ role: string; content?: string | null }>;
	tools?: Array<{ function: { name: string; parameters: unknown } }>;
	stream?: boolean;
}

/** The scripted model: a tool call first, then a final answer quoting the tool's result. */
function scriptedModel() {
	const requests: ChatRequest[] = [];
	const server = http.createServer((req, res) => {
		let text = '';
		req.on('data', (chunk) => (text += chunk));
		req.on('end', () => {
			const body = JSON.parse(text || '{}') as ChatRequest;
			requests.push(body);
			const toolResult = body.messages.find((m) => m.role === 'tool');
			const tool = body.tools?.[0]?.function.name ?? 'calculator';
			const message = toolResult
				? { role: 'assistant', content: `The result is ${toolResult.content}` }
				: {
						role: 'assistant',
						content: null,
						tool_calls: [
							{
								id: 'call_1',
								type: 'function',
								function: {
									name: tool,
									arguments: JSON.stringify({
										toolParameters: { input: '6*7' },
										hitlParameters: {},
									}),
								},
							},
						],
					};
			const finish = toolResult ? 'stop' : 'tool_calls';
			if (body.stream) {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				const delta = toolResult
					? { role: 'assistant', content: message.content }
					: {
							role: 'assistant',
							tool_calls: (message.tool_calls ?? []).map((call, index) => ({ index, ...call })),
						};
				const chunk = (choice: object) =>
					`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'scripted', choices: [choice] })}\n\n`;
				res.write(chunk({ index: 0, delta, finish_reason: null }));
				res.write(chunk({ index: 0, delta: {}, finish_reason: finish }));
				res.end('data: [DONE]\n\n');
				return;
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					id: 'c1',
					object: 'chat.completion',
					created: 0,
					model: 'scripted',
					choices: [{ index: 0, message, finish_reason: finish }],
					usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
				}),
			);
		});
	});
	return { server, requests };
}

describeOnNewest('n8n 2.x: Human review by SMS for an AI Agent', () => {
	const endpoints = lines().find(({ line }) => line === NEWEST_LINE)!;
	// Made in beforeAll: with E2E_N8N_LINES leaving 2.x out, this block is skipped.
	let n8n: N8n;
	const model = scriptedModel();
	let smsCredential: { id: string; name: string };
	let openAi: { id: string; name: string };

	beforeAll(async () => {
		// Any free port: the line's block is global setup's.
		await new Promise<void>((resolve) => model.server.listen(0, '127.0.0.1', resolve));
		const { port: listening } = model.server.address() as AddressInfo;
		n8n = new N8n(endpoints);
		await n8n.login();
		smsCredential = await n8n.createCredential(`Agent simulator ${Date.now()}`);
		const created = await n8n.rest<{ id: string }>('POST', '/credentials', {
			name: 'Scripted model',
			type: 'openAiApi',
			data: { apiKey: 'sk-scripted', url: `http://127.0.0.1:${listening}/v1` },
		});
		openAi = { id: created.id, name: 'Scripted model' };
	});
	afterAll(async () => await new Promise((resolve) => model.server.close(resolve)));
	beforeEach(async () => {
		await n8n.simReset();
		model.requests.length = 0;
	});

	function agentWorkflow() {
		return {
			name: `Agent with SMS review ${Date.now()}`,
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: 'trigger',
					name: 'Run manually',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'agent',
					name: 'AI Agent',
					type: '@n8n/n8n-nodes-langchain.agent',
					typeVersion: 3,
					position: [220, 0],
					parameters: { promptType: 'define', text: 'What is 6 times 7?', options: {} },
				},
				{
					id: 'model',
					name: 'OpenAI Chat Model',
					type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
					typeVersion: 1.2,
					position: [220, 200],
					parameters: { model: { __rl: true, mode: 'id', value: 'scripted' }, options: {} },
					credentials: { openAiApi: openAi },
				},
				{
					id: '3b7e9c1d-2f4a-4c6b-9d8e-7f6a5b4c3d2e',
					name: 'SMS review',
					type: APPROVAL_HITL,
					typeVersion: 1,
					position: [440, 200],
					parameters: {
						senderId: 'ACME',
						number: '254700000009',
						approvalOptions: { values: { approvalType: 'double' } },
					},
					credentials: { smsMessagingApi: smsCredential },
				},
				{
					id: 'calc',
					name: 'Calculator',
					type: '@n8n/n8n-nodes-langchain.toolCalculator',
					typeVersion: 1,
					position: [660, 400],
					parameters: {},
				},
			],
			connections: {
				'Run manually': { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
				'OpenAI Chat Model': {
					ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
				},
				'SMS review': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
				Calculator: { ai_tool: [[{ node: 'SMS review', type: 'ai_tool', index: 0 }]] },
			},
		};
	}

	async function runUntil(executionId: string, done: (status: string) => boolean) {
		const deadline = Date.now() + 60_000;
		for (;;) {
			const execution = await n8n.rest<{ status: string; data: string }>(
				'GET',
				`/executions/${executionId}`,
			);
			if (done(execution.status)) return execution;
			if (Date.now() > deadline) throw new Error(`execution ${executionId}: ${execution.status}`);
			await new Promise((resolve) => setTimeout(resolve, 300));
		}
	}

	async function startAgent() {
		const { id } = await n8n.createWorkflow(agentWorkflow());
		const workflowData = await n8n.rest<Record<string, unknown>>('GET', `/workflows/${id}`);
		const { executionId } = await n8n.rest<{ executionId: string }>(
			'POST',
			`/workflows/${id}/run`,
			{ workflowData, triggerToStartFrom: { name: 'Run manually' }, startNodes: [] },
		);
		await runUntil(executionId, (status) => status === 'waiting');
		const sends = (await n8n.simRequests()).filter((r) => r.host === 'send');
		expect(sends).toHaveLength(1);
		const [envelope] = sends[0].body.envelopes!;
		await pageServed(envelope.message.slice(envelope.message.lastIndexOf('\n') + 1));
		return { executionId, envelope };
	}

	const answer = async (link: string, approved: string) => await postForm(link, { approved });

	test('the tool call waits for the SMS approval, then the tool runs', async () => {
		const { executionId, envelope } = await startAgent();
		expect(envelope.number).toBe('254700000009');
		// The message as written (n8n's default for a Human review tool), then the link on its own line.
		const { message } = envelope;
		const text = message.slice(0, message.lastIndexOf('\n'));
		const link = message.slice(message.lastIndexOf('\n') + 1);
		expect(text).toMatch(/^The agent wants to run this tool: Calculator/);
		expect(link).toMatch(
			new RegExp(
				`/webhook-waiting/${executionId}/3b7e9c1d-2f4a-4c6b-9d8e-7f6a5b4c3d2e\\?k=0\\.[\\w-]{22}&signature=[0-9a-f]{64}$`,
			),
		);
		// Waiting: the model was asked once, the Calculator has not run.
		expect(model.requests).toHaveLength(1);

		expect((await answer(link, 'true')).status).toBe(200);
		const finished = await runUntil(
			executionId,
			(status) => !['waiting', 'running', 'new'].includes(status),
		);
		expect(finished.status).toBe('success');
		// The model got the Calculator's result back, and answered with it.
		expect(model.requests).toHaveLength(2);
		const toolMessage = model.requests[1].messages.find((m) => m.role === 'tool');
		expect(toolMessage?.content).toContain('42');
		expect(finished.data).toContain('The result is [{\\"response\\":\\"42\\"}]');
	});

	test('Decline: the Calculator never runs, the agent hears that the call was refused', async () => {
		const { executionId, envelope } = await startAgent();
		const link = envelope.message.slice(envelope.message.lastIndexOf('\n') + 1);
		expect((await answer(link, 'false')).status).toBe(200);
		const finished = await runUntil(
			executionId,
			(status) => !['waiting', 'running', 'new'].includes(status),
		);
		expect(finished.status).toBe('success');
		expect(model.requests).toHaveLength(2);
		const toolMessage = model.requests[1].messages.find((m) => m.role === 'tool');
		expect(toolMessage?.content).not.toContain('42');
	});
});
