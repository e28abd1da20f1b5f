// End to end, in a real n8n, as a recipient would use the link: Free Text and Custom Form (each bad
// answer refused and named, a good one typed, as n8n's server parses the form's POST), each
// recipient's page with their own message, a GET with approved=true that records nothing, and an
// answer after a 3 s time limit refused before n8n's wait tracker resumes the execution.
import { EVERY_FIELD_TYPE, SEND_AND_WAIT } from '../helpers/approval-fixtures';
import { lineSession } from './line-session';
import { postForm } from './form-post';
import {
	codeNode,
	linearWorkflow,
	lines,
	pageServed,
	sleep,
	until,
	type WorkflowNode,
} from './n8n-rest';

const APPROVAL = 'n8n-nodes-sms-messaging.smsMessagingApproval';

const ROWS = codeNode(
	`return ${JSON.stringify([
		{ json: { phone: '254712000001', text: 'Refund 120 EUR to Alice?' } },
		{ json: { phone: '254712000002', text: 'Refund 8,000 EUR to Bob?' } },
	])};`,
);

const GOOD: Array<[string, string]> = [
	['field-0', 'Ann'],
	['field-1', 'All fine'],
	['field-2', 'ann@example.com'],
	['field-3', '4711.5'],
	['field-4', '2026-02-28'],
	['field-5', 'intact'],
	['field-6', 'leak'],
	['field-6', 'noise'],
];

