// Requests in Parallel = Auto against an API with a limit it never publishes: the benchmark's
// gateway (bench/gateway.ts) in front of the simulator adds latency and enforces N requests in
// flight or R requests per second, answering 429 with Retry-After: 1 beyond it. Auto and a fixed
// 4 in flight side by side, interleaved, each measurement in a fresh child process.
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';
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

interface Scenario {
	label: string;
	gateway: Omit<GatewayOptions, 'target'>;
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
}

const SCENARIOS: Scenario[] = [
	{
		label: '16 in flight allowed, 400 ms',
		gateway: { latencyMs: 400, maxInFlight: 16 },
		limitMs: (requests, firstAlone) =>
			(firstAlone ? 1 + Math.ceil((requests - 1) / 16) : Math.ceil(requests / 16)) * 400,
		target: { ratio: 2, refused: 0.1 },
		list: true,
	},
	{
		label: '20 requests/s allowed, 50 ms',
		gateway: { latencyMs: 50, perSecond: 20 },
		limitMs: (requests) => (requests / 20) * 1000,
		target: { ratio: 1.6, refused: 0.2 },
		list: false,
	},
	{
		label: 'no limit, 400 ms',
		gateway: { latencyMs: 400 },
		speedup: 3,
		list: true,
	},
];

interface Contender {
	label: string;
	name: ContenderName;
	parallel?: number;
}

const SEND: Contender[] = [
	{ label: 'Send, Requests in Parallel = Auto (default)', name: 'send' },
	{ label: 'Send, Requests in Parallel = 4', name: 'send', parallel: 4 },
];
const LIST: Contender[] = [
	{ label: 'Get Many, Return All (Auto)', name: 'list' },
	{
		label: 'node:http keep-alive, 4 in flight (what 4 pages at once can do at best)',
		name: 'listFloor',
		parallel: 4,
	},
];

interface Measurement {
	wallMs?: number;
	failed?: string;
	requests: number;
	refused: number;
	peak: number;
}

