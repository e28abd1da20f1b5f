// `npm run bench`: this node against one request per item and against raw node:http, interleaved
// in one run, each measurement in a fresh child process, all against the simulator on 127.0.0.1.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';
import type { ContenderName } from './contenders';

const root = packageRoot();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require(path.join(root, 'test/simulator/simulator'));

const REPETITIONS = Number(process.env.BENCH_REPETITIONS || 3);
const COUNT = Number(process.env.BENCH_COUNT || 10_000);
const SCALES = (process.env.BENCH_SCALES || '100,1000,10000,100000').split(',').map(Number);

interface Measurement {
	items: number;
	wallMs: number;
	maxRssMb: number;
	requests: number;
}

interface Contender {
	label: string;
	name: ContenderName;
	batchSize?: number;
}

const SEND: Contender[] = [
	{ label: 'this node, Send, default batch size (100)', name: 'send', batchSize: 100 },
	{ label: 'this node, Send, batch size 1', name: 'send', batchSize: 1 },
	{ label: 'this node, Send, batch size 10', name: 'send', batchSize: 10 },
	{ label: 'this node, Send, batch size 1000', name: 'send', batchSize: 1000 },
	{ label: 'one request per item (per-item node, same engine)', name: 'perItem' },
	{ label: 'floor: node:http, batches of 100', name: 'sendFloor', batchSize: 100 },
];

const LIST: Contender[] = [
	{ label: 'this node, Get Many, Return All (pages of 100)', name: 'list' },
	{ label: 'Return All with the default page size 10 (same engine)', name: 'listBy10' },
	{ label: 'floor: node:http, pages of 100', name: 'listFloor' },
];

/** A simulator with `records` SMS seeded and credits that never run out. */
async function startSimulator(records: number) {
	const simulator = new Simulator({
		token: 'bench-token',
		balance: 1e12,
		smsRecords: records,
		contacts: 0,
	});
	// What measure() trims the SMS list back to, so that sent messages never pile up.
	simulator.seeded = records;
	await simulator.start();
	return simulator;
}

function median(values: number[]) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

async function measure(
	simulator: typeof Simulator.prototype,
	contender: Contender,
	count: number,
): Promise<Measurement> {
	simulator.requests = [];
	simulator.sms.splice(simulator.seeded);
	const script = path.join(__dirname, 'contenders.js');
	// A child process per measurement: its peak RSS is its own. The simulator answers from here,
	// so the child must not block this process: run it asynchronously.
	const output = await new Promise<string>((resolve, reject) => {
		execFile(
			process.execPath,
			[
				script,
				contender.name,
				String(count),
				simulator.baseUrl,
				simulator.sendBaseUrl,
				simulator.token,
				String(contender.batchSize ?? 100),
			],
			{ maxBuffer: 1 << 20, timeout: 600_000 },
			(error, stdout, stderr) =>
				error
					? reject(new Error(`${contender.label}: ${stderr || error.message}`))
					: resolve(stdout),
		);
	});
	const result = JSON.parse(output) as Omit<Measurement, 'requests'>;
	if (result.items !== count)
		throw new Error(`${contender.label}: ${result.items} items instead of ${count}`);
	return { ...result, requests: simulator.requests.length };
}

async function compare(contenders: Contender[], count: number, records: number) {
	const simulator = await startSimulator(records);
	const runs = new Map<Contender, Measurement[]>(contenders.map((c) => [c, []]));
	for (let repetition = 0; repetition < REPETITIONS; repetition++) {
		// Interleaved, in a rotating order, so that machine noise hits every contender alike.
		const order = contenders.map((_, i) => contenders[(i + repetition) % contenders.length]);
		for (const contender of order)
			runs.get(contender)!.push(await measure(simulator, contender, count));
	}
	await simulator.stop();
	return contenders.map((contender) => {
		const measurements = runs.get(contender)!;
		return {
			label: contender.label,
			requests: median(measurements.map((m) => m.requests)),
			wallMs: median(measurements.map((m) => m.wallMs)),
			maxRssMb: median(measurements.map((m) => m.maxRssMb)),
			items: count,
		};
	});
}

type Row = Awaited<ReturnType<typeof compare>>[number];

function table(rows: Row[], floor: Row) {
	const lines = [
		'| Contender | HTTP requests | Wall time (median) | Items/s | Peak RSS | × floor |',
		'|---|---:|---:|---:|---:|---:|',
	];
	for (const row of rows) {
		lines.push(
			`| ${row.label} | ${row.requests.toLocaleString('en')} | ${(row.wallMs / 1000).toFixed(2)} s | ${Math.round((row.items / row.wallMs) * 1000).toLocaleString('en')} | ${Math.round(row.maxRssMb)} MB | ${(row.wallMs / floor.wallMs).toFixed(2)} |`,
		);
	}
	return lines.join('\n');
}

