// Requests in Parallel = Auto, a first run and a later one (issue 74's cases): about 100 requests
// a run through the benchmark's gateway (bench/gateway.ts) under one limit the node is never told,
// each contender run twice in a row in one process (a later run finds what Auto learnt in the
// first, limiter.ts), Send and Return All, beside the same build of an earlier commit.
import fs from 'node:fs';
import os from 'node:os';

import {
	inFlightLimit,
	measure,
	median,
	seededSimulator,
	type Contender,
	type Scenario,
} from './adaptive';
import { buildBefore } from './before';

/** Items sent and records read: COUNT / 100 requests a run. */
const COUNT = Number(process.env.BENCH_ADAPTIVE_COUNT || 10_000);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS || 3);
/** The build beside which Auto is measured (issue 74: main before it). */
const BEFORE = process.env.BENCH_BEFORE_AUTO || 'db00ed1';
/**
 * Issue 74's targets. `slower`: how much slower than the earlier build's median still counts as no
 * slower (the same code measured twice differs by up to 4 %).
 */
const TARGET = {
	first: 1.4,
	firstRefused: 0.1,
	later: 1.15,
	laterRefused: 0.02,
	spread: 1.5,
	slower: 1.05,
};

const inFlight = (n: number, latencyMs: number): Scenario => ({
	label: `${n} in flight allowed, ${latencyMs} ms`,
	gateway: { latencyMs, maxInFlight: n },
	limitMs: inFlightLimit(n, latencyMs),
	list: true,
	fixed: false,
});
/**
 * The least time R a second allows N requests, the last answered 50 ms later: a token bucket lets
 * its burst of 2 through at once and then one every 1/R s; a sliding window lets R through at once
 * and the next R a second later.
 */
const rateLimit = (r: number, bucket: boolean) => (requests: number) =>
	(bucket ? ((requests - 2) / r) * 1000 : (Math.ceil(requests / r) - 1) * 1000) + 50;
const perSecond = (r: number, bucket: boolean): Scenario => ({
	label: `${r} requests/s allowed (${bucket ? 'token bucket, burst 2' : 'sliding window'}), 50 ms`,
	gateway: bucket
		? { latencyMs: 50, bucket: { perSecond: r, burst: 2 } }
		: { latencyMs: 50, perSecond: r },
	limitMs: rateLimit(r, bucket),
	list: true,
	fixed: false,
});
const CASES: Scenario[] = [
	inFlight(1, 50),
	inFlight(4, 100),
	inFlight(16, 400),
	inFlight(64, 200),
	...[5, 20, 50].flatMap((r) => [perSecond(r, true), perSecond(r, false)]),
	{
		...inFlight(16, 400),
		label: '3 workers, 16 in flight allowed, 400 ms',
		workers: 3,
		list: false,
	},
	{
		...perSecond(20, true),
		label: '3 workers, 20 requests/s allowed (token bucket, burst 2), 50 ms',
		workers: 3,
		list: false,
	},
];

