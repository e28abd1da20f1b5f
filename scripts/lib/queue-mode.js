'use strict';
// n8n's queue mode on one machine, everything on 127.0.0.1: PostgreSQL and Redis from Debian's
// packages with their data in a git-ignored folder, an n8n main process (EXECUTIONS_MODE=queue,
// DB_TYPE=postgresdb) that puts production executions on a Redis queue, and `n8n worker`
// processes that run them. Every n8n process gets its own user folder with this package installed
// into it, as it would on separate machines: a worker only knows the nodes installed where it runs.
// Used by `npm run start:queue`, `npm run test:queue` and `npm run bench:queue`.
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const local = require('./local-n8n');

/** The same pinned n8n as `npm start` (its cached install, no second one). */
const LINE = '2.x';
/** The database n8n uses; a development server on loopback only. */
const DB = { user: 'n8n', password: 'n8n-local-queue', database: 'n8n' };
const REDIS_SERVER = '/usr/bin/redis-server';

/**
 * The ports of a queue-mode setup from `base` up (7700 by default, away from `npm start`'s 5678,
 * 8787 and 8788 and the end-to-end tests' 57xx and 67xx): main, its task broker, Redis, PostgreSQL,
 * the simulator's two hosts, then a task-broker port and a health port per worker.
 */
function portsFrom(base) {
	return {
		n8n: base,
		mainBroker: base + 1,
		redis: base + 2,
		postgres: base + 3,
		api: base + 4,
		send: base + 5,
		/** Worker `index` (1, 2, …). */
		worker: (index) => ({ broker: base + 8 + 2 * index, health: base + 9 + 2 * index }),
	};
}

function log(message) {
	local.log(message);
}

