// What `npm start` does with the example workflows and their credential on a second start: it
// imports only what n8n does not hold yet, so a user's edits stay. Runs the same launch as
// scripts/start.js, twice on one user folder, with its own ports and simulator. Then `npm start`
// itself: the simulator's inbox, and its stop by a signal to npm.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { describeOnNewest, lineEndpoints, NEWEST_LINE, sparePorts } from './lines';
import { postForm } from './form-post';
import { N8n, until } from './n8n-rest';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const local = require('../../scripts/lib/local-n8n');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require('../simulator/simulator');

const line = NEWEST_LINE;
// Ports of its own: the line's block is global setup's (on 2.x, the scheduler's n8n takes its last four).
const ports = sparePorts();
const userFolder = path.join(local.root, '.n8n-local', `e2e-start-${line}`);

const examples = fs.readdirSync(path.join(local.root, 'examples')).map(
	(file) =>
		JSON.parse(fs.readFileSync(path.join(local.root, 'examples', file), 'utf8')) as {
			id: string;
			name: string;
		},
);

describeOnNewest(`npm start's examples on n8n ${line}`, () => {
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
		// Three starts, each installing the package as npm start does (under npm test, the tarball
		// npm test packed: SMS_MESSAGING_TARBALL).
	}, 900_000);
});

