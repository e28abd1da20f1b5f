// Answers a waiting SMS Messaging Approval run the way n8n's waiting-webhook handler does: the
// node's webhook() runs in n8n-core's own WebhookContext on a request to the link, and when it
// returns data n8n resumes the execution with it (the waiting node disabled, so that its output is
// the webhook's items). n8n's server (packages/cli) is not a dependency; the end-to-end tests run
// the real one.
import { WebhookContext, WorkflowExecute } from 'n8n-core';
import {
	type IBinaryData,
	type INodeParameters,
	type IRun,
	type IWebhookData,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Simulator } from '../simulator/simulator';
import { SEND_AND_WAIT } from './approval-fixtures';
import { type Credentials, runWorkflow, type RunResult } from './n8n';

export const APPROVAL_TYPE = 'n8n-nodes-sms-messaging.smsMessagingApproval';

/** Send and Wait from ACME to each item's `phone` with its `text`, `parameters` added: the run waits. */
export async function approvalRun(
	credentials: Credentials,
	items: Array<{ phone: string; text: string }>,
	parameters: INodeParameters = {},
): Promise<RunResult> {
	return await runWorkflow({
		nodeType: APPROVAL_TYPE,
		parameters: {
			...SEND_AND_WAIT,
			...parameters,
		},
		items,
		credentials,
	});
}

/** The links of the simulator's last send request, one per envelope, in the request's order. */
export function linksSent(sim: Simulator): string[] {
	const sent = sim.requests.filter((request) => request.host === 'send');
	const { envelopes } = sent[sent.length - 1].body as { envelopes: Array<{ message: string }> };
	return envelopes.map((envelope) => envelope.message.split('\n')[1]);
}

/** The parts of Express's response the node uses, recording what it was told. */
class RecordedResponse {
	statusCode = 200;
	headers: Record<string, string> = {};
	body?: string;

	status(code: number) {
		this.statusCode = code;
		return this;
	}

	setHeader(name: string, value: string) {
		this.headers[name.toLowerCase()] = value;
		return this;
	}

	type(type: string) {
		return this.setHeader('content-type', type === 'html' ? 'text/html; charset=utf-8' : type);
	}

	send(body: string) {
		this.body = body;
		return this;
	}
}

/** A file a browser posts: its name and type as the browser gives them, and its bytes. */
export interface Upload {
	filename: string;
	mimetype: string;
	content: Buffer;
}

interface WebhookRequest {
	method: 'GET' | 'POST';
	/** The link the request goes to (as an SMS carried it): its query arrives with the request. */
	link?: string;
	query?: Record<string, string>;
	/** The form's fields; posted as the page's form posts them (multipart) unless told otherwise. */
	body?: Record<string, unknown>;
	/** The form's files by input name, posted multipart. */
	files?: Record<string, Upload | Upload[]>;
	encoding?: 'multipart' | 'urlencoded';
}

const uploads = mkdtempSync(join(tmpdir(), 'sms-approval-uploads-'));
let uploaded = 0;

/**
 * A file as n8n's multipart parser (formidable 3, n8n 1.82 to 2.41) hands it to a node: written to
 * a temporary file, with the name and type the browser gave.
 */
function parsedFile({ filename, mimetype, content }: Upload) {
	const newFilename = `upload-${++uploaded}`;
	const filepath = join(uploads, newFilename);
	writeFileSync(filepath, content);
	return { filepath, newFilename, originalFilename: filename, mimetype, size: content.length };
}

/** A POST's body and headers as n8n's webhook server hands them to the node (1.82 to 2.41). */
function posted({ body = {}, files = {}, encoding = 'multipart' }: WebhookRequest) {
	if (encoding === 'urlencoded') {
		return { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
	}
	// n8n gives one file (like one value) as itself, several as a list.
	const parsed = Object.fromEntries(
		Object.entries(files).map(([name, given]) => {
			const list = (Array.isArray(given) ? given : [given]).map(parsedFile);
			return [name, list.length === 1 ? list[0] : list];
		}),
	);
	return {
		body: { data: body, files: parsed },
		headers: { 'content-type': 'multipart/form-data; boundary=----sms-messaging-test' },
	};
}

export interface Answer {
	response: RecordedResponse;
	returned: IWebhookResponseData;
	/** The resumed run, when the request resumed it. */
	resumed?: IRun;
	/** The approval node's output in the resumed run. */
	items?: Array<{ json: Record<string, unknown>; binary?: Record<string, IBinaryData> }>;
}

/** One request to the waiting node's link; resumes the run if the node returns data. */
export async function answer(waiting: RunResult, request: WebhookRequest): Promise<Answer> {
	const { workflow, additionalData } = waiting;
	const runExecutionData = waiting.run.data;
	const stack = runExecutionData.executionData!.nodeExecutionStack;
	const node = workflow.getNode(stack[0].node.name)!;
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const description = nodeType.description.webhooks!.find((w) => w.httpMethod === request.method)!;
	// n8n resumes through a node's restart webhook whose path is the link's last part: the node id.
	expect(description).toMatchObject({ restartWebhook: true, path: '={{ $nodeId }}' });
	const webhook: IWebhookData = {
		httpMethod: request.method,
		node: node.name,
		path: node.id,
		webhookDescription: description,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
	};

	const response = new RecordedResponse();
	const requestData = {
		additionalData: {
			...additionalData,
			httpRequest: {
				method: request.method,
				query: {
					...Object.fromEntries(new URL(request.link ?? 'http://link.invalid/').searchParams),
					...request.query,
				},
				...(request.method === 'POST' ? posted(request) : { body: {}, headers: {} }),
				params: {},
			},
			httpResponse: response,
		},
	};
	const context = new WebhookContext(
		workflow,
		node,
		requestData.additionalData as unknown as typeof additionalData,
		'manual',
		webhook,
		[],
		runExecutionData,
	);
	const returned = await nodeType.webhook!.call(context);
	if (!returned.workflowData) return { response, returned };

	// What n8n's waiting webhooks do before running the rest of the workflow.
	const lastNode = runExecutionData.resultData.lastNodeExecuted!;
	runExecutionData.waitTill = undefined;
	runExecutionData.resultData.runData[lastNode].pop();
	stack[0].node.disabled = true;
	stack[0].data.main = returned.workflowData;
	const resumed = await new WorkflowExecute(
		additionalData,
		'manual',
		runExecutionData,
	).processRunExecutionData(workflow);
	const items = resumed.data.resultData.runData[lastNode]?.[0]?.data?.main?.[0] ?? [];
	return { response, returned, resumed, items: items as Answer['items'] };
}

/** The waiting run resumed as n8n's wait tracker resumes it when the time limit has passed. */
export async function timeOut(waiting: RunResult) {
	const { workflow, additionalData } = waiting;
	const runExecutionData = waiting.run.data;
	const lastNode = runExecutionData.resultData.lastNodeExecuted!;
	const resumed = await new WorkflowExecute(
		additionalData,
		'manual',
		runExecutionData,
	).processRunExecutionData(workflow);
	const items = resumed.data.resultData.runData[lastNode]?.[0]?.data?.main?.[0] ?? [];
	return { resumed, items };
}
