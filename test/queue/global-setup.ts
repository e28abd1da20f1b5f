// Brings up n8n in queue mode (PostgreSQL, Redis, main, two workers; scripts/lib/queue-mode.js,
// the same setup as `npm run start:queue`, with fresh data) and an API simulator, on 127.0.0.1.
import fs from 'node:fs';
import path from 'node:path';

import {
	clusterState,
	DATA_DIR,
	PORT_BASE,
	STATE_FILE,
	TEST_QUEUE_ENV,
	type QueueState,
} from './cluster';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/lib/queue-mode');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const local = require('../../scripts/lib/local-n8n');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require('../simulator/simulator');

declare global {
	// eslint-disable-next-line no-var
	var __QUEUE_RUNNING__: Array<() => Promise<void>> | undefined;
}

export default async function globalSetup() {
	const running: Array<() => Promise<void>> = [];
	globalThis.__QUEUE_RUNNING__ = running;
	const started = Date.now();
	try {
		fs.rmSync(DATA_DIR, { recursive: true, force: true });
		const ports = queue.portsFrom(PORT_BASE);
		const simulator = new Simulator({ token: 'queue-token-4b2e', balance: 1e9, smsRecords: 60 });
		const urls = await simulator.start({ apiPort: ports.api, sendPort: ports.send });
		running.push(async () => await simulator.stop());
		const cluster = await queue.startQueueMode({
			dataDir: DATA_DIR,
			ports,
			workers: 2,
			env: TEST_QUEUE_ENV,
		});
		running.unshift(async () => await cluster.stop());
		const state: QueueState = clusterState(
			cluster,
			{ ...urls, token: simulator.token },
			{ n8nDir: local.paths(queue.LINE).dir, postgresPort: ports.postgres },
		);
		fs.writeFileSync(STATE_FILE, JSON.stringify(state, null, 2));
		process.stdout.write(
			`\nqueue mode up in ${((Date.now() - started) / 1000).toFixed(0)} s (${path.relative(process.cwd(), DATA_DIR)})\n`,
		);
	} catch (error) {
		for (const stop of running) await stop();
		throw error;
	}
}