const contendersOf = (scenario: Scenario): Contender[] => {
	const runs = scenario.workers ? 1 : 2;
	return [
		{ label: 'Send, Auto', name: 'send', runs },
		{ label: `Send, Auto at ${BEFORE}`, name: 'send', runs, before: true },
		...(scenario.list
			? ([
					{ label: 'Return All', name: 'list', runs },
					{ label: `Return All at ${BEFORE}`, name: 'list', runs, before: true },
				] as Contender[])
			: []),
	];
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const worst = (values: number[]) => Math.max(...values);

/** The section of BENCHMARKS.md (BENCH_ONLY=remembered), with issue 74's targets. */
export async function rememberedComparison(): Promise<string> {
	const beforeRoot = buildBefore(BEFORE);
	const simulator = await seededSimulator(COUNT);
	const only = process.env.BENCH_ADAPTIVE_SCENARIO;
	const cases = CASES.filter((c) => !only || c.label.includes(only));
	const results = new Map<string, Awaited<ReturnType<typeof measure>>[]>();
	const key = (s: Scenario, c: Contender) => `${s.label}|${c.label}`;
	for (let repetition = 0; repetition < REPETITIONS; repetition++) {
		for (const scenario of cases) {
			const contenders = contendersOf(scenario);
			for (let i = 0; i < contenders.length; i++) {
				const contender = contenders[(i + repetition) % contenders.length];
				const measured = await measure(scenario, contender, simulator, 0, beforeRoot);
				results.set(key(scenario, contender), [
					...(results.get(key(scenario, contender)) ?? []),
					measured,
				]);
			}
			process.stdout.write(`  auto runs, repetition ${repetition + 1}, ${scenario.label}: done\n`);
		}
	}
	await simulator.stop();
	fs.rmSync(beforeRoot, { recursive: true, force: true });

	const rows = [
		"| Hidden limit | Contender | First run: median (worst) | × the limit's time + 1 round trip | Later run: median (worst) | × the limit's time | Refused, first / later (worst) |",
		'|---|---|---:|---:|---:|---:|---:|',
	];
	const targets = [
		'| Target (issue 74) | Measured (worst of the repetitions) | Met |',
		'|---|---:|---|',
	];
	const target = (what: string, measured: string, met: boolean) =>
		targets.push(`| ${what} | ${measured} | ${met ? 'yes' : 'no'} |`);
	for (const scenario of cases) {
		const latency = scenario.gateway.latencyMs ?? 0;
		for (const contender of contendersOf(scenario)) {
			const measured = results.get(key(scenario, contender))!;
			const failed = measured.find((m) => m.failed);
			if (failed) {
				rows.push(`| ${scenario.label} | ${contender.label} | failed: ${failed.failed} | | | | |`);
				continue;
			}
			if (scenario.workers) {
				const requests = (COUNT / 2 / 100) * scenario.workers;
				const limitMs = scenario.limitMs!(requests, false);
				const walls = measured.map((m) => m.wallMs!);
				const spreads = measured.map((m) => worst(m.workerMs) / Math.min(...m.workerMs));
				const refused = measured.map((m) => m.refused / m.requests);
				rows.push(
					`| ${scenario.label} | ${contender.label} | ${seconds(median(walls))} (${seconds(worst(walls))}) | ${(worst(walls) / limitMs).toFixed(2)}× the limit's time | each worker, slowest ÷ fastest: ${spreads.map((x) => x.toFixed(2)).join(', ')} | | ${Math.round(worst(refused) * 100)}% |`,
				);
				if (contender.before) continue;
				target(
					`Send, ${scenario.label}: every run within ${TARGET.first}× the limit's time (${seconds(limitMs)}), no worker more than ${TARGET.spread}× another in any repetition`,
					`${(worst(walls) / limitMs).toFixed(2)}×, ${worst(spreads).toFixed(2)}×`,
					worst(walls) <= TARGET.first * limitMs && worst(spreads) <= TARGET.spread,
				);
				continue;
			}
			const requests = COUNT / 100;
			const limitMs = scenario.limitMs!(requests, false);
			const first = measured.map((m) => m.runs[0]);
			const later = measured.map((m) => m.runs[1]);
			const share = (run: { requests: number; refused: number }) => run.refused / run.requests;
			rows.push(
				`| ${scenario.label} | ${contender.label} | ${seconds(median(first.map((r) => r.ms)))} (${seconds(worst(first.map((r) => r.ms)))}) | ${(worst(first.map((r) => r.ms)) / (limitMs + latency)).toFixed(2)} | ${seconds(median(later.map((r) => r.ms)))} (${seconds(worst(later.map((r) => r.ms)))}) | ${(worst(later.map((r) => r.ms)) / limitMs).toFixed(2)} | ${Math.round(worst(first.map(share)) * 100)}% / ${Math.round(worst(later.map(share)) * 100)}% |`,
			);
			if (contender.before) continue;
			const what = contender.name === 'send' ? 'Send' : 'Return All';
			const firstRatio = worst(first.map((r) => r.ms)) / (limitMs + latency);
			const laterRatio = worst(later.map((r) => r.ms)) / limitMs;
			target(
				`${what}, ${scenario.label}: a first run within ${TARGET.first}× the limit's time + 1 round trip (${seconds(limitMs + latency)}), ≤${TARGET.firstRefused * 100}% refused`,
				`${firstRatio.toFixed(2)}×, ${Math.round(worst(first.map(share)) * 100)}%`,
				firstRatio <= TARGET.first && worst(first.map(share)) <= TARGET.firstRefused,
			);
			target(
				`${what}, ${scenario.label}: a later run within ${TARGET.later}× the limit's time (${seconds(limitMs)}), ≤${TARGET.laterRefused * 100}% refused`,
				`${laterRatio.toFixed(2)}×, ${Math.round(worst(later.map(share)) * 100)}%`,
				laterRatio <= TARGET.later && worst(later.map(share)) <= TARGET.laterRefused,
			);
			const peer = contendersOf(scenario).find((c) => c.before && c.name === contender.name)!;
			const before = results.get(key(scenario, peer));
			if (before && !before.some((m) => m.failed)) {
				const now = median(first.map((r) => r.ms)) + median(later.map((r) => r.ms));
				const then =
					median(before.map((m) => m.runs[0].ms)) + median(before.map((m) => m.runs[1].ms));
				target(
					`${what}, ${scenario.label}: no slower than Auto at ${BEFORE} (first and later run, medians, within ${Math.round((TARGET.slower - 1) * 100)} %)`,
					`${(now / then).toFixed(2)}×`,
					now <= TARGET.slower * then,
				);
			}
		}
	}
	return `## Requests in Parallel = Auto, a first run and a later one: ${COUNT / 100} requests a run

Issue 74's cases: the gateway of the section above (\`bench/gateway.ts\`) enforces one limit the
node is never told. Each contender runs twice in a row in one process (a
later run of the same credential and host finds what Auto learnt in the first, \`limiter.ts\`), Send
(${COUNT.toLocaleString('en')} items in batches of 100) and Return All (${COUNT.toLocaleString('en')} records, pages of 100), beside the same build of
\`${BEFORE}\`. "The limit's time" is the least time the limit allows for the requests (N in flight:
rounds of N at the latency; a token bucket of R a second: its burst of 2 at once, then one every
1/R s; a sliding window of R a second: R at once, the next R a second later; each with the last
answer's latency); a first run is set against it plus one round trip (Send's first request goes
alone). ${REPETITIONS} interleaved repetitions; a target is met only
when every repetition meets it. \`BENCH_ONLY=remembered npm run bench\` runs only this section. The
machine's ${os.cpus().length} cores (load average ${os.loadavg()[0].toFixed(1)} when this section ended, on ${new Date().toISOString().slice(0, 10)}).

${rows.join('\n')}

${targets.join('\n')}
`;
}
