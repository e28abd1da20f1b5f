// `npm run bench:queue`: Send through n8n's queue mode (the setup of `npm run start:queue`), with
// one worker and then with two, in one run: 10 production executions of 10,000 items each, started
// at once through a Webhook. Wall time runs from the first webhook call to the last execution's
// stoppedAt in n8n's database. Writes the "Queue mode" section of BENCHMARKS.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';
import {
	clusterState,
	callWebhook,
	n8nClient,
	publishWebhookWorkflow,
	recipients,
	SEND,
	settledExecutions,
	smsNode,
	SPLIT_RECIPIENTS,
	workerLog,
	type QueueState,
} from '../test/queue/cluster';

const root = packageRoot();
/* eslint-disable @typescript-eslint/no-require-imports */
const queue = require(path.join(root, 'scripts/lib/queue-mode'));
const local = require(path.join(root, 'scripts/lib/local-n8n'));
const { Simulator } = require(path.join(root, 'test/simulator/simulator'));
/* eslint-enable @typescript-eslint/no-require-imports */

const EXECUTIONS = Number(process.env.BENCH_EXECUTIONS || 10);
const ITEMS = Number(process.env.BENCH_ITEMS || 10_000);
const PORTS = queue.portsFrom(Number(process.env.QUEUE_BENCH_PORT_BASE || 7740));
const DATA_DIR = path.join(root, '.n8n-local', 'queue-bench');
const MARKER = '\n## Queue mode';

interface Result {
	workers: number;
	round: number;
	wallMs: number;
	perWorker: Record<string, number>;
	requests: number;
	/** CPU seconds used during the timed window, per part of the setup. */
	cpu: Record<string, number>;
	/** The machine's 1-minute load average before and after the timed window. */
	load: [number, number];
}

const TICKS = 100; // USER_HZ on Linux

/**
 * CPU seconds (user + system) used so far by each named process and every live process below it
 * (n8n's task runners, PostgreSQL's backends), from /proc.
 */
function cpuOfTrees(roots: Record<string, number>): Record<string, number> {
	const parent = new Map<number, number>();
	const seconds = new Map<number, number>();
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		let stat: string;
		try {
			stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
		} catch {
			continue; // ended meanwhile
		}
		// The fields after the command name (which may hold spaces): state, ppid, …, utime, stime, cutime, cstime.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		parent.set(Number(entry), Number(fields[1]));
		// Own time, and that of its children that ended and were waited for (a finished task,
		// a closed database connection): every CPU second is counted once.
		const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
		seconds.set(Number(entry), (utime + stime + cutime + cstime) / TICKS);
	}
	const rootOf = (pid: number): string | undefined => {
		for (let p: number | undefined = pid; p && p > 1; p = parent.get(p)) {
			const name = Object.keys(roots).find((key) => roots[key] === p);
			if (name) return name;
		}
		return undefined;
	};
	const totals: Record<string, number> = Object.fromEntries(Object.keys(roots).map((k) => [k, 0]));
	for (const [pid, used] of seconds) {
		const name = rootOf(pid);
		if (name) totals[name] += used;
	}
	return totals;
}

