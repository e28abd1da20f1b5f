// End to end: what an SMS Messaging Approval link can answer, in a real n8n, as a recipient would
// use it: only the wait it was sent for (not another execution's, not an earlier wait of the node
// in a loop), once, by the recipient whose number the output names; and a time limit never
// reads as approved, even when the input was approved.
import { lineSession } from './line-session';
import { postForm } from './form-post';
import { expectPageHeaders } from './page-headers';
import { codeNode, lines, pageServed, sleep, until, smsNode, type WorkflowNode } from './n8n-rest';

const APPROVAL = 'n8n-nodes-sms-messaging.smsMessagingApproval';
const TIMED_OUT = { data: { approved: false }, timedOut: true };

function approvalNode(
	name: string,
	id: string,
	credential: { id: string; name: string },
	parameters: Record<string, unknown> = {},
): WorkflowNode {
	return {
		id,
		name,
		type: APPROVAL,
		typeVersion: 1,
		parameters: {
			operation: 'sendAndWait',
			senderId: 'ACME',
			number: '={{ $json.phone }}',
			message: '=Refund order {{ $json.order }}?',
			...parameters,
		},
		credentials: { smsMessagingApi: credential },
	};
}

const TRIGGER: WorkflowNode = {
	id: 'trigger',
	name: 'Run manually',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	parameters: {},
};