async function scaling() {
	const lines = [
		'| Items / records | Send: wall time | Send: peak RSS | Send: requests | Get Many: wall time | Get Many: peak RSS | Get Many: requests |',
		'|---:|---:|---:|---:|---:|---:|---:|',
	];
	for (const n of SCALES) {
		const simulator = await startSimulator(n);
		const send = await measure(simulator, SEND[0], n);
		const list = await measure(simulator, LIST[0], n);
		await simulator.stop();
		lines.push(
			`| ${n.toLocaleString('en')} | ${(send.wallMs / 1000).toFixed(2)} s | ${Math.round(send.maxRssMb)} MB | ${send.requests} | ${(list.wallMs / 1000).toFixed(2)} s | ${Math.round(list.maxRssMb)} MB | ${list.requests} |`,
		);
		process.stdout.write(`  scaling ${n}: done\n`);
	}
	return lines.join('\n');
}

async function main() {
	const started = Date.now();
	process.stdout.write(
		`Send of ${COUNT.toLocaleString('en')} items, ${REPETITIONS} interleaved repetitions…\n`,
	);
	const send = await compare(SEND, COUNT, 0);
	const sendTable = table(send, send[send.length - 1]);
	process.stdout.write(
		`${sendTable}\n\nGet Many with Return All over ${COUNT.toLocaleString('en')} records…\n`,
	);
	const list = await compare(LIST, COUNT, COUNT);
	const listTable = table(list, list[list.length - 1]);
	process.stdout.write(`${listTable}\n\nScaling (this node, default settings, one run each)…\n`);
	const scaleTable = await scaling();
	process.stdout.write(`${scaleTable}\n`);

	const [node, , , , perItem, sendFloor] = send;
	const [listNode, , listFloor] = list;
	const targets = [
		[
			`Send of ${COUNT.toLocaleString('en')} items within 1.5× the floor`,
			node.wallMs / sendFloor.wallMs,
			node.wallMs / sendFloor.wallMs <= 1.5,
		],
		[
			'Send at least 50× faster than one request per item',
			perItem.wallMs / node.wallMs,
			perItem.wallMs / node.wallMs >= 50,
		],
		[
			'Return All within 1.5× the floor',
			listNode.wallMs / listFloor.wallMs,
			listNode.wallMs / listFloor.wallMs <= 1.5,
		],
	] as const;
	const targetTable = ['| Target | Measured | Met |', '|---|---:|---|']
		.concat(
			targets.map(
				([what, ratio, met]) => `| ${what} | ${ratio.toFixed(2)}× | ${met ? 'yes' : 'no'} |`,
			),
		)
		.join('\n');
	process.stdout.write(`\n${targetTable}\n`);

	const cpu = os.cpus();
	const report = `# Benchmarks

Produced by \`npm run bench\` (${REPETITIONS} interleaved repetitions, medians; took ${Math.round((Date.now() - started) / 1000)} s) on ${new Date().toISOString().slice(0, 10)}.
Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}.
Everything runs on 127.0.0.1 against the API simulator (\`test/simulator\`), which answers from the
benchmark's own process; each measurement runs in a fresh child process, so its peak RSS is its
own. "Floor" is the same work done with node:http and keep-alive, with no n8n in between.
"One request per item" is a declarative per-item node (what a per-item SMS node or an HTTP Request
node does) run through the same n8n-core engine, in the same way.

## Send: 10,000 items

${sendTable}

## Get Many, Return All: 10,000 records

${listTable}

## Targets

${targetTable}

## Scaling

${scaleTable}
`;
	const file = process.env.BENCH_REPORT || path.join(root, 'BENCHMARKS.md');
	const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
	// The real-n8n section (npm run bench:n8n) and notes written by people are kept.
	const kept = ['\n## In a real n8n', '\n## Notes']
		.map((marker) => existing.indexOf(marker))
		.filter((at) => at >= 0);
	fs.writeFileSync(file, report + (kept.length ? existing.slice(Math.min(...kept)) : ''));
	process.stdout.write(`\nWrote ${path.relative(process.cwd(), file)}\n`);
}

main().catch((error) => {
	process.stderr.write(`${error.stack}\n`);
	process.exit(1);
});