async function measure(
	workers: number,
	round: number,
	simulator: InstanceType<typeof Simulator>,
	urls: { baseUrl: string; sendBaseUrl: string },
) {
	fs.rmSync(DATA_DIR, { recursive: true, force: true });
	const cluster = await queue.startQueueMode({ dataDir: DATA_DIR, ports: PORTS, workers });
	try {
		const state: QueueState = clusterState(
			cluster,
			{ ...urls, token: simulator.token },
			{ n8nDir: local.paths(queue.LINE).dir, postgresPort: PORTS.postgres },
		);
		const n8n = n8nClient(state);
		await n8n.login();
		const credential = await n8n.createCredential('Bench');
		const nodes = [SPLIT_RECIPIENTS, smsNode(credential, SEND)];
		// One small execution per worker first, so that loading the workflow's nodes is not timed.
		const warmUp = await publishWebhookWorkflow(
			n8n,
			state,
			'bench: warm-up',
			'bench-warm-up',
			nodes,
		);
		await Promise.all(
			cluster.workers.map((_: unknown, i: number) =>
				callWebhook(warmUp.url, { recipients: recipients(900_000 + i * 100, 100) }),
			),
		);
		await settledExecutions(state, warmUp.id, workers);
		const workflow = await publishWebhookWorkflow(n8n, state, 'bench: send', 'bench-send', nodes);
		const batches = Array.from({ length: EXECUTIONS }, (_, b) => recipients(b * ITEMS, ITEMS));
		const bodies = batches.map((batch) => JSON.stringify({ recipients: batch }));
		simulator.reset();

		const groups: Record<string, number> = {
			main: cluster.main.pid,
			workers: 0,
			postgres: cluster.postgres.pid,
			redis: cluster.redis.pid,
		};
		const workerGroups = Object.fromEntries(
			cluster.workers.map((w: { name: string; pid: number }) => [w.name, w.pid]),
		);
		const cpu = () => {
			const parts = cpuOfTrees({ ...groups, ...workerGroups });
			const own = process.cpuUsage();
			parts.workers = Object.keys(workerGroups).reduce((sum, name) => sum + parts[name], 0);
			for (const name of Object.keys(workerGroups)) delete parts[name];
			// The simulator answers from this process.
			parts['simulator (this process)'] = (own.user + own.system) / 1e6;
			return parts;
		};
		const loadBefore = os.loadavg()[0];
		const cpuBefore = cpu();
		const started = Date.now();
		await Promise.all(
			bodies.map((body) =>
				fetch(workflow.url, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body,
				}).then((r) => {
					if (!r.ok) throw new Error(`webhook: ${r.status}`);
				}),
			),
		);
		const rows = await settledExecutions(state, workflow.id, EXECUTIONS, 900_000);
		const [{ last }] = await cluster.query(
			'SELECT max("stoppedAt") AS last FROM execution_entity WHERE "workflowId" = $1',
			[workflow.id],
		);
		const wallMs = new Date(last).getTime() - started;
		const cpuAfter = cpu();
		const cpuUsed = Object.fromEntries(
			Object.keys(cpuAfter).map((k) => [k, cpuAfter[k] - cpuBefore[k]]),
		);
		const load: [number, number] = [loadBefore, os.loadavg()[0]];

		// The figures count only if every envelope arrived exactly once and every execution succeeded.
		if (!rows.every((row) => row.status === 'success'))
			throw new Error(`not all executions succeeded: ${JSON.stringify(rows)}`);
		const numbers = new Set(simulator.sentEnvelopes.map((e: { number: string }) => e.number));
		if (
			simulator.sentEnvelopes.length !== EXECUTIONS * ITEMS ||
			numbers.size !== EXECUTIONS * ITEMS
		)
			throw new Error(`${simulator.sentEnvelopes.length} envelopes, ${numbers.size} distinct`);
		const { started: ranBy } = workerLog(state);
		const perWorker: Record<string, number> = {};
		for (const row of rows)
			for (const name of ranBy.get(row.id) ?? ['?']) perWorker[name] = (perWorker[name] ?? 0) + 1;
		const result = {
			workers,
			round,
			wallMs,
			perWorker,
			requests: simulator.requests.length,
			cpu: cpuUsed,
			load,
		};
		process.stdout.write(
			`round ${round}, ${workers} worker(s): ${(wallMs / 1000).toFixed(2)} s, ${JSON.stringify(perWorker)}, CPU s ${JSON.stringify(cpuUsed)}, load ${load.map((l) => l.toFixed(1)).join(' → ')}\n`,
		);
		return result;
	} finally {
		await cluster.stop();
	}
}

