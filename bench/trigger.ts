// `npm run bench:trigger`: what each poll of the SMS Messaging Trigger costs in list requests, in
// its own work and in the workflow's static data, over a window of 10,000 messages and one of
// 150,000, through n8n-core's poll machinery against the simulator on 127.0.0.1. Writes its
// section of BENCHMARKS.md.
import fs from 'node:fs';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';
import { activateTrigger, type ActiveTrigger, type PollOutcome } from '../test/helpers/poll';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require(path.join(packageRoot(), 'test/simulator/simulator'));

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The step where the trigger learns which messages had failed before it was published. */
const FIRST_FULL = 'first full reading, 15 minutes after the last: learns which had failed';
const MARKER = '## SMS Messaging Trigger: windows of 10,000 and 150,000 messages';
const OLD_MARKER = '## SMS Messaging Trigger: a window of 10,000 messages';

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
	ms: number;
	/** The poll's time without the simulator's handling of the list requests. */
	ownMs: number;
	bytes: number;
}

interface SmsRecord {
	id: number;
	status: string;
}

async function main() {
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
	let clock = realNow();
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
		const ms = performance.now() - started;
		rows.push({
			step,
			emitted: items?.length ?? 0,
			requests: sim.requests.length,
			lists: listsRead(sim.requests),
			ms,
			ownMs: ms - simMs,
			bytes: Buffer.byteLength(JSON.stringify(trigger.staticData)),
		});
	};
	const activate = (statuses: string[], lookbackDays: number) => async () => {
		// As n8n keeps it between polls in a database: JSON.
		trigger = await activateTrigger({
			parameters: { statuses, options: { lookbackDays } },
			credentials,
			savedBetweenPolls: true,
		});
		return trigger.atActivation;
	};
	const after = (ms: number) => async () => {
		clock += ms;
		return await trigger.poll();
	};

	// The defaults (DELIVERED and FAILED watched, a full reading every 15 minutes), each window
	// with its Lookback Days; polls a minute apart.
	const defaults: Row[][] = [];
	for (const window of WINDOWS) {
		clock = realNow();
		fillWindow(window);
		const rows: Row[] = [];
		defaults.push(rows);
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
		await measure(rows, FIRST_FULL, after(15 * MINUTE_MS));
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
	clock = realNow();
	fillWindow(WINDOWS[0]);
	const failedOnly: Row[] = [];
	await measure(failedOnly, 'publishing: records, emits nothing', activate(['FAILED'], 2));
	settle(inFlight().slice(-20));
	await measure(failedOnly, '20 recent messages delivered or failed', after(MINUTE_MS));
	await measure(failedOnly, 'nothing changed', after(MINUTE_MS));
	settle(inFlight().slice(0, 1));
	await measure(failedOnly, 'worst case: the oldest message in flight delivered', after(MINUTE_MS));
	await measure(failedOnly, FIRST_FULL, after(15 * MINUTE_MS));
	await measure(failedOnly, 'full reading, 15 minutes after the last', after(15 * MINUTE_MS));
	Date.now = realNow;
	await sim.stop();

	const table = (rows: Row[]) =>
		[
			"| Poll | Items emitted | List requests | Lists read (requests) | Poll time | Trigger's own work | Static data (JSON) |",
			'|---|---:|---:|---|---:|---:|---:|',
			...rows.map(
				(row) =>
					`| ${row.step} | ${row.emitted.toLocaleString('en-US')} | ${row.requests.toLocaleString('en-US')} | ${row.lists} | ${(row.ms / 1000).toFixed(2)} s | ${Math.round(row.ownMs)} ms | ${(row.bytes / 1024).toFixed(1)} KiB |`,
			),
		].join('\n');
	const windowText = ({ count, hours, lookbackDays }: Window) =>
		`${count.toLocaleString('en-US')} messages sent over the last ${hours % 24 ? `${hours} hours` : `${hours / 24} days`} (Lookback Days ${lookbackDays})`;
	const section = `${MARKER}

Produced by \`npm run bench:trigger\` on ${new Date().toISOString().slice(0, 10)}: the trigger polled through n8n-core's
PollContext and PollTriggerExecutor against the simulator on 127.0.0.1, one run per window, the
static data saved as JSON and loaded again between polls as n8n keeps it. Each window holds messages
92% DELIVERED, 4% FAILED and 4% SENT, spread evenly. Each step changes the list, then polls once, a
minute after the step before unless it says otherwise; "List requests" are the requests the
simulator received for that poll; "Trigger's own work" is the poll's time without the time the
simulator (in the same process) spent answering the list requests; "Static data" is the workflow's
static data as n8n stores it (JSON) after the poll.

${WINDOWS.map(
	(
		window,
		i,
	) => `Defaults (\`DELIVERED\` and \`FAILED\` watched, Full Reading Every 15 minutes), ${windowText(window)}:

${table(defaults[i])}`,
).join('\n\n')}

\`FAILED\` only (the example workflow \`examples/alert-on-failed-sms.json\`), ${windowText(WINDOWS[0])}:

${table(failedOnly)}

- A poll reads the in-flight lists whole (\`PENDING\`, \`SENT\`; their pages overlap by 3
  records, so a message leaving them while they are read moves no other past a page), then the
  list of every status ("any") newest first down to the high-water mark (the newest message sent
  10 minutes or more before the poll) and to the oldest followed message that left the in-flight
  lists. A full reading also reads the \`FAILED\` list whole; the first one after publishing
  learns from it which messages had failed before (its pages overlap by 3 records too). The
  activation reads the newest messages down to one sent 10 minutes or more before, and the
  in-flight lists. The \`DELIVERED\` list is never read.
- An in-flight list that answers empty while messages last seen in it are unaccounted for is asked
  once more (one request); if it answers empty again, every message followed is looked for in the
  list of every status, down to the oldest: about a reading of the window.
- The worst case is a message sent at the start of the window that leaves \`SENT\`: the list of
  every status is read down to it, about a reading of the window.
- Static data: the messages in flight and, from the first full reading on, the failed ones (until
  then, the messages in flight at publishing that got an outcome since), about 2 bytes each with
  the consecutive ids of this bench (ids as base-36 differences, by sent day); the delivered ones
  cost nothing.
`;
	const file = path.join(packageRoot(), 'BENCHMARKS.md');
	const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
	const marker = existing.includes(MARKER) ? MARKER : OLD_MARKER;
	const start = existing.indexOf(marker);
	const end = start < 0 ? -1 : existing.indexOf('\n## ', start + marker.length);
	const updated =
		start < 0
			? `${existing.trimEnd()}\n\n${section}`
			: `${existing.slice(0, start)}${section}${end < 0 ? '' : existing.slice(end)}`;
	fs.writeFileSync(file, updated);
	process.stdout.write(section);
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

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
