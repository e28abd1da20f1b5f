// `npm run bench:trigger`: what each poll of the SMS Messaging Trigger costs in list requests, in
// its own work and in the workflow's static data, over a window of 10,000 messages, one of
// 150,000, and a bulk send of 100,000, through n8n-core's poll machinery against the simulator on
// 127.0.0.1, in each of n8n's three poll modes (test/helpers/poll.ts). The trigger as it was
// before issue 63 (an earlier build, BENCH_BEFORE) and as it is now run the same steps, each in
// its own process; writes its section of BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';
import {
	activateTrigger,
	POLL_MODES,
	type ActiveTrigger,
	type PollMode,
	type PollOutcome,
} from '../test/helpers/poll';
import { buildBefore } from './before';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require(path.join(packageRoot(), 'test/simulator/simulator'));

/** The build measured as "before": the last commit before issue 63. */
const BEFORE = process.env.BENCH_BEFORE || 'c6aea73';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const MARKER = '## SMS Messaging Trigger: windows of 10,000 and 150,000 messages';

/** A window: how many messages, sent evenly over how many hours, watched with which Lookback Days. */
interface Window {
	count: number;
	hours: number;
	lookbackDays: number;
}

const WINDOWS: Window[] = [
	{ count: 10_000, hours: 36, lookbackDays: 2 },
	{ count: 150_000, hours: 31 * 24, lookbackDays: 31 },
];

interface Row {
	step: string;
	emitted: number;
	requests: number;
	/** The requests per list read, in the order first read. */
	lists: string;
	/** The poll's time without the simulator's handling of the list requests. */
	ownMs: number;
	bytes: number;
}

/** Every run's rows, by the title of its table. */
type Tables = Record<string, Row[]>;

/** A contender's tables in each poll mode. */
type ByMode = Record<PollMode, Tables>;

interface SmsRecord {
	id: number;
	status: string;
}

