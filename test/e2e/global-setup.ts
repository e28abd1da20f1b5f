// Brings up, for each n8n line under test, a real n8n with the packed package installed as a
// community node, and an API simulator. Everything runs on 127.0.0.1.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { E2E_LINES, lineEndpoints, portsFor, STATE_FILE } from './lines';
import { startTriggerWatch } from './trigger-watch';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const local = require('../../scripts/lib/local-n8n');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require('../simulator/simulator');

interface Running {
	stop: () => Promise<void>;
}

declare global {
	// eslint-disable-next-line no-var
	var __E2E_RUNNING__: Running[] | undefined;
}

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** The browser test drives Debian's Chromium; as root on Debian it is installed when missing. */
function ensureChromium() {
	if (fs.existsSync(CHROMIUM)) return;
	if (process.getuid?.() !== 0 || !fs.existsSync('/usr/bin/apt-get')) {
		throw new Error(
			`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)`,
		);
	}
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
	execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
}

export default async function globalSetup() {
	ensureChromium();
	const running: Running[] = [];
	globalThis.__E2E_RUNNING__ = running;
	try {
		await startLines(running);
	} catch (error) {
		// Jest skips the teardown when the setup fails: stop what did start, and what is starting.
		await local.stopAll();
		for (const started of running) await started.stop();
		throw error;
	}
}

/**
 * Every line at once (their installs, launches and trigger watches overlap), each from the one
 * tarball packed here.
 */
/** Stops an n8n (SIGTERM) unless it has exited already. */
async function stopN8n(child: ChildProcess) {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise((resolve) => child.once('exit', resolve));
	child.kill('SIGTERM');
	await exited;
}

async function startLines(running: Running[]) {
	const tarball: string = await local.packPackage();
	const endpoints = await Promise.all(
		E2E_LINES.map(async (line) => await startLine(line, tarball, running)),
	);
	fs.writeFileSync(STATE_FILE, JSON.stringify(endpoints, null, 2));
}

async function startLine(line: string, tarball: string, running: Running[]) {
	const ports = portsFor(line);
	const userFolder = path.join(local.root, '.n8n-local', `e2e-user-${line}`);
	fs.rmSync(userFolder, { recursive: true, force: true });

	const simulator = new Simulator({ token: `e2e-token-${line}-7c1f`, smsRecords: 250 });
	const urls = await simulator.start({ apiPort: ports.api, sendPort: ports.send });
	running.push({ stop: async () => await simulator.stop() });
	const [n8n, schedulerWatch] = await Promise.all([
		local.launch(line, {
			userFolder,
			port: ports.n8n,
			brokerPort: ports.broker,
			examples: { apiToken: simulator.token, ...urls },
			tarball,
		}),
		line === '2.x' ? startScheduler(running, ports, tarball) : undefined,
	]);
	running.push({ stop: async () => await stopN8n(n8n.child) });
	const reached = lineEndpoints(line, ports.n8n, { ...urls, token: simulator.token });
	// Activated now, so that n8n's next minute poll happens while the other tests run.
	const trigger = await startTriggerWatch(reached, ports);
	running.push({ stop: trigger.stop });
	return { ...reached, triggerWatch: trigger.watch, schedulerWatch };
}

/**
 * A second n8n 2.x with its task scheduler on (SQLite, as the first), and a trigger watch in it:
 * trigger.e2e.ts checks that the example alert runs there too.
 */
async function startScheduler(
	running: Running[],
	ports: ReturnType<typeof portsFor>,
	tarball: string,
) {
	const userFolder = path.join(local.root, '.n8n-local', 'e2e-user-2.x-scheduler');
	fs.rmSync(userFolder, { recursive: true, force: true });
	const n8n = await local.launch('2.x', {
		userFolder,
		port: ports.schedulerN8n,
		brokerPort: ports.schedulerBroker,
		settings: { N8N_SCHEDULER_ENABLED: 'true', N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true' },
		tarball,
	});
	running.push({ stop: async () => await stopN8n(n8n.child) });
	const reached = lineEndpoints('2.x', ports.schedulerN8n, {
		baseUrl: '',
		sendBaseUrl: '',
		token: '',
	});
	const trigger = await startTriggerWatch(reached, {
		triggerApi: ports.schedulerApi,
		triggerSend: ports.schedulerSend,
	});
	running.push({ stop: trigger.stop });
	return { ...trigger.watch, n8nUrl: reached.n8nUrl };
}
