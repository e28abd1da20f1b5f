// End to end: the SMS Messaging Trigger active in a real n8n. Global setup (trigger-watch.ts)
// activated a workflow polling every minute, and the example workflow examples/alert-on-failed-sms.json
// beside it, and failed one message right after; n8n's next poll must start one execution of each
// carrying that message, and nothing for what existed at activation. On the 2.x line, also in a
// second n8n with its task scheduler on.
import { lines, N8n } from './n8n-rest';

describe.each(lines().map((endpoints) => [endpoints.line, endpoints] as const))(
	'n8n %s',
	(_line, endpoints) => {
		const n8n = new N8n(endpoints);
		const watch = endpoints.triggerWatch!;

		beforeAll(async () => await n8n.login());

		/**
		 * The executions of a workflow that a poll's items started, once there is one (up to the
		 * deadline). A poll whose list reading failed is an error execution of its own, with no
		 * items (on a loaded machine a kept-alive connection can close under it): not an emission.
		 */
		const executionsOf = async (workflowId: string, deadline: number) => {
			const emitted = async () =>
				(await n8n.executions(workflowId))
					.filter(({ status }) => status !== 'error')
					.map(({ id }) => id);
			let executions = await emitted();
			while (executions.length === 0 && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 2_000));
				executions = await emitted();
			}
			return executions;
		};
		/** An execution's output of one node, once it has finished (n8n lists running ones too). */
		const finishedOutput = async (executionId: string, node: string) => {
			let output = await n8n.executionOutput(executionId, node);
			for (let tries = 0; ['new', 'running'].includes(output.status) && tries < 30; tries++) {
				await new Promise((resolve) => setTimeout(resolve, 1_000));
				output = await n8n.executionOutput(executionId, node);
			}
			return output;
		};

		test('an active SMS Messaging Trigger runs the workflow with the message that failed', async () => {
			// n8n polls every minute at a random second; 90 s from the change cover it (by the
			// time this test runs, usually long past).
			const executions = await executionsOf(watch.workflowId, watch.changedAt + 90_000);
			expect(executions).toHaveLength(1);
			const { status, items } = await finishedOutput(executions[0], 'SMS Messaging Trigger');
			expect(status).toBe('success');
			expect(items.map((item) => item.json)).toEqual([
				expect.objectContaining({
					id: watch.failedId,
					status: 'FAILED',
					recipient: '254711000001',
					content: 'Your code is 4821',
				}),
			]);

			// What the API received from the two active workflows' polls (the editor's Fetch Test
			// Event, in editor.e2e.ts, reads this simulator with a token of its own): the activation's
			// poll and at least one more, each reading the lists of the last two days with the
			// X-Service header: the first page of each status and of every status (no filter).
			const control = `${watch.simulatorBaseUrl.replace(/\/api\/v3$/, '')}/__sim/requests`;
			const requests = (await (await fetch(control)).json()) as Array<{
				path: string;
				query: Record<string, string>;
				headers: Record<string, string | undefined>;
			}>;
			const byToken = (token: string) =>
				requests.filter((request) => request.headers['x-service'] === `Bearer ${token}`);
			const polls = byToken(watch.simulatorToken);
			const statuses = polls.map((request) => request.query.status);
			for (const status of ['PENDING', 'SENT', 'FAILED', 'DELIVERED', undefined]) {
				expect(statuses).toContain(status);
			}
			// The editor's reads, when editor.e2e.ts ran before: one page of one record per watched status.
			for (const request of byToken(watch.editorToken)) {
				expect(request.query).toMatchObject({ page: '1', records: '1' });
				expect(['DELIVERED', 'FAILED']).toContain(request.query.status);
			}
			expect(polls.length + byToken(watch.editorToken).length).toBe(requests.length);
			for (const request of requests) {
				expect(request.path).toBe('/sms');
				expect(request.query['start-date']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
				expect(request.headers.authorization).toBeUndefined();
			}
		}, 180_000);

		test('the example alert workflow runs with the message that failed and builds its alert', async () => {
			const executions = await executionsOf(watch.exampleWorkflowId, watch.changedAt + 90_000);
			expect(executions).toHaveLength(1);
			const { status, items } = await finishedOutput(executions[0], 'Build the alert');
			expect(status).toBe('success');
			expect(items.map((item) => item.json)).toEqual([
				expect.objectContaining({
					alert: expect.stringMatching(
						new RegExp(
							`^SMS ${watch.failedId} to 254711000001 failed \\(sent .+\\): "Your code is 4821"$`,
						),
					),
					recipient: '254711000001',
				}),
			]);
		}, 180_000);
	},
);

const scheduledLines = lines()
	.filter((endpoints) => endpoints.schedulerWatch)
	.map((endpoints) => [endpoints.line, endpoints] as const);

// Only 2.x has a task scheduler; jest refuses an empty table (E2E_N8N_LINES without 2.x).
if (scheduledLines.length > 0) {
	describe.each(scheduledLines)(
		'n8n %s with its task scheduler (a workflow from the database at every poll, on SQLite)',
		(_line, endpoints) => {
			const watch = endpoints.schedulerWatch!;
			const n8n = new N8n({ ...endpoints, n8nUrl: watch.n8nUrl });

			beforeAll(async () => await n8n.login());

			test('the example alert workflow runs with the message that failed, once; the trigger workflow too', async () => {
				for (const [workflowId, node] of [
					[watch.exampleWorkflowId, 'Build the alert'],
					[watch.workflowId, 'SMS Messaging Trigger'],
				] as const) {
					const deadline = watch.changedAt + 150_000;
					const unfinished = (list: Array<{ status: string }>) =>
						list.length === 0 || list.some(({ status }) => ['new', 'running'].includes(status));
					let executions = await n8n.executions(workflowId);
					while (unfinished(executions) && Date.now() < deadline) {
						await new Promise((resolve) => setTimeout(resolve, 2_000));
						executions = await n8n.executions(workflowId);
					}
					expect(executions.map(({ status }) => status)).toEqual(['success']);
					const { items } = await n8n.executionOutput(executions[0].id, node);
					expect(JSON.stringify(items)).toContain(`${watch.failedId}`);
				}
			}, 240_000);
		},
	);
}