/** Debian's PostgreSQL server binaries (the newest major version installed). */
function postgresBin() {
	const dir = '/usr/lib/postgresql';
	if (!fs.existsSync(dir)) return undefined;
	const [newest] = fs
		.readdirSync(dir)
		.filter((version) => fs.existsSync(path.join(dir, version, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return newest && path.join(dir, newest, 'bin');
}

/** Installs Debian's postgresql and redis-server when missing (as root), or says how to. */
function ensureServers() {
	const missing = [];
	if (!postgresBin()) missing.push('postgresql');
	if (!fs.existsSync(REDIS_SERVER)) missing.push('redis-server');
	if (missing.length === 0) return;
	if (process.getuid?.() !== 0 || !fs.existsSync('/usr/bin/apt-get')) {
		throw new Error(
			`Queue mode needs Debian's ${missing.join(' and ')} package${missing.length > 1 ? 's' : ''}. Install with:\n` +
				`  sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}\nthen run this again.`,
		);
	}
	log(
		`Installing Debian's ${missing.join(' and ')} with apt-get (first run on this machine only)…`,
	);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
	execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env });
	if (!postgresBin() || !fs.existsSync(REDIS_SERVER))
		throw new Error(`apt-get installed ${missing.join(' ')}, but the servers are still missing`);
}

/**
 * PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user that
 * Debian's package creates, through runuser; otherwise as the current user.
 */
function asPostgresUser(command, args) {
	return process.getuid?.() === 0
		? ['runuser', ['-u', 'postgres', '--', command, ...args]]
		: [command, args];
}

/**
 * A child process in its own process group (so that Ctrl-C in the terminal reaches only this
 * script, which stops things in order), its output appended to `logFile` and, with `echo`,
 * shown with a `[name]` prefix.
 */
function launch(name, command, args, { env, logFile, echo = false }) {
	fs.mkdirSync(path.dirname(logFile), { recursive: true });
	const file = fs.createWriteStream(logFile, { flags: 'a' });
	const child = spawn(command, args, {
		env: env ?? process.env,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let tail = '';
	for (const stream of [child.stdout, child.stderr]) {
		let partial = '';
		stream.on('data', (chunk) => {
			file.write(chunk);
			tail = (tail + chunk).slice(-6000);
			if (!echo) return;
			const lines = (partial + chunk).split('\n');
			partial = lines.pop();
			for (const line of lines) if (line.trim()) process.stdout.write(`[${name}] ${line}\n`);
		});
	}
	child.once('close', () => file.end());
	const exited = new Promise((resolve) =>
		child.once('exit', (code, signal) => resolve({ code, signal })),
	);
	const running = () => child.exitCode === null && child.signalCode === null;
	return {
		name,
		pid: child.pid,
		logFile,
		child,
		exited,
		running,
		/** The last lines it printed, for error messages. */
		tail: () => tail,
		/** Signals its whole process group (n8n's task runners, runuser's child). */
		signal(signal) {
			if (!running()) return;
			try {
				process.kill(-child.pid, signal);
			} catch {
				// already gone
			}
		},
		/** Stops it with `signal`, then SIGKILL after `graceMs`. */
		async stop(signal = 'SIGTERM', graceMs = 40_000) {
			if (!running()) return;
			this.signal(signal);
			const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
			await exited;
			clearTimeout(timer);
		},
	};
}

async function waitFor(what, processes, check, timeoutMs = 180_000) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		for (const proc of processes) {
			if (!proc.running())
				throw new Error(`${proc.name} exited while waiting for ${what}:\n${proc.tail()}`);
		}
		try {
			if (await check()) return;
		} catch {
			// not there yet
		}
		await new Promise((resolve) => setTimeout(resolve, 300));
	}
	throw new Error(
		`${what} did not happen within ${timeoutMs / 1000} s:\n${processes.map((p) => `${p.name}: ${p.tail()}`).join('\n')}`,
	);
}

/** n8n's own PostgreSQL client (`pg`, pure JavaScript), from the cached n8n install. */
function pgClient(port, database) {
	const { Client } = require(path.join(local.paths(LINE).dir, 'node_modules/pg'));
	return new Client({
		host: '127.0.0.1',
		port,
		user: DB.user,
		password: DB.password,
		database,
	});
}

/** Runs one SQL statement against n8n's database and returns its rows. */
async function query(port, sql, params = []) {
	const client = pgClient(port, DB.database);
	await client.connect();
	try {
		return (await client.query(sql, params)).rows;
	} finally {
		await client.end();
	}
}

/**
 * Where PostgreSQL keeps its data: `<dataDir>/postgres`. As root the server runs as the `postgres`
 * user, which cannot reach that folder when one above it is closed to other users (a clone in a
 * `mktemp -d` folder): the data then lives in the system's temporary folder, one per data folder,
 * linked from `<dataDir>/postgres`, so that removing the data folder still starts afresh.
 */
function postgresDataFolder(dataDir) {
	const inside = path.join(dataDir, 'postgres');
	fs.mkdirSync(dataDir, { recursive: true });
	if (process.getuid?.() !== 0) return inside;
	const [cmd, args] = asPostgresUser('test', ['-x', dataDir]);
	try {
		execFileSync(cmd, args);
		return inside;
	} catch {
		const hash = crypto.createHash('sha256').update(inside).digest('hex').slice(0, 12);
		const outside = path.join(os.tmpdir(), `sms-messaging-postgres-${hash}`);
		if (!fs.existsSync(inside)) {
			fs.rmSync(outside, { recursive: true, force: true });
			fs.symlinkSync(outside, inside);
		}
		return outside;
	}
}

/**
 * Starts PostgreSQL with its data in `<dataDir>/postgres` (created by initdb on first use, owned
 * by the server's user; see postgresDataFolder), listening on 127.0.0.1:`port` only (no Unix
 * socket), with password authentication, and makes sure n8n's database exists.
 */
async function startPostgres(dataDir, port, logDir) {
	const bin = postgresBin();
	const pgData = postgresDataFolder(dataDir);
	const root = process.getuid?.() === 0;
	fs.mkdirSync(pgData, { recursive: true, mode: 0o700 });
	if (root) execFileSync('chown', ['-R', 'postgres:postgres', pgData]);
	if (!fs.existsSync(path.join(pgData, 'PG_VERSION'))) {
		// The folders above the data folder must let the server's user through.
		const [checkCmd, checkArgs] = asPostgresUser('test', ['-w', pgData]);
		try {
			execFileSync(checkCmd, checkArgs);
		} catch {
			throw new Error(
				`PostgreSQL's user cannot write ${pgData}: a folder above it is closed to other users (chmod o+x it, or clone elsewhere)`,
			);
		}
		// Beside the data folder, where the server's user can read it.
		const pwfile = `${pgData}-password-${process.pid}`;
		fs.writeFileSync(pwfile, DB.password, { mode: 0o600 });
		if (root) execFileSync('chown', ['postgres:postgres', pwfile]);
		try {
			const [cmd, args] = asPostgresUser(path.join(bin, 'initdb'), [
				'-D',
				pgData,
				'-U',
				DB.user,
				`--pwfile=${pwfile}`,
				'--auth=scram-sha-256',
				'-E',
				'UTF8',
				'--locale=C',
			]);
			execFileSync(cmd, args, { stdio: 'pipe' });
		} finally {
			fs.rmSync(pwfile, { force: true });
		}
	}
	const [cmd, args] = asPostgresUser(path.join(bin, 'postgres'), [
		'-D',
		pgData,
		'-p',
		String(port),
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'unix_socket_directories=',
	]);
	const proc = launch('postgres', cmd, args, { logFile: path.join(logDir, 'postgres.log') });
	await waitFor('PostgreSQL', [proc], async () => {
		const client = pgClient(port, 'postgres');
		await client.connect();
		try {
			const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
				DB.database,
			]);
			if (rows.length === 0) await client.query(`CREATE DATABASE ${DB.database}`);
		} finally {
			await client.end();
		}
		return true;
	});
	return proc;
}

