import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startGateway, throughGateway } from './gateway';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Simulator } = require(path.join(__dirname, '../../../test/simulator/simulator'));
async function main() {
	const sim = new Simulator({ token: 't', balance: 1e12, smsRecords: 0, contacts: 0 });
	await sim.start({});
	const opts = JSON.parse(process.argv[2]);
	const g = await startGateway({ target: new URL(sim.sendBaseUrl).origin, ...opts });
	const through = throughGateway(g, sim.sendBaseUrl);
	const n = Number(process.argv[3] || 1);
	const env = { ...process.env, BENCH_START_AT: String(Date.now() + 10000) };
	const outs = await Promise.all(Array.from({ length: n }, () => new Promise<string>((res) => {
		require('node:child_process').execFile(process.execPath, [path.join(__dirname, 'contenders.js'), 'send', String(n > 1 ? 5000 : 10000), sim.baseUrl, through, 't', '100'], { env }, (e: unknown, o: string, er: string) => res(o || er));
	})));
	console.log(outs.join('\n'));
	const t0 = g.records[0].arrivedAt;
	console.log(g.records.map((r) => `${r.arrivedAt - t0}${r.refused ? 'R' : ''}`).join(' '));
	await g.stop(); await sim.stop();
}
void execFileSync;
main();
