// Requests in Parallel = Auto against an API with a limit it never publishes: the benchmark's
// gateway (bench/gateway.ts) in front of the simulator adds latency and enforces N requests in
// flight, R requests per second (a sliding window, or a token bucket with a burst of 2, as most
// gateways), answering 429 with Retry-After: 1 beyond it. Auto, Auto as it was before issue 37
// (an earlier build, BENCH_BEFORE) and a fixed 4 in flight side by side, interleaved, each
// measurement in fresh child processes: one, or three at once (as n8n workers, which share no
// memory) each sending its share through the same gateway.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';
import { buildBefore } from './before';
import type { ContenderName } from './contenders';
import { startGateway, throughGateway, type GatewayOptions } from './gateway';

const root = packageRoot();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require(path.join(root, 'test/simulator/simulator'));

/** Items sent and records read (batches and pages of 100: COUNT / 100 requests). */
const COUNT = Number(process.env.BENCH_ADAPTIVE_COUNT || 10_000);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS || 3);
/** Servers of this section listen from this port on (0: ports the system picks). */
const PORT_BASE = Number(process.env.BENCH_PORT_BASE || 0);
/** The processes of the workers' scenarios, each sending COUNT / 2 items. */
const WORKERS = 3;
/**
 * The build measured as "before": the last commit before issue 37 (one first-come queue, no
 * pacing), built into a temporary folder; BENCH_BEFORE=none leaves it out.
 */
const BEFORE = process.env.BENCH_BEFORE || '064cde5';

export interface Scenario {
	label: string;
	gateway: Omit<GatewayOptions, 'target'>;
	/** Processes sending at once (each its own n8n, its own limiter), each `COUNT / 2` items. */
	workers?: number;
	/**
	 * What the limit allows at best for `requests` requests (ms), with the first alone for a list
	 * (its page counts come with the first page) and not for Send (as the issue's figures count).
	 */
	limitMs?: (requests: number, firstAlone: boolean) => number;
	/** Targets: Auto within this many times the limit's time, with at most this share refused. */
	target?: { ratio: number; refused: number };
	/** Target: Auto at least this many times faster than 4 in flight. */
	speedup?: number;
	list: boolean;
	/** Whether a fixed 4 in flight is measured too. */
	fixed: boolean;
}

export const inFlightLimit =
	(n: number, latencyMs: number) => (requests: number, firstAlone: boolean) =>
		(firstAlone ? 1 + Math.ceil((requests - 1) / n) : Math.ceil(requests / n)) * latencyMs;
const rateLimit = (perSecond: number) => (requests: number) => (requests / perSecond) * 1000;
const BUCKET = { perSecond: 20, burst: 2 };

const SCENARIOS: Scenario[] = [
	{
		label: '20 requests/s allowed (token bucket, burst 2), 50 ms',
		gateway: { latencyMs: 50, bucket: BUCKET },
		limitMs: rateLimit(20),
		target: { ratio: 1.6, refused: 0.15 },
		list: false,
		// A fixed 4 takes ten times the limit's time here (50 s a run): left out.
		fixed: false,
	},
	{
		label: '1 in flight allowed, 50 ms',
		gateway: { latencyMs: 50, maxInFlight: 1 },
		limitMs: inFlightLimit(1, 50),
		target: { ratio: 2, refused: 0.15 },
		list: false,
		fixed: false,
	},
	{
		label: '16 in flight allowed, 400 ms',
		gateway: { latencyMs: 400, maxInFlight: 16 },
		limitMs: inFlightLimit(16, 400),
		target: { ratio: 2, refused: 0.15 },
		list: true,
		fixed: true,
	},
	{
		label: '20 requests/s allowed (sliding window), 50 ms',
		gateway: { latencyMs: 50, perSecond: 20 },
		limitMs: rateLimit(20),
		target: { ratio: 1.6, refused: 0.15 },
		list: false,
		fixed: true,
	},
	{
		label: `${WORKERS} workers, 16 in flight allowed, 400 ms`,
		gateway: { latencyMs: 400, maxInFlight: 16 },
		workers: WORKERS,
		limitMs: inFlightLimit(16, 400),
		target: { ratio: 2, refused: 0.15 },
		list: false,
		fixed: false,
	},
	{
		label: `${WORKERS} workers, 20 requests/s allowed (token bucket, burst 2), 50 ms`,
		gateway: { latencyMs: 50, bucket: BUCKET },
		workers: WORKERS,
		limitMs: rateLimit(20),
		target: { ratio: 1.6, refused: 0.25 },
		list: false,
		fixed: false,
	},
	{
		label: 'no limit, 400 ms',
		gateway: { latencyMs: 400 },
		speedup: 3,
		list: true,
		fixed: true,
	},
];

