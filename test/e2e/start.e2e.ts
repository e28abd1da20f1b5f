// What `npm start` does with the example workflows and their credential on a second start: it
// imports only what n8n does not hold yet, so a user's edits stay. Runs the same launch as
// scripts/start.js, twice on one user folder, with its own ports and simulator.
import fs from 'node:fs';
import path from 'node:path';

import { E2E_LINES, lineEndpoints, portsFor } from './lines';
import { N8n } from './n8n-rest';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const local = require('../../scripts/lib/local-n8n');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require('../simulator/simulator');

const line = E2E_LINES[0];
// The free ports of the line's block (global setup uses its first six).
const base = portsFor(line).n8n;
const ports = { n8n: base + 6, broker: base + 7, api: base + 8, send: base + 9 };
const userFolder = path.join(local.root, '.n8n-local', `e2e-start-${line}`);

const examples = fs.readdirSync(path.join(local.root, 'examples')).map(
	(file) =>
		JSON.parse(fs.readFileSync(path.join(local.root, 'examples', file), 'utf8')) as {
			id: string;
			name: string;
		},
);

describe(`npm start's examples on n8n ${line}`, () => {
	const simulator = new Simulator({ token: 'start-token-4e2a' });
	let urls: { baseUrl: string; sendBaseUrl: string };

	beforeAll(async () => {
		fs.rmSync(userFolder, { recursive: true, force: true });
		urls = await simulator.start({ apiPort: ports.api, sendPort: ports.send });
	});

	/** Every n8n started here, stopped at the end even if a test failed or timed out midway. */
	const started: Array<{ child: import('node:child_process').ChildProcess }> = [];

	afterAll(async () => {
		for (const { child } of started) {
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
		}
		await simulator.stop();
	});

	async function start() {
		const n8n = await local.launch(line, {
			userFolder,
			port: ports.n8n,
			brokerPort: ports.broker,
			examples: { apiToken: simulator.token, ...urls },
		});
		started.push(n8n);
		const rest = new N8n(lineEndpoints(line, ports.n8n, { ...urls, token: simulator.token }));
		await rest.login();
		const stop = async () => {
			const exited = new Promise((resolve) => n8n.child.once('exit', resolve));
			n8n.child.kill('SIGTERM');
			await exited;
		};
		return { imported: n8n.imported as string[], rest, stop };
	}

	test('the first start imports every example; later ones keep what the user changed and bring back what was deleted', async () => {
		const first = await start();
		try {
			expect([...first.imported].sort()).toEqual(examples.map((e) => e.name).sort());
			// The user renames an example and the credential.
			const workflow = await first.rest.rest<{ versionId: string }>(
				'GET',
				'/workflows/exSendPersonalised',
			);
			await first.rest.rest('PATCH', '/workflows/exSendPersonalised', {
				name: 'My own send',
				versionId: workflow.versionId,
			});
			await first.rest.rest('PATCH', `/credentials/${local.EXAMPLE_CREDENTIAL.id}`, {
				name: 'My SMS account',
				type: 'smsMessagingApi',
				data: { apiToken: simulator.token, ...urls },
			});
		} finally {
			await first.stop();
		}

		const second = await start();
		try {
			expect(second.imported).toEqual([]);
			const workflow = await second.rest.rest<{ name: string }>(
				'GET',
				'/workflows/exSendPersonalised',
			);
			expect(workflow.name).toBe('My own send');
			const credential = await second.rest.rest<{ name: string }>(
				'GET',
				`/credentials/${local.EXAMPLE_CREDENTIAL.id}`,
			);
			expect(credential.name).toBe('My SMS account');
			// The user deletes an example (n8n 2.x deletes only what was archived).
			await second.rest.rest('POST', '/workflows/exFindContacts/archive');
			await second.rest.rest('DELETE', '/workflows/exFindContacts');
		} finally {
			await second.stop();
		}

		// A deleted example comes back as shipped, and only it.
		const third = await start();
		try {
			const findContacts = examples.find((example) => example.id === 'exFindContacts')!;
			expect(third.imported).toEqual([findContacts.name]);
			const workflow = await third.rest.rest<{ name: string }>('GET', '/workflows/exFindContacts');
			expect(workflow.name).toBe(findContacts.name);
		} finally {
			await third.stop();
		}
		// Three starts, each building, packing and installing the package as npm start does.
	}, 900_000);
});
