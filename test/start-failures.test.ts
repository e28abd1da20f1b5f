// npm start's one line per failed execution keeps n8n's reason: a workflow whose node has issues
// fails with n8n-core's own "The '…' node has issues:" and the issues on the lines after it.
import { WorkflowHasIssuesError } from 'n8n-core';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { reasonOf } = require('../scripts/lib/failed-executions');

test('a node with issues: the line names the issues, as the editor says them', () => {
	const node = {
		id: '1',
		name: 'SMS Messaging Approval',
		type: 'n8n-nodes-sms-messaging.smsMessagingApproval',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
	};
	const error = new WorkflowHasIssuesError(
		{
			'SMS Messaging Approval': {
				parameters: { fieldLabel: ['Parameter "Field Label" is required.'] },
			},
		},
		{ 'SMS Messaging Approval': node },
	);
	expect(error.message).toMatch(/^The 'SMS Messaging Approval' node has issues:\n/);
	expect(reasonOf(error.message)).toBe(
		`The 'SMS Messaging Approval' node has issues: Parameter "Field Label" is required.`,
	);
});

test('an ordinary error: its first sentence, as before', () => {
	expect(reasonOf('Authentication failed [every item of this run]. Check the API Token.')).toBe(
		'Authentication failed [every item of this run].',
	);
	expect(reasonOf('No full stop here')).toBe('No full stop here.');
	expect(reasonOf(undefined)).toBe('no error message.');
});
