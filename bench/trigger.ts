// `npm run bench:trigger`: what each poll of the SMS Messaging Trigger costs in list requests and
// what it keeps in the workflow's static data, over a window of 10,000 messages, through
// n8n-core's poll machinery against the simulator on 127.0.0.1. Writes its section of
// BENCHMARKS.md.
import fs from 'node:fs';
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';
import { activateTrigger, type ActiveTrigger, type PollOutcome } from '../test/helpers/poll';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require(path.join(packageRoot(), 'test/simulator/simulator'));

const WINDOW = Number(process.env.BENCH_COUNT || 10_000);
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const MARKER = '## SMS Messaging Trigger: a window of 10,000 messages';

interface Row {
	step: string;
	emitted: number;
	requests: number;
	/** The requests per list read, in the order first read. */
	lists: string;
	ms: number;
	bytes: number;
}

interface SmsRecord {
	id: number;
	status: string;
}

async function main() {
	const token = 'bench-token';
	const sim = new Simulator({ token, smsRecords: 0 });
	const urls = await sim.start();
	const credentials = { apiToken: token, ...urls };
	const realNow = Date.now;
	let clock = realNow();
	Date.now = () => clock;

	/** The window: sent over the last 36 hours, 92% DELIVERED, 4% FAILED, 4% SENT, spread evenly. */
	const fillWindow = () => {
		sim.reset();
		for (let i = 0; i < WINDOW; i++) {
			sim.addSms({
				recipient: `2547${String(10_000_000 + i)}`,
				content: `Your code is ${1000 + i}`,
				status: i % 25 === 0 ? 'FAILED' : i % 25 === 1 ? 'SENT' : 'DELIVERED',
				sentAt: new Date(clock - 36 * HOUR_MS + (36 * HOUR_MS * i) / WINDOW).toISOString(),
			});
		}
	};
	const inFlight = () => (sim.sms as SmsRecord[]).filter((m) => m.status === 'SENT');
	/** The newest `count` messages in flight leave it: one in five fails, the others are delivered. */
	const settle = (messages: SmsRecord[]) =>
		messages.forEach(({ id }, i) => sim.setSmsStatus(id, i % 5 === 4 ? 'FAILED' : 'DELIVERED'));

	let trigger: ActiveTrigger;
	const measure = async (rows: Row[], step: string, poll: () => Promise<PollOutcome>) => {
		sim.requests = [];
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
			bytes: Buffer.byteLength(JSON.stringify(trigger.staticData)),
		});
	};
	const activate = (statuses: string[]) => async () => {
		trigger = await activateTrigger({ parameters: { statuses }, credentials });
		return trigger.atActivation;
	};
	const poll = async () => await trigger.poll();

	// The defaults: DELIVERED and FAILED watched, Lookback Days 2, a full reading every 15 minutes.
	fillWindow();
	const defaults: Row[] = [];
	await measure(
		defaults,
		'activation: reads the window whole, emits nothing',
		activate(['DELIVERED', 'FAILED']),
	);
	settle(inFlight().slice(-20));
	await measure(defaults, '20 recent messages delivered or failed', poll);
	await measure(defaults, 'nothing changed', poll);
	// A reading that misses: the SENT list answers a well-formed 200 with no records.
	for (const count of [1, 2]) {
		sim.inject({ path: '/sms', query: { status: 'SENT' }, empty: true, count });
		settle(inFlight().slice(-20));
		await measure(
			defaults,
			`SENT answers empty ${count === 1 ? 'once' : 'twice'}, 20 recent messages delivered or failed`,
			poll,
		);
	}
	settle(inFlight().slice(-100));
	await measure(defaults, '100 recent messages delivered or failed', poll);
	settle(inFlight().slice(0, 1));
	await measure(defaults, 'worst case: the oldest message in flight delivered', poll);
	clock += 15 * MINUTE_MS;
	await measure(defaults, 'full reading, 15 minutes after the last', poll);
	clock += 3 * DAY_MS;
	await measure(defaults, 'three days later: the window has moved past them', poll);
	const perMessage = defaults[0].bytes / WINDOW;

	// The example alert workflow's settings: FAILED only.
	clock = realNow();
	fillWindow();
	const failedOnly: Row[] = [];
	await measure(
		failedOnly,
		'activation: reads the window whole, emits nothing',
		activate(['FAILED']),
	);
	settle(inFlight().slice(-20));
	await measure(failedOnly, '20 recent messages delivered or failed', poll);
	await measure(failedOnly, 'nothing changed', poll);
	settle(inFlight().slice(0, 1));
	await measure(failedOnly, 'worst case: the oldest message in flight delivered', poll);
	clock += 15 * MINUTE_MS;
	await measure(failedOnly, 'full reading, 15 minutes after the last', poll);
	Date.now = realNow;
	await sim.stop();

	const table = (rows: Row[]) =>
		[
			'| Poll | Items emitted | List requests | Lists read (requests) | Poll time | Static data (JSON) |',
			'|---|---:|---:|---|---:|---:|',
			...rows.map(
				(row) =>
					`| ${row.step} | ${row.emitted.toLocaleString('en-US')} | ${row.requests} | ${row.lists} | ${(row.ms / 1000).toFixed(2)} s | ${(row.bytes / 1024).toFixed(1)} KiB |`,
			),
		].join('\n');
	const count = WINDOW.toLocaleString('en-US');
	const section = `${MARKER}

Produced by \`npm run bench:trigger\` on ${new Date().toISOString().slice(0, 10)}: the trigger polled through n8n-core's
PollContext and PollTriggerExecutor against the simulator on 127.0.0.1 holding ${count} messages sent over
the last 36 hours (92% DELIVERED, 4% FAILED, 4% SENT, spread evenly), one run. Each step changes the
list, then polls once; "List requests" are the requests the simulator received for that poll;
"Static data" is the workflow's static data as n8n stores it (JSON) after the poll.

Defaults (\`DELIVERED\` and \`FAILED\` watched, Lookback Days 2, Full Reading Every 15 minutes):

${table(defaults)}

\`FAILED\` only (the example workflow \`examples/alert-on-failed-sms.json\`):

${table(failedOnly)}

- A poll reads the in-flight lists whole (\`PENDING\`, \`SENT\`; their pages overlap by 3
  records, so a message leaving them while they are read moves no other past a page), then the
  list of every status ("any") newest first down to the newest message already seen and to the
  oldest followed message that left the in-flight lists. A full reading also reads the watched
  lists whole (and, at the activation, first asks for the newest message only).
- An in-flight list that answers empty while messages last seen in it are unaccounted for is asked
  once more (one request); if it answers empty again, every message followed is looked for in the
  list of every status, down to the oldest: about what a full reading costs.
- The worst case is a message sent at the start of the window that leaves \`SENT\`: the list of
  every status is read down to it, about what a full reading costs.
- Static data: ${perMessage.toFixed(1)} bytes per message in the window, with the consecutive ids of
  this bench (ids as base-36 differences, by sent day; sparser ids, say other accounts' messages
  in between, take a few bytes more); it shrinks again once the window moves past the messages.
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