export interface Contender {
	label: string;
	name: ContenderName;
	parallel?: number;
	/** Measured on the earlier build (BEFORE). */
	before?: boolean;
	/** Run this many times in a row in one process (BENCH_RUNS, contenders.ts): a first run and later ones. */
	runs?: number;
}

const AUTO: Contender = { label: 'Send, Requests in Parallel = Auto (default)', name: 'send' };
const AUTO_BEFORE: Contender = {
	label: `Send, Auto before issue 37 (${BEFORE})`,
	name: 'send',
	before: true,
};
const FIXED: Contender = { label: 'Send, Requests in Parallel = 4', name: 'send', parallel: 4 };
const LIST: Contender[] = [
	{ label: 'Get Many, Return All (Auto)', name: 'list' },
	{
		label: 'node:http keep-alive, 4 in flight (what 4 pages at once can do at best)',
		name: 'listFloor',
		parallel: 4,
	},
];

function contendersOf(scenario: Scenario, beforeRoot: string | undefined): Contender[] {
	return [
		AUTO,
		...(beforeRoot ? [AUTO_BEFORE] : []),
		...(scenario.fixed ? [FIXED] : []),
		...(scenario.list ? LIST : []),
	];
}

interface Measurement {
	wallMs?: number;
	failed?: string;
	requests: number;
	refused: number;
	peak: number;
	/** Each worker's own time (ms), with several workers. */
	workerMs: number[];
	/** Each run's time, requests and refusals, for a contender run several times in one process. */
	runs: Array<{ ms: number; requests: number; refused: number }>;
}

/** One process of a measurement: its time, its start, or why it failed. */
function runContender(
	args: string[],
	env: NodeJS.ProcessEnv,
): Promise<{
	wallMs?: number;
	startedAt?: number;
	runs?: Array<{ startedAt: number; ms: number }>;
	failed?: string;
}> {
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			[path.join(__dirname, 'contenders.js'), ...args],
			{ maxBuffer: 1 << 20, timeout: 600_000, env: { ...process.env, ...env } },
			(error, stdout, stderr) => {
				if (error) {
					const line = /failed: (.*)/.exec(stderr)?.[1] ?? error.message;
					resolve({ failed: line.slice(0, 120) });
				} else resolve(JSON.parse(stdout) as { wallMs: number; startedAt: number });
			},
		);
	});
}

export async function measure(
	scenario: Scenario,
	contender: Contender,
	simulator: typeof Simulator.prototype,
	port: number,
	beforeRoot: string | undefined,
): Promise<Measurement> {
	simulator.requests = [];
	simulator.sms.splice(simulator.seeded);
	const target = contender.name === 'send' ? simulator.sendBaseUrl : simulator.baseUrl;
	const gateway = await startGateway({
		target: new URL(target).origin,
		...scenario.gateway,
		port,
	});
	const through = throughGateway(gateway, target);
	const [baseUrl, sendBaseUrl] =
		contender.name === 'send' ? [simulator.baseUrl, through] : [through, simulator.sendBaseUrl];
	const workers = scenario.workers ?? 1;
	const count = workers > 1 ? COUNT / 2 : COUNT;
	const args = [contender.name, String(count), baseUrl, sendBaseUrl, simulator.token, '100'];
	if (contender.parallel) args.push(String(contender.parallel));
	const env: NodeJS.ProcessEnv = contender.before ? { BENCH_PACKAGE_ROOT: beforeRoot } : {};
	if (contender.runs) env.BENCH_RUNS = String(contender.runs);
	// Workers load n8n first and start sending together.
	if (workers > 1) env.BENCH_START_AT = String(Date.now() + 10_000);
	const outcomes = await Promise.all(
		Array.from({ length: workers }, () => runContender(args, env)),
	);
	await gateway.stop();
	const failed = outcomes.find((o) => o.failed)?.failed;
	const startAt = Math.min(...outcomes.map((o) => o.startedAt ?? Infinity));
	const ends = outcomes.map((o) => (o.startedAt ?? 0) + (o.wallMs ?? 0));
	return {
		...(failed ? { failed } : { wallMs: Math.max(...ends) - startAt }),
		requests: gateway.records.length,
		refused: gateway.records.filter((r) => r.refused).length,
		peak: gateway.peak,
		workerMs: workers > 1 ? outcomes.map((o) => o.wallMs ?? NaN) : [],
		runs: (outcomes[0].runs ?? []).map((run, i, all) => {
			const inRun = gateway.records.filter(
				(r) =>
					r.arrivedAt >= run.startedAt &&
					(i + 1 >= all.length || r.arrivedAt < all[i + 1].startedAt),
			);
			return { ms: run.ms, requests: inRun.length, refused: inRun.filter((r) => r.refused).length };
		}),
	};
}