/** One Redis command over RESP; resolves with the first line of the answer. */
function redisCommand(port, ...words) {
	return new Promise((resolve, reject) => {
		const socket = net.connect(port, '127.0.0.1');
		const timer = setTimeout(() => socket.destroy(new Error('Redis did not answer')), 3000);
		socket.once('error', (error) => {
			clearTimeout(timer);
			reject(error);
		});
		socket.once('data', (data) => {
			clearTimeout(timer);
			socket.end();
			resolve(data.toString().split('\r\n')[0]);
		});
		socket.write(
			`*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join('')}`,
		);
	});
}

/** Starts Redis on 127.0.0.1:`port` with its data (snapshots) in `<dataDir>/redis`. */
async function startRedis(dataDir, port, logDir) {
	const dir = path.join(dataDir, 'redis');
	fs.mkdirSync(dir, { recursive: true });
	const proc = launch(
		'redis',
		REDIS_SERVER,
		['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--daemonize', 'no'],
		{ logFile: path.join(logDir, 'redis.log') },
	);
	await waitFor('Redis', [proc], async () => (await redisCommand(port, 'PING')) === '+PONG');
	return proc;
}

/**
 * What every n8n process of the setup shares on top of `npm start`'s environment: the database,
 * the queue, and no re-run of a job whose worker died (see docs/scale.md, "When a worker dies").
 */
function queueEnvironment(line, ports, { userFolder, brokerPort }, extra = {}) {
	return {
		...local.environment(line, { userFolder, port: ports.n8n, brokerPort }),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(ports.postgres),
		DB_POSTGRESDB_DATABASE: DB.database,
		DB_POSTGRESDB_USER: DB.user,
		DB_POSTGRESDB_PASSWORD: DB.password,
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(ports.redis),
		// n8n 1.x re-runs a job whose worker stopped renewing its lock once by default (the whole
		// workflow again, so a Send that had started would send again); 0 fails it instead. n8n 2.x
		// fixed this at 0 and ignores the variable.
		QUEUE_WORKER_MAX_STALLED_COUNT: '0',
		// The editor's manual runs go to the workers too (n8n warns that running them on main in
		// queue mode is deprecated), so that the example workflows also run where the node must be.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		...extra,
	};
}

/**
 * Starts `n8n worker` number `index` with its user folder `<dataDir>/worker-<index>` (where the
 * package must already be installed for it to run this node), its own task-broker and health
 * ports, and its output in `<dataDir>/logs/worker-<index>.log`. `ready` resolves once its health
 * endpoint says it is connected to the database and Redis.
 */
function launchWorker({ line = LINE, dataDir, ports, index, env = {}, echo = false }) {
	const { node, bin } = local.paths(line);
	const own = ports.worker(index);
	const userFolder = path.join(dataDir, `worker-${index}`);
	fs.mkdirSync(userFolder, { recursive: true });
	const worker = launch(`worker-${index}`, node, [bin, 'worker'], {
		env: queueEnvironment(
			line,
			ports,
			{ userFolder, brokerPort: own.broker },
			{
				// A worker logs "Worker started execution N" at info level: which one ran what.
				N8N_LOG_LEVEL: 'info',
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(own.health),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				...env,
			},
		),
		logFile: path.join(dataDir, 'logs', `worker-${index}.log`),
		echo,
	});
	worker.index = index;
	worker.healthPort = own.health;
	worker.brokerPort = own.broker;
	worker.userFolder = userFolder;
	worker.ready = waitFor(`${worker.name} to be ready`, [worker], async () => {
		const response = await fetch(`http://127.0.0.1:${own.health}/healthz/readiness`);
		return response.ok;
	});
	// A worker that dies before it is ready is reported by whoever awaits `ready`.
	worker.ready.catch(() => undefined);
	return worker;
}

/**
 * Starts `n8n webhook`, a webhook process as n8n's scaling guide runs one beside main (production
 * and waiting webhooks, the answers to approval links among them), on `port` with its own user
 * folder `<dataDir>/webhook` (where the package must already be installed), its output in
 * `<dataDir>/logs/webhook.log`. `ready` resolves once its health endpoint answers.
 */
function launchWebhookProcess({
	line = LINE,
	dataDir,
	ports,
	port,
	brokerPort,
	env = {},
	echo = false,
}) {
	const { node, bin } = local.paths(line);
	const userFolder = path.join(dataDir, 'webhook');
	fs.mkdirSync(userFolder, { recursive: true });
	const webhook = launch('webhook', node, [bin, 'webhook'], {
		env: {
			...queueEnvironment(line, ports, { userFolder, brokerPort }, env),
			N8N_PORT: String(port),
		},
		logFile: path.join(dataDir, 'logs', 'webhook.log'),
		echo,
	});
	webhook.url = `http://127.0.0.1:${port}`;
	webhook.ready = waitFor('the n8n webhook process to be ready', [webhook], async () => {
		const response = await fetch(`${webhook.url}/healthz`);
		return response.ok;
	});
	webhook.ready.catch(() => undefined);
	return webhook;
}