/** A workflow of `nodes` and `links` ([from, output, to]), from a manual trigger. */
function workflow(name: string, nodes: WorkflowNode[], links: Array<[string, number, string]>) {
	const connections: Record<string, { main: Array<Array<Record<string, unknown>>> }> = {};
	for (const [from, output, to] of links) {
		const main = (connections[from] ??= { main: [] }).main;
		while (main.length <= output) main.push([]);
		main[output].push({ node: to, type: 'main', index: 0 });
	}
	return {
		name: `${name} ${Date.now()}`,
		nodes: [TRIGGER, ...nodes].map((node, i) => ({ position: [220 * i, 0], ...node })),
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

const rows = (count: number) =>
	codeNode(
		`return ${JSON.stringify(
			Array.from({ length: count }, (_, i) => ({
				json: { phone: `25471200000${i + 1}`, order: `O-${i + 1}` },
			})),
		)};`,
	);

const post = async (link: string, approved = 'true') => await postForm(link, { approved });

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s',
	(_line, endpoints) => {
		const { n8n, credential } = lineSession(endpoints, 'Approval links');

		async function start(workflowId: string) {
			const workflowData = await n8n.rest<Record<string, unknown>>(
				'GET',
				`/workflows/${workflowId}`,
			);
			const { executionId } = await n8n.rest<{ executionId: string }>(
				'POST',
				`/workflows/${workflowId}/run`,
				{ workflowData, triggerToStartFrom: { name: 'Run manually' }, startNodes: [] },
			);
			return executionId;
		}

		const runsOf = (executionId: string, node: string) => n8n.executionRuns(executionId, node);

		/**
		 * The links of the `n`th approval SMS request (0-based) once it has arrived, one per
		 * recipient; other sends (the step after an approval) are not counted.
		 */
		async function linksOfSend(n: number) {
			const approvals = async () =>
				(await n8n.simRequests()).filter(
					(r) =>
						r.host === 'send' &&
						r.body.envelopes!.every((envelope) => envelope.message.includes('/webhook-waiting/')),
				);
			const sends = await until(approvals, (found) => found.length > n);
			const links = sends[n].body.envelopes!.map((envelope) => envelope.message.split('\n')[1]);
			await pageServed(links[0]);
			return links;
		}

		const waiting = (executionId: string, node: string) =>
			until(
				() => runsOf(executionId, node),
				(execution) => execution.status === 'waiting',
			);

		/** Finished, with `runs` runs of the node saved (n8n 1.x can say finished before saving them). */
		const isDone =
			(runs = 1) =>
			(execution: { status: string; runs: unknown[] }) =>
				!['new', 'running', 'waiting'].includes(execution.status) && execution.runs.length >= runs;

		test('another execution’s link, with the execution id changed, records nothing', async () => {
			const { id } = await n8n.createWorkflow(
				workflow(
					'Approval other execution',
					[rows(1), approvalNode('Approval', 'a1b2c3d4-0000-4000-8000-000000000001', credential)],
					[
						['Run manually', 0, 'Rows'],
						['Rows', 0, 'Approval'],
					],
				),
			);
			const first = await start(id);
			await waiting(first, 'Approval');
			const [firstLink] = await linksOfSend(0);
			const second = await start(id);
			await waiting(second, 'Approval');
			const [secondLink] = await linksOfSend(1);

			// The first SMS's link, pointed at the second execution (ids count up on every line).
			const forged = firstLink.replace(`/webhook-waiting/${first}/`, `/webhook-waiting/${second}/`);
			expect(forged).not.toBe(firstLink);
			const page = await fetch(forged);
			expect(page.status).toBeGreaterThanOrEqual(400);
			expect(page.status).toBeLessThan(500);
			expect(await page.text()).not.toContain('<form');
			const refused = await post(forged);
			expect(refused.status).toBeGreaterThanOrEqual(400);
			expect(refused.status).toBeLessThan(500);
			await sleep(1_000);
			expect((await runsOf(second, 'Approval')).status).toBe('waiting');

			// Each execution's own link still answers it.
			expect((await post(secondLink)).status).toBe(200);
			const done = await until(() => runsOf(second, 'Approval'), isDone());
			expect(done.runs).toEqual([[{ data: { approved: true }, answeredBy: '254712000001' }]]);
			expect((await post(firstLink)).status).toBe(200);
			await until(() => runsOf(first, 'Approval'), isDone());
		});

		test('a loop: the first wait’s link, used again on the second wait, records nothing', async () => {
			const { id } = await n8n.createWorkflow(
				workflow(
					'Approval loop',
					[
						rows(2),
						{
							id: 'loop',
							name: 'Loop',
							type: 'n8n-nodes-base.splitInBatches',
							typeVersion: 3,
							parameters: { batchSize: 1, options: {} },
						},
						approvalNode('Approval', 'a1b2c3d4-0000-4000-8000-000000000002', credential),
					],
					[
						['Run manually', 0, 'Rows'],
						['Rows', 0, 'Loop'],
						['Loop', 1, 'Approval'],
						['Approval', 0, 'Loop'],
					],
				),
			);
			const executionId = await start(id);
			await waiting(executionId, 'Approval');
			const [firstLink] = await linksOfSend(0);
			expect((await post(firstLink)).status).toBe(200);

			// Order 2's SMS goes out and the execution waits again.
			const [secondLink] = await linksOfSend(1);
			await waiting(executionId, 'Approval');
			const replay = await post(firstLink);
			expect(replay.status).toBe(403);
			expect(await replay.text()).toContain('This link is not valid');
			const page = await fetch(firstLink);
			expect(page.status).toBe(403);
			await sleep(1_000);
			const still = await runsOf(executionId, 'Approval');
			expect(still.status).toBe('waiting');
			expect(secondLink).not.toBe(firstLink);

			expect((await post(secondLink)).status).toBe(200);
			const done = await until(() => runsOf(executionId, 'Approval'), isDone(2));
			expect(done.status).toBe('success');
			expect(done.runs).toEqual([
				[{ data: { approved: true }, answeredBy: '254712000001' }],
				[{ data: { approved: true }, answeredBy: '254712000002' }],
			]);
		});

		test('two recipients: the second one answers, and the output names their number', async () => {
			const { id } = await n8n.createWorkflow(
				workflow(
					'Approval two recipients',
					[
						rows(2),
						approvalNode('Approval', 'a1b2c3d4-0000-4000-8000-000000000003', credential, {
							approvalOptions: { values: { approvalType: 'double' } },
						}),
					],
					[
						['Run manually', 0, 'Rows'],
						['Rows', 0, 'Approval'],
					],
				),
			);
			const executionId = await start(id);
			await waiting(executionId, 'Approval');
			const links = await linksOfSend(0);
			expect(new Set(links).size).toBe(2);
			expect((await post(links[1], 'false')).status).toBe(200);
			const done = await until(() => runsOf(executionId, 'Approval'), isDone());
			expect(done.runs).toEqual([[{ data: { approved: false }, answeredBy: '254712000002' }]]);
			// The first recipient's later answer changes nothing.
			expect((await post(links[0], 'true')).status).toBeLessThan(500);
			expect((await runsOf(executionId, 'Approval')).runs).toEqual(done.runs);
		});

		test('a double submit (and a second recipient at the same moment): the steps after the approval run once', async () => {
			const { id } = await n8n.createWorkflow(
				workflow(
					'Approval double submit',
					[
						rows(2),
						approvalNode('Approval', 'a1b2c3d4-0000-4000-8000-000000000004', credential),
						smsNode(credential, {
							resource: 'sms',
							operation: 'send',
							senderId: 'ACME',
							number: '254712000009',
							message: 'Refund approved',
							options: {},
						}),
					],
					[
						['Run manually', 0, 'Rows'],
						['Rows', 0, 'Approval'],
						['Approval', 0, 'SMS Messaging'],
					],
				),
			);
			const executionId = await start(id);
			await waiting(executionId, 'Approval');
			const links = await linksOfSend(0);
			const answers = await Promise.all([post(links[0]), post(links[0]), post(links[1])]);
			// The node's own pages ("Answer recorded", "Already answered"), not n8n's, carry its headers.
			// A post that reaches n8n once the resumed execution has finished gets n8n's own page
			// (on 1.82 "no action required", with a 200), so the statuses alone prove nothing.
			const pages = await Promise.all(answers.map(async (response) => await response.text()));
			const own = answers.filter((_, at) => pages[at].includes('<main>'));
			expect(own.length).toBeGreaterThanOrEqual(1);
			expect(pages.filter((page) => page.includes('Answer recorded'))).toHaveLength(1);
			for (const response of own) expectPageHeaders(response);
			// The node's pages are never a server error; n8n's own answer to a post that races the
			// resuming execution may be (n8n 2.x under load), and it changes nothing.
			for (const response of own) expect(response.status).toBeLessThan(500);
			const done = await until(() => runsOf(executionId, 'SMS Messaging'), isDone());
			expect(done.status).toBe('success');
			await sleep(2_000);
			expect((await runsOf(executionId, 'Approval')).runs).toHaveLength(1);
			expect((await runsOf(executionId, 'SMS Messaging')).runs).toHaveLength(1);
			// The approval's SMS and one send after it.
			expect((await n8n.simRequests()).filter((r) => r.host === 'send')).toHaveLength(2);
		});

		test('two-person sign-off: the second approval’s time limit passes; its output is not approved', async () => {
			const { id } = await n8n.createWorkflow(
				workflow(
					'Approval chained time limit',
					[
						rows(1),
						approvalNode('First approval', 'a1b2c3d4-0000-4000-8000-000000000005', credential),
						approvalNode('Second approval', 'a1b2c3d4-0000-4000-8000-000000000006', credential, {
							number: '254712000002',
							message: 'Second sign-off for order O-1?',
							options: {
								limitWaitTime: {
									values: {
										limitType: 'afterTimeInterval',
										resumeAmount: 0.05,
										resumeUnit: 'minutes',
									},
								},
							},
						}),
					],
					[
						['Run manually', 0, 'Rows'],
						['Rows', 0, 'First approval'],
						['First approval', 0, 'Second approval'],
					],
				),
			);
			const executionId = await start(id);
			await waiting(executionId, 'First approval');
			const [firstLink] = await linksOfSend(0);
			expect((await post(firstLink)).status).toBe(200);
			const [secondLink] = await linksOfSend(1);
			// Nobody answers the second; n8n's wait tracker looks for due executions once a minute.
			const done = await until(() => runsOf(executionId, 'Second approval'), isDone(), 100_000);
			expect(done.status).toBe('success');
			expect(done.runs).toEqual([[TIMED_OUT]]);
			expect((await runsOf(executionId, 'First approval')).runs).toEqual([
				[{ data: { approved: true }, answeredBy: '254712000001' }],
			]);
			// A late answer changes nothing.
			expect((await post(secondLink)).status).toBeLessThan(500);
			expect((await runsOf(executionId, 'Second approval')).runs).toEqual([[TIMED_OUT]]);
		});
	},
);
