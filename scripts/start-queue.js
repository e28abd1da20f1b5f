'use strict';
// `npm run start:queue`: n8n in queue mode on this machine, with this package installed on main and
// on two workers, PostgreSQL and Redis from Debian's packages, the API simulator, a credential
// pointing at it and the example workflows. Ctrl-C stops everything it started.
// QUEUE_PORT_BASE moves every port (7700 by default); QUEUE_WORKERS sets the number of workers.
const path = require('node:path');

const local = require('./lib/local-n8n');
const queue = require('./lib/queue-mode');
const { Simulator } = require('../test/simulator/simulator');

const ports = queue.portsFrom(Number(process.env.QUEUE_PORT_BASE || 7700));
const WORKERS = Number(process.env.QUEUE_WORKERS || 2);

async function main() {
	const simulator = new Simulator({ token: 'sim-token' });
	const { baseUrl, sendBaseUrl } = await simulator.start({
		apiPort: ports.api,
		sendPort: ports.send,
	});
	let cluster;
	let stopping = false;
	const stop = async (code = 0) => {
		if (stopping) return;
		stopping = true;
		process.stdout.write('\nStopping n8n, then Redis and PostgreSQL…\n');
		await cluster?.stop();
		await simulator.stop();
		process.exit(code);
	};
	process.once('SIGINT', () => stop(0));
	process.once('SIGTERM', () => stop(0));
	try {
		cluster = await queue.startQueueMode({
			dataDir: path.join(local.root, '.n8n-local', 'queue'),
			ports,
			workers: WORKERS,
			examples: { apiToken: simulator.token, baseUrl, sendBaseUrl },
			echo: true,
		});
	} catch (error) {
		await simulator.stop();
		throw error;
	}
	const workerLines = cluster.workers
		.map(
			(w) =>
				`    ${w.name}: pid ${w.pid}, task broker ${w.brokerPort}, health http://127.0.0.1:${w.healthPort}/healthz/readiness`,
		)
		.join('\n');
	local.log(`
n8n ${cluster.version} is running in queue mode with the SMS Messaging node on main and on ${cluster.workers.length} workers.

  Open     ${cluster.n8nUrl}
  Log in   ${local.OWNER.email} / ${local.OWNER.password}

  main     pid ${cluster.main.pid} (editor, REST API, webhooks; puts production executions on the queue)
${workerLines}
  Redis       127.0.0.1:${ports.redis}      PostgreSQL  127.0.0.1:${ports.postgres} (database ${queue.DB.database}, user ${queue.DB.user}, password ${queue.DB.password})
  Data and logs in ${path.relative(process.cwd(), cluster.dataDir) || '.'} (git-ignored); each n8n has its own user folder there.

  The credential "${local.EXAMPLE_CREDENTIAL.name}" points at the API simulator:
    Base URL ${baseUrl}, Send Base URL ${sendBaseUrl}, token ${simulator.token}

  Executions run on the workers, the editor's manual runs too (OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS):
  their "[worker-N] Worker started execution …" lines show which worker ran what.

Ctrl-C stops n8n, the workers, Redis, PostgreSQL and the simulator.`);
	cluster.main.exited.then(({ code }) => {
		process.stderr.write(`n8n main exited (${code}); stopping the rest.\n`);
		stop(code || 1);
	});
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