/** One contender's run of every table, in this process (BENCH_PACKAGE_ROOT says which build). */
async function runSteps(mode: PollMode): Promise<Tables> {
	const token = 'bench-token';
	const sim = new Simulator({ token, smsRecords: 0 });
	// The simulator runs in this process: its time handling each list request is left out of the
	// trigger's own work.
	let simMs = 0;
	const listSms = sim.listSms.bind(sim);
	sim.listSms = (...args: unknown[]) => {
		const started = performance.now();
		try {
			return listSms(...args);
		} finally {
			simMs += performance.now() - started;
		}
	};
	const urls = await sim.start();
	const credentials = { apiToken: token, ...urls };
	const realNow = Date.now;
	// 30 s into an hour: a poll 15 minutes on is the first of its Full Reading slot.
	const startClock = () => Math.floor(realNow() / HOUR_MS) * HOUR_MS + 30_000;
	let clock = startClock();
	Date.now = () => clock;

	/** 92% DELIVERED, 4% FAILED, 4% SENT, spread evenly over the window's hours. */
	const fillWindow = ({ count, hours }: Window) => {
		sim.reset();
		for (let i = 0; i < count; i++) {
			sim.addSms({
				recipient: `2547${String(10_000_000 + i)}`,
				content: `Your code is ${1000 + i}`,
				status: i % 25 === 0 ? 'FAILED' : i % 25 === 1 ? 'SENT' : 'DELIVERED',
				sentAt: new Date(clock - hours * HOUR_MS + (hours * HOUR_MS * i) / count).toISOString(),
			});
		}
	};
	const inFlight = () => (sim.sms as SmsRecord[]).filter((m) => m.status === 'SENT');
	/** The messages leave flight: one in five fails, the others are delivered. */
	const settle = (messages: SmsRecord[]) =>
		messages.forEach(({ id }, i) => sim.setSmsStatus(id, i % 5 === 4 ? 'FAILED' : 'DELIVERED'));

	let trigger: ActiveTrigger;
	const measure = async (rows: Row[], step: string, poll: () => Promise<PollOutcome>) => {
		sim.requests = [];
		simMs = 0;
		const started = performance.now();
		const { items, error } = await poll();
		if (error) throw error;
		rows.push({
			step,
			emitted: items?.length ?? 0,
			requests: sim.requests.length,
			lists: listsRead(sim.requests),
			ownMs: performance.now() - started - simMs,
			bytes: Buffer.byteLength(JSON.stringify(trigger.savedStaticData)),
		});
	};
	const activate = (statuses: string[], lookbackDays: number) => async () => {
		trigger = await activateTrigger({
			parameters: { statuses, options: { lookbackDays } },
			credentials,
			mode,
		});
		// With durable cursors n8n keeps nothing of the activation's test poll: the first scheduled
		// poll, a minute on, takes the picture again; both count as publishing.
		if (mode !== 'durable') return trigger.atActivation;
		clock += MINUTE_MS;
		return await trigger.poll();
	};
	const after = (ms: number) => async () => {
		clock += ms;
		return await trigger.poll();
	};
	/** The first poll of the next Full Reading slot (15 minutes), 30 s into it: a full reading. */
	const nextSlot = () => async () => {
		clock = Math.ceil(clock / (15 * MINUTE_MS)) * 15 * MINUTE_MS + 30_000;
		return await trigger.poll();
	};

	const tables: Tables = {};
	// The defaults (DELIVERED and FAILED watched, a full reading every 15 minutes), each window
	// with its Lookback Days; polls a minute apart.
	for (const window of WINDOWS) {
		clock = startClock();
		fillWindow(window);
		const rows: Row[] = [];
		tables[
			`Defaults (\`DELIVERED\` and \`FAILED\` watched, Full Reading Every 15 minutes), ${windowText(window)}`
		] = rows;
		await measure(
			rows,
			'publishing: records, emits nothing',
			activate(['DELIVERED', 'FAILED'], window.lookbackDays),
		);
		settle(inFlight().slice(-20));
		await measure(rows, '20 recent messages delivered or failed', after(MINUTE_MS));
		await measure(rows, 'nothing changed', after(MINUTE_MS));
		// A reading that misses: the SENT list answers a well-formed 200 with no records.
		for (const count of [1, 2]) {
			sim.inject({ path: '/sms', query: { status: 'SENT' }, empty: true, count });
			settle(inFlight().slice(-20));
			await measure(
				rows,
				`SENT answers empty ${count === 1 ? 'once' : 'twice'}, 20 recent messages delivered or failed`,
				after(MINUTE_MS),
			);
		}
		settle(inFlight().slice(-100));
		await measure(rows, '100 recent messages delivered or failed', after(MINUTE_MS));
		settle(inFlight().slice(0, 1));
		await measure(rows, 'worst case: the oldest message in flight delivered', after(MINUTE_MS));
		await measure(rows, 'full reading (the first poll of the next 15 minutes)', nextSlot());
		await measure(rows, 'full reading, 15 minutes after the last', after(15 * MINUTE_MS));
		settle(inFlight().slice(-500));
		await measure(
			rows,
			'a pause of 12 hours; meanwhile up to 500 messages in flight delivered or failed',
			after(12 * HOUR_MS),
		);
		await measure(rows, 'three days later: the window has moved on', after(3 * DAY_MS));
	}

	// The example alert workflow's settings: FAILED only, the 10,000 window.
	clock = startClock();
	fillWindow(WINDOWS[0]);
	const failedOnly: Row[] = [];
	tables[
		`\`FAILED\` only (the example workflow \`examples/alert-on-failed-sms.json\`), ${windowText(WINDOWS[0])}`
	] = failedOnly;
	await measure(failedOnly, 'publishing: records, emits nothing', activate(['FAILED'], 2));
	settle(inFlight().slice(-20));
	await measure(failedOnly, '20 recent messages delivered or failed', after(MINUTE_MS));
	await measure(failedOnly, 'nothing changed', after(MINUTE_MS));
	settle(inFlight().slice(0, 1));
	await measure(failedOnly, 'worst case: the oldest message in flight delivered', after(MINUTE_MS));
	await measure(failedOnly, 'full reading (the first poll of the next 15 minutes)', nextSlot());

	// A bulk send: one campaign of 100,000, all SENT, sent over 3 minutes, beside the 10,000 window.
	clock = startClock();
	fillWindow(WINDOWS[0]);
	const bulk: Row[] = [];
	tables[
		`A bulk send of 100,000 (one campaign, sent over 3 minutes, all \`SENT\`) beside ${windowText(WINDOWS[0])}, defaults`
	] = bulk;
	await measure(bulk, 'publishing: records, emits nothing', activate(['DELIVERED', 'FAILED'], 2));
	const campaignId = '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0e7f6b3c';
	const sentFrom = clock + MINUTE_MS;
	const sent = Array.from({ length: 100_000 }, (_, i) =>
		sim.addSms({
			recipient: `2547${String(20_000_000 + i)}`,
			content: 'Our sale starts today',
			status: 'SENT',
			sentAt: new Date(sentFrom + Math.floor((i * 3 * MINUTE_MS) / 100_000)).toISOString(),
			campaignId,
		}),
	) as SmsRecord[];
	await measure(bulk, 'a minute after the send', after(5 * MINUTE_MS));
	await measure(bulk, 'nothing changed', after(MINUTE_MS));
	/** 1,000 of the campaign delivered and 50 failed, spread over it. */
	const outcomes = (round: number) => {
		const still = sent.filter((m) => m.status === 'SENT');
		const step = Math.floor(still.length / 1050);
		still
			.filter((_, i) => i % step === round % step)
			.slice(0, 1050)
			.forEach(({ id }, i) => sim.setSmsStatus(id, i % 21 === 20 ? 'FAILED' : 'DELIVERED'));
	};
	outcomes(0);
	await measure(bulk, '1,000 of the campaign delivered and 50 failed', after(MINUTE_MS));
	await measure(bulk, 'nothing changed', after(MINUTE_MS));
	await measure(bulk, 'a full reading (the first poll of the next 15 minutes)', nextSlot());
	outcomes(1);
	await measure(bulk, '1,000 more delivered and 50 more failed', after(MINUTE_MS));
	await measure(bulk, 'nothing changed', after(MINUTE_MS));
	Date.now = realNow;
	await sim.stop();
	return tables;
}