/**
 * Brings up PostgreSQL, Redis, n8n main (the pinned n8n of `line`, 2.x unless told otherwise) and `workers` n8n workers, with this package installed
 * into each n8n's user folder under `dataDir`, and (with `examples`, the credential's data) the
 * example workflows and their credential. `env` adds to every n8n process's environment,
 * `workerEnv` to the workers'. Resolves with what was started and a `stop()`.
 */
async function startQueueMode({
	line = LINE,
	dataDir,
	ports,
	workers = 2,
	examples,
	echo = false,
	env: extraEnv = {},
	workerEnv = {},
}) {
	ensureServers();
	const logDir = path.join(dataDir, 'logs');
	fs.mkdirSync(logDir, { recursive: true });
	const started = [];
	const stopAll = async () => {
		// n8n first (workers finish or hand back their jobs), then the servers they use.
		const n8n = started.filter((p) => p.name === 'main' || p.name.startsWith('worker'));
		await Promise.all(n8n.map((p) => p.stop('SIGTERM')));
		await Promise.all(
			started
				.filter((p) => !n8n.includes(p))
				.map((p) => p.stop(p.name === 'postgres' ? 'SIGINT' : 'SIGTERM')),
		);
	};
	// Should this process end some other way, its children do not outlive it.
	const onExit = () => started.forEach((p) => p.signal('SIGTERM'));
	process.once('exit', onExit);
	try {
		log('Starting PostgreSQL and Redis…');
		// Both start at once; if one fails, the other is stopped with the rest below.
		const servers = await Promise.allSettled([
			startPostgres(dataDir, ports.postgres, logDir),
			startRedis(dataDir, ports.redis, logDir),
		]);
		for (const server of servers) if (server.status === 'fulfilled') started.push(server.value);
		const failed = servers.find((server) => server.status === 'rejected');
		if (failed) throw failed.reason;
		const [postgres, redis] = servers.map((server) => server.value);

		await local.ensureInstalled(line);
		log('Building and packing n8n-nodes-sms-messaging, installing it for main and every worker…');
		const tarball = await local.packPackage();
		const folders = ['main', ...Array.from({ length: workers }, (_, i) => `worker-${i + 1}`)];
		for (const name of folders) await local.installPackage(path.join(dataDir, name), tarball);

		const { node, bin } = local.paths(line);
		const mainEnv = queueEnvironment(
			line,
			ports,
			{ userFolder: path.join(dataDir, 'main'), brokerPort: ports.mainBroker },
			extraEnv,
		);
		if (examples) await local.importExamples(line, mainEnv, path.join(dataDir, 'main'), examples);

		log('Starting n8n main…');
		const main = launch('main', node, [bin, 'start'], {
			env: mainEnv,
			logFile: path.join(logDir, 'main.log'),
			echo,
		});
		started.push(main);
		const n8nUrl = `http://127.0.0.1:${ports.n8n}`;
		await waitFor('n8n main to be ready', [main], async () => {
			const response = await fetch(`${n8nUrl}/healthz/readiness`);
			return response.ok;
		});
		// n8n 2.x sets the owner up from the environment; n8n 1.x through its setup endpoint, which
		// may answer 404 for a moment after the health check says ready.
		await waitFor('the n8n owner', [main], async () => {
			await local.ensureOwner(ports.n8n);
			return true;
		});

		// Workers start after main has migrated the database.
		log(`Starting ${workers} n8n worker${workers > 1 ? 's' : ''}…`);
		const workerProcs = Array.from({ length: workers }, (_, i) =>
			launchWorker({
				line,
				dataDir,
				ports,
				index: i + 1,
				env: { ...extraEnv, ...workerEnv },
				echo,
			}),
		);
		started.push(...workerProcs);
		await Promise.all(workerProcs.map((worker) => worker.ready));
		return {
			n8nUrl,
			ports,
			dataDir,
			logDir,
			main,
			workers: workerProcs,
			postgres,
			redis,
			version: local.version(line),
			query: (sql, params) => query(ports.postgres, sql, params),
			async stop() {
				await stopAll();
				process.removeListener('exit', onExit);
			},
		};
	} catch (error) {
		await stopAll();
		process.removeListener('exit', onExit);
		throw error;
	}
}

module.exports = {
	LINE,
	DB,
	portsFrom,
	startQueueMode,
	launchWorker,
	launchWebhookProcess,
	query,
	redisCommand,
	ensureServers,
};
