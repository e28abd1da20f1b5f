'use strict';
// npm start's one line per failed execution: it asks n8n's REST API (as the editor's Executions
// list does) for executions that ended in an error, and says which workflow and node failed, why
// (the error's first sentence) and where to see the execution.
const path = require('node:path');

/** The first sentence of a line, ending with a full stop. */
function firstSentence(line) {
	const end = line.search(/[.!?](\s|$)/);
	return end === -1 ? `${line}.` : line.slice(0, end + 1);
}

/**
 * Why an execution failed, in one line: the error message's first sentence; where its first
 * line ends with a colon (n8n's "The '…' node has issues:"), the list after it joined on, as
 * the editor shows it (`Parameter "Field Label" is required.`).
 */
function reasonOf(message) {
	const [first, ...rest] = String(message ?? 'no error message')
		.split('\n')
		.map((line) => line.trim());
	const listed = rest.filter((line) => line.startsWith('- ')).map((line) => line.slice(2));
	if (!first.endsWith(':') || listed.length === 0) return firstSentence(first);
	return `${first} ${listed.join(' ')}`.replace(/([^.!?])$/, '$1.');
}

/**
 * Watches the n8n at `n8nUrl` (logged in with `cookie`; `n8nDir` is where it is installed, for
 * its copy of `flatted`, the format of stored execution data) and calls `notify` with one line for
 * each execution that fails from now on. Returns the function that stops watching.
 */
async function watchFailedExecutions({ n8nUrl, cookie, n8nDir, notify, everyMs = 3_000 }) {
	const flatted = require(path.join(n8nDir, 'node_modules/flatted'));
	const rest = async (route) => {
		const response = await fetch(`${n8nUrl}/rest${route}`, { headers: { cookie } });
		if (!response.ok) throw new Error(`GET ${route}: HTTP ${response.status}`);
		return (await response.json()).data;
	};
	const filter = encodeURIComponent(JSON.stringify({ status: ['error', 'crashed'] }));
	const failed = async () => (await rest(`/executions?filter=${filter}&limit=50`)).results;
	// What failed before this start is not news.
	const seen = new Set((await failed()).map((execution) => execution.id));

	const describe = async ({ id, workflowId, workflowName }) => {
		const execution = await rest(`/executions/${id}`);
		const data = flatted.parse(execution.data);
		const error = data?.resultData?.error;
		const node = error?.node?.name ?? data?.resultData?.lastNodeExecuted;
		const name = workflowName ?? execution.workflowData?.name ?? workflowId;
		return (
			`Failed: workflow "${name}"${node ? `, node "${node}"` : ''}: ` +
			`${reasonOf(error?.message)} ` +
			`See ${n8nUrl}/workflow/${workflowId}/executions/${id}`
		);
	};

	let stopped = false;
	let timer;
	const check = async () => {
		try {
			const fresh = (await failed()).filter((execution) => !seen.has(execution.id)).reverse();
			for (const execution of fresh) {
				seen.add(execution.id);
				const line = await describe(execution).catch(
					() => `Failed: workflow "${execution.workflowName}". See ${n8nUrl}/home/executions`,
				);
				if (!stopped) notify(line);
			}
		} catch {
			// n8n is stopping or busy: the next check catches up.
		}
		if (!stopped) timer = setTimeout(check, everyMs);
	};
	timer = setTimeout(check, everyMs);
	return () => {
		stopped = true;
		clearTimeout(timer);
	};
}

module.exports = { reasonOf, watchFailedExecutions };
