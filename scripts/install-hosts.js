'use strict';
// Installs the locked n8n hosts the end-to-end tests run (E2E_N8N_LINES, default every line), all
// at once, unless this machine has them cached already; `npm test` runs it beside the unit tests.
// Usage: node scripts/install-hosts.js [line …]. Exits 1 when an install failed, after the others.
const local = require('./lib/local-n8n');

const lines = process.argv.slice(2).length
	? process.argv.slice(2)
	: (process.env.E2E_N8N_LINES || Object.keys(local.LINES).join(','))
			.split(',')
			.map((line) => line.trim());

async function main() {
	const started = Date.now();
	const results = await Promise.allSettled(lines.map((line) => local.ensureInstalled(line)));
	const failed = results.filter((result) => result.status === 'rejected');
	for (const { reason } of failed) local.log(reason instanceof Error ? reason.message : reason);
	local.log(
		`n8n hosts ${lines.join(', ')}: ${failed.length ? `${failed.length} failed` : 'ready'} after ${Math.round((Date.now() - started) / 1000)} s`,
	);
	process.exitCode = failed.length ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
	process.on(signal, () => local.stopAll().then(() => process.exit(1)));
}
main();