export const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A simulator holding `count` SMS records, kept as they are between measurements (`seeded`). */
export async function seededSimulator(
	count: number,
	ports: { apiPort?: number; sendPort?: number } = {},
): Promise<typeof Simulator.prototype> {
	const simulator = new Simulator({
		token: 'bench-token',
		balance: 1e12,
		smsRecords: count,
		contacts: 0,
	});
	simulator.seeded = count;
	await simulator.start(ports);
	return simulator;
}

/** Only the scenarios whose label holds this (for a quick look; the section needs them all). */
const ONLY_SCENARIO = process.env.BENCH_ADAPTIVE_SCENARIO;

/** The section of BENCHMARKS.md, with its own targets. */
export async function adaptiveComparison(): Promise<string> {
	const beforeRoot = BEFORE === 'none' ? undefined : buildBefore(BEFORE);
	const simulator = await seededSimulator(
		COUNT,
		PORT_BASE ? { apiPort: PORT_BASE, sendPort: PORT_BASE + 1 } : {},
	);
	const scenarios = SCENARIOS.filter((s) => !ONLY_SCENARIO || s.label.includes(ONLY_SCENARIO));
	const runs = new Map<string, Measurement[]>();
	const key = (s: Scenario, c: Contender) => `${s.label}|${c.label}`;
	let port = PORT_BASE ? PORT_BASE + 2 : 0;
	for (let repetition = 0; repetition < REPETITIONS; repetition++) {
		for (const scenario of scenarios) {
			const contenders = contendersOf(scenario, beforeRoot);
			for (let i = 0; i < contenders.length; i++) {
				const contender = contenders[(i + repetition) % contenders.length];
				const measured = await measure(scenario, contender, simulator, port, beforeRoot);
				// A fresh port per measurement: a fresh shared limiter in the child anyway.
				if (port) port = port + 1 > PORT_BASE + 900 ? PORT_BASE + 2 : port + 1;
				runs.set(key(scenario, contender), [
					...(runs.get(key(scenario, contender)) ?? []),
					measured,
				]);
			}
			process.stdout.write(`  adaptive, repetition ${repetition + 1}, ${scenario.label}: done\n`);
		}
	}
	await simulator.stop();
	if (beforeRoot) fs.rmSync(beforeRoot, { recursive: true, force: true });

	const rows = [
		"| Hidden limit | Contender | Wall time (median) | × the limit's time | HTTP requests | Refused (429) | Peak in flight | Each worker (median run) |",
		'|---|---|---:|---:|---:|---:|---:|---|',
	];
	const targets = ['| Target | Measured | Met |', '|---|---:|---|'];
	for (const scenario of scenarios) {
		const contenders = contendersOf(scenario, beforeRoot);
		const wall = new Map<Contender, number | undefined>();
		const requests = ((scenario.workers ?? 1) > 1 ? (COUNT / 2) * scenario.workers! : COUNT) / 100;
		for (const contender of contenders) {
			const measured = runs.get(key(scenario, contender))!;
			const failures = measured.filter((m) => m.failed);
			const ok = measured.filter((m) => m.wallMs !== undefined);
			const middle = ok.length
				? [...ok].sort((a, b) => a.wallMs! - b.wallMs!)[Math.floor(ok.length / 2)]
				: undefined;
			const wallMs = middle?.wallMs;
			wall.set(contender, wallMs);
			const limitMs = scenario.limitMs?.(requests, contender.name !== 'send');
			const all = median(measured.map((m) => m.requests));
			const refused = median(measured.map((m) => m.refused));
			const time =
				wallMs === undefined
					? `failed: ${failures[0].failed}`
					: `${(wallMs / 1000).toFixed(2)} s${failures.length ? ` (${failures.length} of ${measured.length} runs failed: ${failures[0].failed})` : ''}`;
			const each = middle?.workerMs.length
				? middle.workerMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')
				: '—';
			rows.push(
				`| ${scenario.label} | ${contender.label} | ${time} | ${limitMs && wallMs ? (wallMs / limitMs).toFixed(2) : '—'} | ${all} | ${refused} (${Math.round((refused / all) * 100)}%) | ${median(measured.map((m) => m.peak))} | ${each} |`,
			);
			if (contender.parallel || contender.before) continue;
			const what = contender.name === 'send' ? 'Send' : 'Return All';
			if (scenario.target && limitMs) {
				// Every run must meet it, not only the median.
				const worst = Math.max(...measured.map((m) => (m.wallMs ?? Infinity) / limitMs));
				const share = Math.max(...measured.map((m) => m.refused / m.requests));
				const met = worst <= scenario.target.ratio && share <= scenario.target.refused;
				targets.push(
					`| ${what}, ${scenario.label}: every run within ${scenario.target.ratio}× the limit's time (${(limitMs / 1000).toFixed(1)} s), ≤${scenario.target.refused * 100}% refused | worst ${worst.toFixed(2)}×, ${Math.round(share * 100)}% | ${met ? 'yes' : 'no'} |`,
				);
			}
		}
		if (scenario.speedup) {
			for (const [auto, fixed] of [[AUTO, FIXED], ...(scenario.list ? [LIST] : [])]) {
				const a = wall.get(auto);
				const f = wall.get(fixed);
				const gain = a && f ? f / a : 0;
				targets.push(
					`| ${auto.label}, ${scenario.label}: at least ${scenario.speedup}× faster than ${fixed.label} | ${gain.toFixed(2)}× | ${gain >= scenario.speedup ? 'yes' : 'no'} |`,
				);
			}
		}
	}
	return `## Requests in Parallel = Auto under a hidden limit: ${COUNT.toLocaleString('en')} items, ${COUNT / 100} requests

A gateway of the benchmark's own (\`bench/gateway.ts\`, on 127.0.0.1) stands in front of the
simulator: it holds every request it lets through for the latency shown and enforces one limit the
node is never told, answering 429 with \`Retry-After: 1\` at once beyond it: N in flight from
arrival to answer; R let through in any second (a sliding window, which lets a whole second's worth
through at once); or a token bucket of R a second holding at most 2 (a burst of 2), as most API
gateways limit a rate. "The limit's time" is the least time the limit allows for the requests: for
Return All with its first page alone, as every list is read; for Send without (as the issues that
set the targets count it), although Send's first request goes alone too. "${WORKERS} workers" are
${WORKERS} processes started together, each its own n8n engine with its own limiter (as n8n workers
in queue mode, which share no memory), each sending ${(COUNT / 2).toLocaleString('en')} items through the same gateway
with the same credential; their time is from their common start to the last one's end, and "each
worker" gives every process's own time. "Auto before issue 37" is the same Send built from commit
\`${BEFORE}\` (one first-come queue per credential, no pacing), measured in the same run on the same
gateway. The list has no Requests in Parallel option: it is set against node:http doing the same
reads 4 at once through the same gateway. ${REPETITIONS} interleaved repetitions, medians; a target is
met only when every repetition meets it. \`BENCH_ONLY=adaptive npm run bench\` runs only this
section. The machine's ${os.cpus().length} cores are shared with other work (load average ${os.loadavg()[0].toFixed(1)} when this section
ended, on ${new Date().toISOString().slice(0, 10)}).

${rows.join('\n')}

${targets.join('\n')}
`;
}