const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** What the rows say beyond the median: spread, CPU per configuration, how busy the machine was. */
function notes(results: Result[]) {
	const range = (values: number[], digits = 1) =>
		`${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
	const of = (workers: number) => results.filter((r) => r.workers === workers);
	const totalCpu = (r: Result) => Object.values(r.cpu).reduce((sum, v) => sum + v, 0);
	const loads = results.flatMap((r) => r.load);
	const cores = os.cpus().length;
	const busy =
		Math.max(...loads) > cores
			? ` The machine was shared with other work while this ran (1-minute load average ${range(loads)} on ${cores} cores): the rows measure that too, and the rounds disagree.`
			: '';
	return `Notes: wall time ranged ${range(
		of(1).map((r) => r.wallMs / 1000),
		2,
	)} s with one worker and ${range(
		of(2).map((r) => r.wallMs / 1000),
		2,
	)} s with two.${busy} The workers used ${range(of(1).map((r) => r.cpu.workers))} CPU seconds with one worker and ${range(of(2).map((r) => r.cpu.workers))} with two for the same ${(EXECUTIONS * ITEMS).toLocaleString('en')} items (measured, not profiled), and the whole setup ${range(of(1).map(totalCpu))} against ${range(of(2).map(totalCpu))}. With ${cores} cores shared by main, PostgreSQL, Redis, the simulator and the workers, a second worker on the same machine adds parallelism but no CPU; workers on their own machines add their own.`;
}

function section(results: Result[], version: string) {
	const total = EXECUTIONS * ITEMS;
	const cpu = (r: Result) =>
		['workers', 'main', 'postgres', 'redis', 'simulator (this process)']
			.map((k) => `${r.cpu[k].toFixed(1)}`)
			.join(' / ');
	const rows = results.map(
		(r) =>
			`| ${r.round} | ${r.workers} | ${Object.entries(r.perWorker)
				.sort()
				.map(([name, n]) => `${name}: ${n}`)
				.join(
					', ',
				)} | ${(r.wallMs / 1000).toFixed(2)} s | ${((EXECUTIONS / r.wallMs) * 1000).toFixed(2)} | ${Math.round((total / r.wallMs) * 1000).toLocaleString('en')} | ${cpu(r)} | ${r.load.map((l) => l.toFixed(1)).join(' → ')} |`,
	);
	const one = median(results.filter((r) => r.workers === 1).map((r) => r.wallMs));
	const two = median(results.filter((r) => r.workers === 2).map((r) => r.wallMs));
	const rounds = Math.max(...results.map((r) => r.round));
	const verdict =
		two < one
			? `two workers took ${((two / one) * 100).toFixed(0)}% of one worker's wall time (${(one / two).toFixed(2)}× the executions per second)`
			: `two workers were not faster: they took ${((two / one) * 100).toFixed(0)}% of one worker's wall time (${(one / two).toFixed(2)}× the executions per second)`;
	return `${MARKER}

Produced by \`npm run bench:queue\` on ${new Date().toISOString().slice(0, 10)}, every row in one run (${rounds} round${rounds > 1 ? 's' : ''}, one worker then two in each):
n8n ${version} in queue mode as \`npm run start:queue\` sets it up (main, PostgreSQL, Redis, workers at n8n's
default concurrency of 10, a fresh database per row), everything on 127.0.0.1 with the API simulator, on
${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}). ${EXECUTIONS} production executions of a published workflow (Webhook → Split Out →
SMS Send, batches of 100), each receiving ${ITEMS.toLocaleString('en')} recipients, started at once; wall time from the first
webhook call to the last execution's \`stoppedAt\` in n8n's database (one untimed warm-up execution per
worker first). Every row checked that all executions succeeded and that the simulator received all
${total.toLocaleString('en')} envelopes (${(total / 100).toLocaleString('en')} requests) exactly once. CPU seconds are what each part used during the timed window
(from /proc); the load is the machine's 1-minute load average before → after.

| Round | Workers | Executions run by | Wall time | Executions/s | Items/s | CPU s: workers / main / PostgreSQL / Redis / simulator | Load |
|---:|---:|---|---:|---:|---:|---|---|
${rows.join('\n')}

Median over the rounds: ${verdict}.

${notes(results)}
`;
}

function writeSection(text: string) {
	const file = path.join(root, 'BENCHMARKS.md');
	const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
	let updated: string;
	if (existing.includes(MARKER)) {
		const start = existing.indexOf(MARKER);
		const next = existing.indexOf('\n## ', start + MARKER.length);
		updated =
			existing.slice(0, start) + `\n${text.trim()}\n` + (next === -1 ? '' : existing.slice(next));
	} else {
		// Before `npm run bench:n8n`'s section, which that script rewrites to the end of the file.
		const n8nSection = existing.indexOf('\n## In a real n8n');
		updated =
			n8nSection === -1
				? `${existing.trimEnd()}\n${text}`
				: `${existing.slice(0, n8nSection).trimEnd()}\n${text}${existing.slice(n8nSection)}`;
	}
	fs.writeFileSync(file, updated);
}

async function main() {
	const simulator = new Simulator({
		token: 'bench-token',
		balance: 1e12,
		smsRecords: 0,
		contacts: 0,
	});
	const urls = await simulator.start({ apiPort: PORTS.api, sendPort: PORTS.send });
	try {
		const results: Result[] = [];
		const rounds = Number(process.env.BENCH_ROUNDS || 2);
		for (let round = 1; round <= rounds; round++)
			for (const workers of [1, 2]) results.push(await measure(workers, round, simulator, urls));
		const text = section(results, local.version(queue.LINE));
		writeSection(text);
		process.stdout.write(text);
	} finally {
		await simulator.stop();
	}
}

main().catch((error) => {
	process.stderr.write(`${error.stack}\n`);
	process.exit(1);
});
