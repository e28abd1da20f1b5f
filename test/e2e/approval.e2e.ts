// End to end: SMS Messaging Approval in a real n8n. A workflow sends the SMS and waits; the link is
// read from the SMS the simulator received and opened as the recipient's phone would: the page,
// then the button's POST. n8n itself checks the link's signature and resumes the execution.
import { lineSession } from './line-session';
import { postForm } from './form-post';
import { codeNode, linearWorkflow, lines, pageServed, sleep, type WorkflowNode } from './n8n-rest';

const APPROVAL = 'n8n-nodes-sms-messaging.smsMessagingApproval';
const NODE = 'SMS Messaging Approval';

const ROWS = `return [
	{ json: { phone: '254712000001', order: 'A-1' } },
	{ json: { phone: '254712000002', order: 'B-2' } },
];`;

function approvalWorkflow(
	name: string,
	credential: { id: string; name: string },
	parameters: Record<string, unknown> = {},
) {
	const node: WorkflowNode = {
		id: '6a1f3c2e-4b5d-4e6f-8a9b-0c1d2e3f4a5b',
		name: NODE,
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
	return linearWorkflow(name, [codeNode(ROWS), node]);
}

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s',
	(_line, endpoints) => {
		const { n8n, credential } = lineSession(endpoints, 'Approval simulator');

		/** Starts a saved workflow from its manual trigger; returns the execution id. */
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

		/** Polls the execution until `done` says so; returns its status and the node's output. */
		async function until(
			executionId: string,
			done: (status: string, items: unknown[]) => boolean,
			timeoutMs = 30_000,
			node = NODE,
		) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				// n8n saves the run data once the execution has started; until then there is none.
				const execution = await n8n
					.executionOutput(executionId, node)
					.catch(() => ({ status: 'new', items: [] }));
				if (done(execution.status, execution.items)) return execution;
				if (Date.now() > deadline) {
					throw new Error(`execution ${executionId} is still ${execution.status}`);
				}
				await sleep(300);
			}
		}

		/** Finished, with the node's output saved (n8n 1.x can say finished before saving it). */
		const isFinished = (status: string, items: unknown[]) =>
			!['new', 'running', 'waiting'].includes(status) && items.length > 0;

		/** The sent SMS of the run: its messages, each with the link on its second line. */
		async function sentMessages() {
			const sends = (await n8n.simRequests()).filter((r) => r.host === 'send');
			expect(sends).toHaveLength(1);
			return sends[0].body.envelopes!.map((envelope) => envelope.message);
		}

		async function waitingApproval(parameters: Record<string, unknown> = {}) {
			const { id } = await n8n.createWorkflow(
				approvalWorkflow(`Approval ${Date.now()}`, credential, parameters),
			);
			const executionId = await start(id);
			const waiting = await until(executionId, (status) => status === 'waiting');
			const messages = await sentMessages();
			const link = messages[0].split('\n')[1];
			await pageServed(link);
			return { executionId, waiting, messages, link };
		}

		const post = async (link: string, approved: string) => await postForm(link, { approved });

		test('n8n offers the node, and on 2.x also as a Human review tool for AI agents', async () => {
			const types = await n8n.nodeTypes();
			expect(types).toContain(APPROVAL);
			if (endpoints.line === '2.x') expect(types).toContain(`${APPROVAL}HitlTool`);
		});

		test('the SMS carries the message and n8n’s signed link; Approve on the page resumes the execution', async () => {
			const { executionId, messages, link } = await waitingApproval();
			expect(messages.map((message) => message.split('\n')[0])).toEqual([
				'Refund order A-1?',
				'Refund order B-2?',
			]);
			// Each recipient has a link of their own, to n8n's waiting webhook of this execution and
			// node, with the recipient's code, signed by n8n where n8n signs.
			expect(messages[1].split('\n')[1]).not.toBe(link);
			const url = new URL(link);
			expect(`${url.origin}${url.pathname}`).toBe(
				`${endpoints.n8nUrl}/webhook-waiting/${executionId}/6a1f3c2e-4b5d-4e6f-8a9b-0c1d2e3f4a5b`,
			);
			expect(url.searchParams.get('k')).toMatch(/^0\.[A-Za-z0-9_-]{22}$/);
			// n8n 1.82 has no signed resume links (docs/approval.md): there only the code.
			const signed = endpoints.line !== '1.82';
			if (signed) expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
			else expect([...url.searchParams.keys()]).toEqual(['k']);
			expect(messages.join('')).not.toContain(endpoints.simulatorToken);

			// The phone opens the link: the page, with the message and the button; nothing recorded.
			const page = await fetch(link);
			expect(page.status).toBe(200);
			const html = await page.text();
			expect(html).toContain('Refund order A-1?');
			expect(html).toContain('<form method="post" enctype="multipart/form-data">');
			expect(html).toContain('value="true">Approve</button>');
			expect(html).not.toContain(endpoints.simulatorToken);
			expect((await n8n.executionOutput(executionId, NODE)).status).toBe('waiting');

			// A link that n8n did not sign is refused by n8n before the node sees it.
			if (signed) {
				const forged = new URL(link);
				forged.searchParams.set('signature', '0'.repeat(64));
				expect((await post(forged.href, 'true')).status).toBe(401);
				expect((await n8n.executionOutput(executionId, NODE)).status).toBe('waiting');
			}

			const recorded = await post(link, 'true');
			expect(recorded.status).toBe(200);
			expect(await recorded.text()).toContain('was recorded');
			const finished = await until(executionId, isFinished);
			expect(finished.status).toBe('success');
			expect(finished.items.map((item) => item.json)).toEqual([
				{ data: { approved: true }, answeredBy: '254712000001' },
			]);

			// A second answer changes nothing: n8n answers it itself, with its own page, before the
			// node sees it (README: the node cannot serve its own page there).
			const again = await post(link, 'false');
			expect(again.status).toBeLessThan(500);
			expect(await again.text()).toContain('No action required');
			const after = await n8n.executionOutput(executionId, NODE);
			expect(after.items.map((item) => item.json)).toEqual([
				{ data: { approved: true }, answeredBy: '254712000001' },
			]);
			// Nothing more was sent.
			expect((await n8n.simRequests()).filter((r) => r.host === 'send')).toHaveLength(1);
		});

		test('Decline on the page: the execution finishes with approved false', async () => {
			const { executionId, link } = await waitingApproval({
				approvalOptions: { values: { approvalType: 'double', disapproveLabel: 'No refund' } },
			});
			const html = await (await fetch(link)).text();
			expect(html).toContain('value="false" class="decline">No refund</button>');
			expect((await post(link, 'false')).status).toBe(200);
			const finished = await until(executionId, isFinished);
			expect(finished.status).toBe('success');
			expect(finished.items.map((item) => item.json)).toEqual([
				{ data: { approved: false }, answeredBy: '254712000001' },
			]);
		});

		test('a refused send fails the node and nothing waits', async () => {
			await n8n.simFault({ host: 'send', status: 401 });
			const { id } = await n8n.createWorkflow(
				approvalWorkflow(`Approval refused ${Date.now()}`, credential),
			);
			const executionId = await start(id);
			const finished = await until(executionId, (status) => !['new', 'running'].includes(status));
			expect(finished.status).toBe('error');
		});

		test('example: a bulk send goes out only once the approver presses Send it', async () => {
			const executionId = await start('exApproveBulkSend');
			await until(executionId, (status) => status === 'waiting', 30_000, 'Ask for approval by SMS');
			const [request] = await sentMessages();
			expect(request.split('\n')[0]).toBe(
				'Send "Spring sale: 20% off everything until Sunday. Reply STOP to opt out." to 3 customers?',
			);
			expect((await post(request.split('\n')[1], 'true')).status).toBe(200);
			const finished = await until(executionId, isFinished, 30_000, 'Send SMS');
			expect(finished.status).toBe('success');
			expect(finished.items.map((item) => item.json.recipient)).toEqual([
				'254712345678',
				'447700900123',
				'254733222111',
			]);
			const sends = (await n8n.simRequests()).filter((r) => r.host === 'send');
			expect(sends).toHaveLength(2);
			expect(sends[1].body.envelopes).toHaveLength(3);
		});
	},
);