function windowText({ count, hours, lookbackDays }: Window): string {
	return `${count.toLocaleString('en-US')} messages sent over the last ${hours % 24 ? `${hours} hours` : `${hours / 24} days`} (Lookback Days ${lookbackDays})`;
}

/** "PENDING 1, SENT 5, any 1": list requests per status filter, in the order first asked. */
function listsRead(requests: Array<{ query: Record<string, unknown> }>): string {
	const counts = new Map<string, number>();
	for (const { query } of requests) {
		const list = typeof query.status === 'string' ? query.status : 'any';
		counts.set(list, (counts.get(list) ?? 0) + 1);
	}
	return [...counts].map(([list, n]) => `${list} ${n}`).join(', ');
}

/** Runs this script again in a child process, on the build in `root` (undefined: this one). */
function runChild(root: string | undefined): ByMode {
	const out = execFileSync(process.execPath, [__filename], {
		env: { ...process.env, BENCH_TRIGGER_CHILD: '1', BENCH_PACKAGE_ROOT: root ?? '' },
		maxBuffer: 1 << 26,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	return JSON.parse(out.toString()) as ByMode;
}

async function main() {
	if (process.env.BENCH_TRIGGER_CHILD) {
		const byMode = {} as ByMode;
		for (const mode of POLL_MODES) byMode[mode] = await runSteps(mode);
		process.stdout.write(JSON.stringify(byMode));
		return;
	}
	const beforeRoot = buildBefore(BEFORE);
	let before: ByMode;
	try {
		before = runChild(beforeRoot);
	} finally {
		fs.rmSync(beforeRoot, { recursive: true, force: true });
	}
	const now = runChild(undefined);
	const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
	const count = (n: number) => n.toLocaleString('en-US');
	const table = (title: string) =>
		[
			`${title}:`,
			'',
			`| Poll | Items emitted now | ${POLL_MODES.map((mode) => `List requests, ${mode}: before → now`).join(' | ')} | Lists read now (memory) | Own work now (memory) | Static data saved, before → now (scheduler) |`,
			`|---|---:|${POLL_MODES.map(() => '---:').join('|')}|---|---:|---:|`,
			...now.memory[title].map((row, i) => {
				const cells = POLL_MODES.map((mode) => {
					const [old, current] = [before[mode][title][i], now[mode][title][i]];
					return `${count(old.requests)} → **${count(current.requests)}**`;
				});
				const [oldSaved, saved] = [before.scheduler[title][i], now.scheduler[title][i]];
				return `| ${row.step} | ${count(row.emitted)} | ${cells.join(' | ')} | ${row.lists} | ${Math.round(row.ownMs)} ms | ${kib(oldSaved.bytes)} → ${kib(saved.bytes)} |`;
			}),
		].join('\n');
	const section = `${MARKER}

Produced by \`npm run bench:trigger\` on ${new Date().toISOString().slice(0, 10)}: the trigger polled through n8n-core's
PollContext and PollTriggerExecutor against the simulator on 127.0.0.1, in each of n8n's three poll
modes (its default path with the workflow in memory; n8n 2.41's task scheduler, a workflow from the
database at every poll and its static data stored only when a poll emits; durable cursors, stored
after every poll), once as built from \`${BEFORE}\` (by default the last commit before issue 63), in a temporary folder,
and once as it is now, each in its own process, the same steps on the same lists. Each window holds
messages 92% DELIVERED, 4% FAILED and 4% SENT, spread evenly. Each step changes the list, then
polls once, a minute after the step before unless it says otherwise; "List requests" are the
requests the simulator received for that poll; "Own work" is the poll's time without the time the
simulator (in the same process) spent answering; "Static data saved" is the workflow's static data
as n8n's database holds it after the poll, under the task scheduler.

${Object.keys(now.memory).map(table).join('\n\n')}

What a poll reads now: docs/trigger.md.
`;
	const file = path.join(packageRoot(), 'BENCHMARKS.md');
	const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
	const start = existing.indexOf(MARKER);
	const end = start < 0 ? -1 : existing.indexOf('\n## ', start + MARKER.length);
	const updated =
		start < 0
			? `${existing.trimEnd()}\n\n${section}`
			: `${existing.slice(0, start)}${section}${end < 0 ? '' : existing.slice(end)}`;
	fs.writeFileSync(file, updated);
	process.stdout.write(section);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