/** GOOD with one field's value replaced. */
const withField = (name: string, value: string) =>
	GOOD.map(([key, given]): [string, string] => [key, key === name ? value : given]);

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s',
	(_line, endpoints) => {
		const { n8n, credential } = lineSession(endpoints, 'Approval forms');

		const approvalNode = (id: string, parameters: Record<string, unknown>): WorkflowNode => ({
			id,
			name: 'Approval',
			type: APPROVAL,
			typeVersion: 1,
			parameters: {
				...SEND_AND_WAIT,
				...parameters,
			},
			credentials: { smsMessagingApi: credential },
		});

		const runs = (executionId: string) => n8n.executionRuns(executionId, 'Approval');
		const finished = (executionId: string, ms?: number) =>
			until(
				() => runs(executionId),
				(execution) =>
					!['new', 'running', 'waiting'].includes(execution.status) && execution.runs.length > 0,
				ms,
			);

		/** Runs a workflow until `node` waits; gives the execution and each SMS's link. */
		async function run(id: string, node = 'Approval') {
			const workflowData = await n8n.rest<Record<string, unknown>>('GET', `/workflows/${id}`);
			const { executionId } = await n8n.rest<{ executionId: string }>(
				'POST',
				`/workflows/${id}/run`,
				{ workflowData, triggerToStartFrom: { name: 'Run manually' }, startNodes: [] },
			);
			await until(
				() => n8n.executionRuns(executionId, node),
				(execution) => execution.status === 'waiting',
			);
			const [send] = await until(
				async () => (await n8n.simRequests()).filter((r) => r.host === 'send'),
				(found) => found.length > 0,
			);
			const links = send.body.envelopes!.map((envelope) => envelope.message.split('\n')[1]);
			await pageServed(links[0]);
			return { executionId, links };
		}

		/** Runs a workflow of the rows and the approval node with `parameters`. */
		async function started(nodeId: string, parameters: Record<string, unknown>) {
			const { id } = await n8n.createWorkflow(
				linearWorkflow(`Approval forms ${Date.now()}`, [ROWS, approvalNode(nodeId, parameters)]),
			);
			return await run(id);
		}

		async function expectStillWaiting(executionId: string) {
			await sleep(1_000);
			expect((await runs(executionId)).status).toBe('waiting');
		}

		test('Free Text: an empty answer is refused, a text comes out as data.text', async () => {
			const { executionId, links } = await started('a1b2c3d4-0000-4000-8000-000000000101', {
				responseType: 'freeText',
			});
			const page = await fetch(links[0]);
			expect(page.status).toBe(200);
			expect(await page.text()).toContain('<textarea id="field-0" name="field-0" required');
			const empty = await postForm(links[0], [['field-0', '  ']]);
			expect(empty.status).toBe(400);
			expect(await empty.text()).toContain('Your answer: This field is required.');
			await expectStillWaiting(executionId);
			expect((await postForm(links[1], [['field-0', 'Seal broken, reading 4711']])).status).toBe(
				200,
			);
			const done = await finished(executionId);
			expect(done.runs).toEqual([
				[{ data: { text: 'Seal broken, reading 4711' }, answeredBy: '254712000002' }],
			]);
		});

		test('Custom Form with every field type: each bad answer refused and named, a good one typed', async () => {
			const { executionId, links } = await started('a1b2c3d4-0000-4000-8000-000000000102', {
				responseType: 'customForm',
				formFields: { values: EVERY_FIELD_TYPE },
			});
			const bad: Array<[string, string, string]> = [
				['field-0', '', 'Name: This field is required.'],
				['field-2', 'ann.example.com', 'E-mail: Enter an e-mail address.'],
				['field-3', 'twelve', 'Reading: Enter a number.'],
				['field-4', '2026-02-30', 'Next visit: Enter a date (YYYY-MM-DD).'],
				['field-5', 'gone', 'Seal: Choose an option of the list.'],
				['field-6', 'other', 'Checks: Choose options of the list, each once.'],
			];
			for (const [name, value, problem] of bad) {
				const refused = await postForm(links[0], withField(name, value));
				expect(refused.status).toBe(400);
				expect(await refused.text()).toContain(problem);
			}
			await expectStillWaiting(executionId);
			expect((await postForm(links[0], GOOD)).status).toBe(200);
			const done = await finished(executionId);
			expect(done.runs).toEqual([
				[
					{
						data: {
							Name: 'Ann',
							Notes: 'All fine',
							'E-mail': 'ann@example.com',
							Reading: 4711.5,
							'Next visit': '2026-02-28',
							Seal: 'intact',
							Checks: ['leak', 'noise'],
						},
						answeredBy: '254712000001',
					},
				],
			]);
		});

		test('two recipients, two messages: each page shows its own; a GET with approved=true records nothing', async () => {
			const { executionId, links } = await started('a1b2c3d4-0000-4000-8000-000000000103', {});
			const first = await (await fetch(links[0])).text();
			const second = await (await fetch(links[1])).text();
			expect(first).toContain('Refund 120 EUR to Alice?');
			expect(second).toContain('Refund 8,000 EUR to Bob?');
			expect(second).not.toContain('Alice');
			const scanned = new URL(links[1]);
			scanned.searchParams.set('approved', 'true');
			// n8n 2.x refuses the changed signed query itself; n8n 1.82 hands it to the node.
			expect((await fetch(scanned)).status).toBeLessThan(500);
			await expectStillWaiting(executionId);
			expect((await postForm(links[1], { approved: 'true' })).status).toBe(200);
			const done = await finished(executionId);
			expect(done.runs).toEqual([[{ data: { approved: true }, answeredBy: '254712000002' }]]);
		});

		test('an answer after a 3 s time limit, before n8n resumes the execution: refused', async () => {
			const { executionId, links } = await started('a1b2c3d4-0000-4000-8000-000000000104', {
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 0.05, resumeUnit: 'minutes' },
					},
				},
			});
			await sleep(4_000);
			const late = await postForm(links[0], { approved: 'true' });
			const page = await late.text();
			expect(page).not.toContain('<title>Answer recorded</title>');
			// n8n's wait tracker looks for due executions once a minute, and sets a timer for each that
			// is due before its next look: when it looked during the 3 s, it resumed the execution at
			// the limit, and n8n answers the link itself (its "no action required" page, or a 409 while
			// it runs the execution on).
			if (late.status === 410) expect(page).toContain('This request has expired');
			else expect(page).toMatch(/No action required|is running already/);
			const done = await finished(executionId, 100_000);
			expect(done.runs).toEqual([[{ data: { approved: false }, timedOut: true }]]);
		});

		test('examples: a field report by SMS (Custom Form) and a free-text question', async () => {
			const report = await run('exFieldReport', 'Ask for the report by SMS');
			const form = await (await fetch(report.links[0])).text();
			expect(form).toContain('Meter M-1042, 12 Kenyatta Ave: please send your reading.');
			expect(form).toContain('<button type="submit">Send report</button>');
			const answered = await postForm(report.links[0], [
				['field-0', '10432.7'],
				['field-1', 'intact'],
				['field-2', 'noise'],
				['field-3', '2026-12-01'],
				['field-4', ''],
			]);
			expect(answered.status).toBe(200);
			const reported = await until(
				() => n8n.executionRuns(report.executionId, 'Report'),
				(execution) => execution.status === 'success' && execution.runs.length > 0,
			);
			expect(reported.runs).toEqual([
				[
					{
						meter: 'M-1042',
						by: '254700000002',
						'Reading (kWh)': 10432.7,
						Seal: 'intact',
						'Problems seen': ['noise'],
						'Next visit': '2026-12-01',
						Notes: '',
					},
				],
			]);

			await n8n.simReset();
			const question = await run('exAskFreeText', 'Ask by SMS');
			expect((await postForm(question.links[0], [['field-0', 'Friday after 3 pm']])).status).toBe(
				200,
			);
			const replied = await until(
				() => n8n.executionRuns(question.executionId, 'Answer'),
				(execution) => execution.status === 'success' && execution.runs.length > 0,
			);
			expect(replied.runs).toEqual([
				[{ order: 'A-2291', reply: 'Friday after 3 pm', timedOut: false }],
			]);
		});
	},
);
