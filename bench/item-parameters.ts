// `npm run bench:item-parameters`: what Send's own read of `{{ $json.x }}` expressions
// (nodes/shared/input/itemParameters.ts) saves a run, against the same Send with n8n
// evaluating every expression. Both run in one script, interleaved, each measurement in a fresh
// child process, against the simulator on 127.0.0.1 at BENCH_LATENCY_MS (25) of simulated API
// latency. Writes the "Send's expression shortcut" section of BENCHMARKS.md.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';

const root = packageRoot();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require(path.join(root, 'test/simulator/simulator'));

const REPETITIONS = Number(process.env.BENCH_REPETITIONS || 3);
const COUNT = Number(process.env.BENCH_COUNT || 10_000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS || 25);
const MARKER = "\n## Send's expression shortcut";

const build = path.join(root, 'bench/.build');

/**
 * A copy of the package whose Send leaves every expression to n8n: the built itemParameters.js
 * with its reader never compiled, and the compiled benchmark beside it, so that the copy's
 * contenders.js loads the copy's dist/ (node_modules still resolve from the repository).
 */
function withoutShortcut(): string {
	const copy = path.join(build, 'without-shortcut');
	fs.rmSync(copy, { recursive: true, force: true });
	fs.mkdirSync(path.join(copy, 'build'), { recursive: true });
	fs.copyFileSync(path.join(root, 'package.json'), path.join(copy, 'package.json'));
	fs.cpSync(path.join(root, 'dist'), path.join(copy, 'dist'), { recursive: true });
	for (const dir of ['bench', 'test'])
		fs.cpSync(path.join(build, dir), path.join(copy, 'build', dir), { recursive: true });
	const file = path.join(copy, 'dist/nodes/shared/input/itemParameters.js');
	const source = fs.readFileSync(file, 'utf8');
	const compiled = 'const reader = compile(raw.slice(1));';
	if (!source.includes(compiled)) throw new Error(`${file}: "${compiled}" not found`);
	fs.writeFileSync(file, source.replace(compiled, 'const reader = undefined;'));
	return path.join(copy, 'build/bench/contenders.js');
}

interface Way {
	label: string;
	script: string;
}

async function measure(simulator: typeof Simulator.prototype, way: Way) {
	simulator.requests = [];
	simulator.sms.splice(0);
	const output = await new Promise<string>((resolve, reject) => {
		execFile(
			process.execPath,
			[
				way.script,
				'send',
				String(COUNT),
				simulator.baseUrl,
				simulator.sendBaseUrl,
				simulator.token,
				'100',
			],
			{ maxBuffer: 1 << 20, timeout: 600_000 },
			(error, stdout, stderr) =>
				error ? reject(new Error(`${way.label}: ${stderr || error.message}`)) : resolve(stdout),
		);
	});
	const result = JSON.parse(output) as { items: number; wallMs: number; maxRssMb: number };
	if (result.items !== COUNT) throw new Error(`${way.label}: ${result.items} items`);
	return result;
}

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
	const ways: Way[] = [
		{
			label: 'with the shortcut (Send reads `{{ $json.x }}` itself)',
			script: path.join(build, 'bench/contenders.js'),
		},
		{ label: 'without it (n8n evaluates every expression)', script: withoutShortcut() },
	];
	const simulator = new Simulator({
		token: 'bench-token',
		balance: 1e12,
		smsRecords: 0,
		contacts: 0,
	});
	await simulator.start();
	simulator.latencyMs = LATENCY_MS;
	const runs = ways.map(() => [] as number[]);
	const rss = ways.map(() => [] as number[]);
	try {
		for (let repetition = 0; repetition < REPETITIONS; repetition++) {
			for (let k = 0; k < ways.length; k++) {
				const w = (k + repetition) % ways.length;
				const result = await measure(simulator, ways[w]);
				runs[w].push(result.wallMs);
				rss[w].push(result.maxRssMb);
			}
			process.stdout.write(`  repetition ${repetition + 1}: done\n`);
		}
	} finally {
		await simulator.stop();
	}
	const walls = runs.map(median);
	const saved = walls[1] - walls[0];
	const rows = ways.map(
		(way, w) =>
			`| ${way.label} | ${(walls[w] / 1000).toFixed(2)} s | ${runs[w].map((ms) => (ms / 1000).toFixed(2)).join(', ')} | ${Math.round(median(rss[w]))} MB |`,
	);
	const section = `${MARKER} (nodes/shared/input/itemParameters.ts)

Produced by \`npm run bench:item-parameters\` on ${new Date().toISOString().slice(0, 10)} on the machine above: Send of
${COUNT.toLocaleString('en')} items (\`number\` and \`message\` as \`{{ $json.… }}\` expressions, batches of 100, default
settings) through n8n-core's engine against the simulator at ${LATENCY_MS} ms of latency per request, with and
without Send's own read of \`{{ $json.x }}\` expressions, ${REPETITIONS} interleaved repetitions, each in a fresh
child process.

| Send | Wall time (median) | Runs | Peak RSS |
|---|---:|---|---:|
${rows.join('\n')}

The shortcut saves ${(saved / 1000).toFixed(2)} s, ${((saved / walls[1]) * 100).toFixed(0)}% of the run without it: ${saved / walls[1] >= 0.2 ? 'more than a fifth, so Send keeps it' : 'less than a fifth, so it is not worth its code'}.
`;
	process.stdout.write(section);
	const file = path.join(root, 'BENCHMARKS.md');
	const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
	let updated: string;
	if (existing.includes(MARKER)) {
		const start = existing.indexOf(MARKER);
		const next = existing.indexOf('\n## ', start + MARKER.length);
		updated = existing.slice(0, start) + section + (next >= 0 ? existing.slice(next) : '');
	} else {
		updated = `${existing.trimEnd()}\n${section}`;
	}
	fs.writeFileSync(file, updated);
}

main().catch((error) => {
	process.stderr.write(`${error.stack}\n`);
	process.exit(1);
});