// `npm start` itself, as a user runs it: a terminal with its own lines only (n8n's output in a log
// file), the inbox (a line per SMS, the page), a line per failed execution, and a SIGTERM sent
// to the npm process alone (as a process manager sends it) stopping n8n and the simulator.
describeOnNewest(`npm start on n8n ${line}, run as a user runs it`, () => {
	const folder = path.join(local.root, '.n8n-local', `e2e-npm-start-${line}`);
	const simulatorRoot = `http://127.0.0.1:${ports.api}`;
	let npm: ChildProcess | undefined;
	let output = '';
	let closed: Promise<void>;

	beforeAll(() => fs.rmSync(folder, { recursive: true, force: true }));

	afterAll(() => {
		// A failed test may leave it running: a signal to npm's group stops it (start.js).
		if (npm?.exitCode === null && npm.signalCode === null) process.kill(-npm.pid!, 'SIGTERM');
	});

	/** Resolves with the output once `pattern` appears in it. */
	async function printed(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const match = pattern.exec(output);
			if (match) return match;
			if (Date.now() > deadline) throw new Error(`not printed: ${pattern}\n${output}`);
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	/** Resolves once `pattern` appears in `file`. */
	async function printedIn(file: string, pattern: RegExp, timeoutMs = 60_000) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
			if (pattern.test(text)) return text;
			if (Date.now() > deadline) throw new Error(`not in ${file}: ${pattern}\n${text}`);
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	test("prints each SMS the simulator accepts, approval link whole, and one line per failed execution, n8n's own output only in its log; the inbox page lists them newest first; SIGTERM to npm stops everything", async () => {
		npm = spawn('npm', ['start'], {
			cwd: local.root,
			// Its own process group, so that afterAll can reach npm's children if the test fails.
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
			env: {
				...process.env,
				N8N_LINE: line,
				N8N_PORT: String(ports.n8n),
				N8N_RUNNERS_BROKER_PORT: String(ports.broker),
				SIM_API_PORT: String(ports.api),
				SIM_SEND_PORT: String(ports.send),
				SMS_MESSAGING_START_FOLDER: folder,
			},
		});
		npm.stdout!.on('data', (chunk) => (output += chunk));
		npm.stderr!.on('data', (chunk) => (output += chunk));
		// Ends when every process that writes to it has ended: npm, start.js, n8n.
		closed = new Promise((resolve) => npm!.stdout!.once('close', () => resolve()));

		await printed(/Ctrl-C stops n8n and the simulator\./, 400_000);
		expect(output).toContain(`Inbox    ${simulatorRoot}/__sim/inbox`);
		// Nothing n8n prints reaches the terminal: it is in the log file the banner names.
		const logFile = path.join(folder, 'n8n.log');
		expect(output).toContain(`n8n log  ${logFile} holds what n8n prints`);
		await printedIn(logFile, /\S/);
		expect(output).not.toContain('Python task runner');
		expect(output).not.toMatch(/deprecat/i);
		expect(output).not.toContain('N8N_UNVERIFIED_PACKAGES_ENABLED');
		expect(output).not.toContain('rebuilt dependencies');

		const rest = new N8n(
			lineEndpoints(line, ports.n8n, {
				baseUrl: `${simulatorRoot}/api/v3`,
				sendBaseUrl: `http://127.0.0.1:${ports.send}/api/v3`,
				token: 'sim-token',
			}),
		);
		await rest.login();
		const workflowData = await rest.rest<Record<string, unknown>>(
			'GET',
			'/workflows/exApproveBulkSend',
		);
		await rest.rest('POST', '/workflows/exApproveBulkSend/run', {
			workflowData,
			triggerToStartFrom: { name: 'Run manually' },
			startNodes: [],
		});

		// The approval SMS: its text, then the link whole on a line of its own.
		const [, approvalId, approver, link] = await printed(
			/SMS #(\d+) from ACME to (\d+): Send "Spring sale: 20% off everything until Sunday\. Reply STOP to opt out\." to 3 customers\?\n {4}(http:\/\/127\.0\.0\.1:\d+\/webhook-waiting\/\S+)\n/,
		);
		// The SMS goes out before n8n stores the execution as waiting (n8n 2.x answers a link opened
		// in between with a 500: "Cannot read properties of undefined (reading 'resumeToken')").
		// An approver's tap comes after that; so does the test's.
		const [, executionId] = /\/webhook-waiting\/(\d+)\//.exec(link)!;
		await until(
			async () => await rest.executionOutput(executionId, 'Approval'),
			({ status }) => status === 'waiting',
		);
		expect((await fetch(link)).status).toBe(200);
		const approved = await postForm(link, { approved: 'true' });
		expect(approved.status).toBe(200);

		// The bulk send the approval let through: one line per message.
		const sent = [];
		for (const number of ['254712345678', '447700900123', '254733222111']) {
			const [, id, text] = await printed(new RegExp(`SMS #(\\d+) from ACME to ${number}: (.+)\\n`));
			expect(Number(id)).toBeGreaterThan(Number(approvalId));
			sent.push({ id, text });
		}

		// A wrong token: a run of Send fails, and so does every poll of the published trigger; each
		// failed execution is one line naming the workflow, the node, the error and where to see it.
		await rest.rest('PATCH', `/credentials/${local.EXAMPLE_CREDENTIAL.id}`, {
			name: local.EXAMPLE_CREDENTIAL.name,
			type: 'smsMessagingApi',
			data: {
				apiToken: 'a-wrong-token',
				baseUrl: `${simulatorRoot}/api/v3`,
				sendBaseUrl: `http://127.0.0.1:${ports.send}/api/v3`,
			},
		});
		const sendData = await rest.rest<Record<string, unknown>>(
			'GET',
			'/workflows/exSendPersonalised',
		);
		await rest.rest('POST', '/workflows/exSendPersonalised/run', {
			workflowData: sendData,
			triggerToStartFrom: { name: 'Run manually' },
			startNodes: [],
		});
		await printed(
			new RegExp(
				`Failed: workflow "SMS: send a personalised message to every row", node "Send SMS": Authentication failed \\[every item of this run\\]\\. See http://127\\.0\\.0\\.1:${ports.n8n}/workflow/exSendPersonalised/executions/\\d+\\n`,
			),
		);
		// The trigger polls every minute.
		await printed(
			new RegExp(
				`Failed: workflow "SMS: alert when a message fails", node "When an SMS fails": Authentication failed\\. See http://127\\.0\\.0\\.1:${ports.n8n}/workflow/exAlertFailedSms/executions/\\d+\\n`,
			),
			90_000,
		);
		expect(output).not.toMatch(/^\s+at /m);
		expect(output).not.toContain('AxiosError');
		expect(output).not.toContain('NodeApiError');

		const page = await fetch(`${simulatorRoot}/__sim/inbox`);
		expect(page.status).toBe(200);
		expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
		const html = await page.text();
		const escapedLink = link.replace(/&/g, '&amp;');
		// Escaped, the link clickable, newest first.
		expect(html).toContain(`to <b>${approver}</b>`);
		expect(html).toContain(
			`Send &quot;Spring sale: 20% off everything until Sunday. Reply STOP to opt out.&quot; to 3 customers?\n<a href="${escapedLink}">${escapedLink}</a>`,
		);
		const positions = [...sent.map(({ id }) => id), approvalId].map((id) =>
			html.indexOf(`<p class="meta">#${id} `),
		);
		expect(positions.every((at) => at > 0)).toBe(true);
		expect(Math.max(...positions.slice(0, 3))).toBeLessThan(positions[3]);

		// A process manager stops it: SIGTERM to npm's process only.
		process.kill(npm.pid!, 'SIGTERM');
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([
			closed,
			new Promise((_, reject) => {
				timer = setTimeout(() => reject(new Error(`still running after 60 s:\n${output}`)), 60_000);
			}),
		]).finally(() => clearTimeout(timer));
		expect(output.trimEnd().endsWith('Stopped.')).toBe(true);
		// What n8n printed, its notices and the failed executions' errors, is in the log only.
		const logged = fs
			.readFileSync(logFile, 'utf8')
			.split('\n')
			.map((text) => text.trim())
			.filter((text) => text.length > 12);
		expect(logged.length).toBeGreaterThan(0);
		expect(logged.filter((text) => output.includes(text))).toEqual([]);
		await expect(fetch(`http://127.0.0.1:${ports.n8n}/healthz`)).rejects.toThrow();
		await expect(fetch(`${simulatorRoot}/__sim/inbox`)).rejects.toThrow();
	}, 900_000);
});