async function measure(
	scenario: Scenario,
	contender: Contender,
	simulator: typeof Simulator.prototype,
	port: number,
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
	const script = path.join(__dirname, 'contenders.js');
	const outcome = await new Promise<{ wallMs?: number; failed?: string }>((resolve) => {
		execFile(
			process.execPath,
			[
				script,
				contender.name,
				String(COUNT),
				baseUrl,
				sendBaseUrl,
				simulator.token,
				'100',
				...(contender.parallel ? [String(contender.parallel)] : []),
			],
			{ maxBuffer: 1 << 20, timeout: 600_000 },
			(error, stdout, stderr) => {
				if (error) {
					const line = /failed: (.*)/.exec(stderr)?.[1] ?? error.message;
					resolve({ failed: line.slice(0, 120) });
				} else resolve({ wallMs: (JSON.parse(stdout) as { wallMs: number }).wallMs });
			},
		);
	});
	await gateway.stop();
	return {
		...outcome,
		requests: gateway.records.length,
		refused: gateway.records.filter((r) => r.refused).length,
		peak: gateway.peak,
	};
}

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The section of BENCHMARKS.md, with its own targets. */
export async function adaptiveComparison(): Promise<string> {
	const simulator = new Simulator({
		token: 'bench-token',
		balance: 1e12,
		smsRecords: COUNT,
		contacts: 0,
	});
	simulator.seeded = COUNT;
	await simulator.start(PORT_BASE ? { apiPort: PORT_BASE, sendPort: PORT_BASE + 1 } : {});
	const runs = new Map<string, Measurement[]>();
	const key = (s: Scenario, c: Contender) => `${s.label}|${c.label}`;
	let port = PORT_BASE ? PORT_BASE + 2 : 0;
	for (let repetition = 0; repetition < REPETITIONS; repetition++) {
		for (const scenario of SCENARIOS) {
			const contenders = [...SEND, ...(scenario.list ? LIST : [])];
			for (let i = 0; i < contenders.length; i++) {
				const contender = contenders[(i + repetition) % contenders.length];
				const measured = await measure(scenario, contender, simulator, port);
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

	const requests = COUNT / 100;
	const rows = [
		"| Hidden limit | Contender | Wall time (median) | × the limit's time | HTTP requests | Refused (429) | Peak in flight |",
		'|---|---|---:|---:|---:|---:|---:|',
	];
	const targets = ['| Target | Measured | Met |', '|---|---:|---|'];
	for (const scenario of SCENARIOS) {
		const contenders = [...SEND, ...(scenario.list ? LIST : [])];
		const wall = new Map<Contender, number | undefined>();
		for (const contender of contenders) {
			const measured = runs.get(key(scenario, contender))!;
			const failures = measured.filter((m) => m.failed);
			const ok = measured.filter((m) => m.wallMs !== undefined);
			const wallMs = ok.length ? median(ok.map((m) => m.wallMs!)) : undefined;
			wall.set(contender, wallMs);
			const limitMs = scenario.limitMs?.(requests, contender.name !== 'send');
			const all = median(measured.map((m) => m.requests));
			const refused = median(measured.map((m) => m.refused));
			const time =
				wallMs === undefined
					? `failed: ${failures[0].failed}`
					: `${(wallMs / 1000).toFixed(2)} s${failures.length ? ` (${failures.length} of ${measured.length} runs failed: ${failures[0].failed})` : ''}`;
			rows.push(
				`| ${scenario.label} | ${contender.label} | ${time} | ${limitMs && wallMs ? (wallMs / limitMs).toFixed(2) : '—'} | ${all} | ${refused} (${Math.round((refused / all) * 100)}%) | ${median(measured.map((m) => m.peak))} |`,
			);
			if (contender.parallel) continue;
			const what = contender.name === 'send' ? 'Send' : 'Return All';
			if (scenario.target && limitMs) {
				const ratio = wallMs === undefined ? Infinity : wallMs / limitMs;
				const share = refused / all;
				const met = ratio <= scenario.target.ratio && share <= scenario.target.refused;
				targets.push(
					`| ${what}, ${scenario.label}: within ${scenario.target.ratio}× the limit's time (${(limitMs / 1000).toFixed(1)} s), ≤${scenario.target.refused * 100}% refused | ${ratio.toFixed(2)}×, ${Math.round(share * 100)}% | ${met ? 'yes' : 'no'} |`,
				);
			}
		}
		if (scenario.speedup) {
			for (const [auto, fixed] of [SEND, ...(scenario.list ? [LIST] : [])]) {
				const a = wall.get(auto);
				const f = wall.get(fixed);
				const gain = a && f ? f / a : 0;
				targets.push(
					`| ${auto.label}, ${scenario.label}: at least ${scenario.speedup}× faster than ${fixed.label} | ${gain.toFixed(2)}× | ${gain >= scenario.speedup ? 'yes' : 'no'} |`,
				);
			}
		}
	}
	return `## Requests in Parallel = Auto under a hidden limit: ${COUNT.toLocaleString('en')} items, ${requests} requests

A gateway of the benchmark's own (\`bench/gateway.ts\`, on 127.0.0.1) stands in front of the
simulator: it holds every request it lets through for the latency shown and enforces one limit the
node is never told, answering 429 with \`Retry-After: 1\` at once beyond it (N in flight from
arrival to answer, or R let through in any second). "The limit's time" is the least time the limit
allows for the ${requests} requests: for Return All with its first page alone, as every list is read;
for Send without (as the issue that set the targets counts it), although Send's first request
goes alone too, which costs one round trip more than that time allows. The list
has no Requests in Parallel option: it is set against node:http doing the same reads 4 at once
through the same gateway, a lower bound for what the node did before Auto. ${REPETITIONS} interleaved repetitions,
medians; \`BENCH_ONLY=adaptive npm run bench\` runs only this section. The machine's ${os.cpus().length} cores are
shared with other work (load average ${os.loadavg()[0].toFixed(1)} when this section ended, on ${new Date().toISOString().slice(0, 10)}).

${rows.join('\n')}

${targets.join('\n')}
`;
}
