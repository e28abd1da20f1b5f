// `npm run bench:trigger`: what the SMS Messaging Trigger keeps in the workflow's static data and
// what each poll costs, over a window of 10,000 messages, through n8n-core's poll machinery
// against the simulator on 127.0.0.1.
import path from 'node:path';

import { packageRoot } from '../test/helpers/package-root';
import { activateTrigger } from '../test/helpers/poll';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require(path.join(packageRoot(), 'test/simulator/simulator'));

const WINDOW = Number(process.env.BENCH_COUNT || 10_000);
const DAY_MS = 86_400_000;

interface Row {
	step: string;
	emitted: number;
	requests: number;
	ms: number;
	bytes: number;
}

async function main() {
	const token = 'bench-token';
	const sim = new Simulator({ token, smsRecords: 0 });
	const urls = await sim.start();
	const credentials = { apiToken: token, ...urls };
	// The window: 70% DELIVERED, 15% FAILED, 15% still SENT, all sent in the last day.
	const sentAt = new Date(Date.now() - 3_600_000).toISOString();
	const stillSent: number[] = [];
	for (let i = 0; i < WINDOW; i++) {
		const { id } = sim.addSms({
			recipient: `2547${String(10000000 + i)}`,
			content: `m${i}`,
			sentAt,
		});
		const share = i % 20;
		if (share < 14) sim.setSmsStatus(id, 'DELIVERED');
		else if (share < 17) sim.setSmsStatus(id, 'FAILED');
		else stillSent.push(id);
	}

	const rows: Row[] = [];
	const measure = async (step: string, poll: () => Promise<{ items: unknown[] | null }>) => {
		sim.requests = [];
		const started = performance.now();
		const { items } = await poll();
		const ms = performance.now() - started;
		rows.push({
			step,
			emitted: items?.length ?? 0,
			requests: sim.requests.length,
			ms,
			bytes: Buffer.byteLength(JSON.stringify(trigger.staticData)),
		});
	};

	let trigger = await activateTrigger({ parameters: {}, credentials });
	// The activation already polled; measured again as a fresh activation of the same state.
	await measure('activation: records the window, emits nothing', async () => {
		trigger = await activateTrigger({
			parameters: {},
			credentials,
			staticData: trigger.staticData,
		});
		return trigger.atActivation;
	});
	// A thousand of the SENT messages settle: 800 DELIVERED, 200 FAILED.
	stillSent
		.slice(0, 1000)
		.forEach((id, i) => sim.setSmsStatus(id, i % 5 === 4 ? 'FAILED' : 'DELIVERED'));
	await measure('a poll after 1,000 messages changed', async () => await trigger.poll());
	await measure('a poll with nothing new', async () => await trigger.poll());
	const now = Date.now();
	Date.now = () => now + 3 * DAY_MS;
	await measure(
		'three days later: the window has moved past them',
		async () => await trigger.poll(),
	);
	await sim.stop();

	console.log(
		`SMS Messaging Trigger, default settings (DELIVERED and FAILED, Lookback Days 2), ${WINDOW.toLocaleString('en-US')} messages in the window\n`,
	);
	console.log('| Step | Items emitted | HTTP requests | Poll time | Static data (JSON) |');
	console.log('|---|---:|---:|---:|---:|');
	for (const row of rows) {
		console.log(
			`| ${row.step} | ${row.emitted.toLocaleString('en-US')} | ${row.requests} | ${(row.ms / 1000).toFixed(2)} s | ${(row.bytes / 1024).toFixed(1)} KiB |`,
		);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
