// The test infrastructure itself: the package as n8n's loader gives it, the forward proxy, and the
// simulator over HTTPS.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

import { inboxLine, Simulator } from './simulator/simulator';
import { loadedNodeDescription } from './helpers/n8n';
import { startProxy, type TestProxy } from './helpers/proxy';

const TOKEN = 'infra-token';

/** Status and body of one request made with node's own client. */
function fetchWith(
	client: typeof http | typeof https,
	options: https.RequestOptions,
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const request = client.request({ agent: false, ...options }, (res) => {
			let body = '';
			res.on('data', (chunk) => (body += chunk));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
		});
		request.on('error', reject);
		request.end();
	});
}

test("n8n's loader gives the node n8n's Request Options", () => {
	const requestOptions = loadedNodeDescription().properties.find(
		(property) => property.name === 'requestOptions',
	);
	expect(requestOptions?.type).toBe('collection');
	expect(requestOptions?.options?.map((option) => option.name)).toEqual(
		expect.arrayContaining(['batching', 'allowUnauthorizedCerts', 'proxy', 'timeout']),
	);
});

describe('the proxy and the simulator', () => {
	const plain = new Simulator({ token: TOKEN });
	const secure = new Simulator({ token: TOKEN, tls: true });
	let proxy: TestProxy;
	let plainUrl: URL;
	let secureUrl: URL;

	beforeAll(async () => {
		plainUrl = new URL((await plain.start()).baseUrl);
		secureUrl = new URL((await secure.start()).baseUrl);
		proxy = await startProxy();
	});
	afterAll(async () => {
		await Promise.all([plain.stop(), secure.stop(), proxy?.stop()]);
	});

	test('an absolute-form request through the proxy reaches the simulator and is recorded', async () => {
		const target = `${plainUrl.href}/sms?page=1&records=2`;
		const answer = await fetchWith(http, {
			host: '127.0.0.1',
			port: proxy.port,
			path: target,
			headers: { 'X-Service': `Bearer ${TOKEN}`, Host: plainUrl.host },
		});
		expect(answer.status).toBe(200);
		expect(JSON.parse(answer.body).data.content).toHaveLength(2);
		expect(proxy.requests).toEqual([expect.objectContaining({ method: 'GET', url: target })]);
		expect(proxy.requests[0].headers['x-service']).toBe(`Bearer ${TOKEN}`);
		expect(plain.requests).toHaveLength(1);
	});

	test('a CONNECT tunnel through the proxy carries HTTPS to the simulator', async () => {
		const socket = await new Promise<Socket>((resolve, reject) => {
			http
				.request({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: secureUrl.host })
				.on('connect', (res, tunnel) =>
					res.statusCode === 200 ? resolve(tunnel) : reject(new Error(`${res.statusCode}`)),
				)
				.on('error', reject)
				.end();
		});
		const answer = await fetchWith(https, {
			host: secureUrl.hostname,
			port: secureUrl.port,
			path: `${secureUrl.pathname}/contacts`,
			headers: { 'X-Service': `Bearer ${TOKEN}` },
			agent: undefined, // without an agent, node asks createConnection for the socket
			createConnection: () => tls.connect({ socket, rejectUnauthorized: false }),
		});
		expect(answer.status).toBe(200);
		expect(proxy.connects).toEqual([secureUrl.host]);
	});

	test('the HTTPS simulator answers without certificate checks and is refused with them', async () => {
		expect(secureUrl.protocol).toBe('https:');
		const request = {
			host: secureUrl.hostname,
			port: secureUrl.port,
			path: `${secureUrl.pathname}/sms`,
			headers: { 'X-Service': `Bearer ${TOKEN}` },
		};
		expect((await fetchWith(https, { ...request, rejectUnauthorized: false })).status).toBe(200);
		await expect(fetchWith(https, request)).rejects.toMatchObject({
			code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
		});
		expect((await fetchWith(https, { ...request, ca: secure.certificate })).status).toBe(200);
	});
});

describe("the simulator's inbox", () => {
	const lines: string[] = [];
	const sim = new Simulator({
		token: TOKEN,
		onMessage: (sms) => {
			lines.push(inboxLine(sms));
		},
	});
	let urls: { baseUrl: string; sendBaseUrl: string };

	beforeAll(async () => {
		urls = await sim.start();
	});
	afterAll(async () => await sim.stop());

	test('a line per SMS accepted, a link after a line break whole on its own line; the page lists them newest first, escaped, links clickable', async () => {
		const link = 'http://127.0.0.1:5678/webhook-waiting/7/node?signature=ab12&x=1';
		const send = (envelopes: Array<{ number: string; message: string }>) =>
			fetch(`${urls.sendBaseUrl}/outgoings/send`, {
				method: 'POST',
				headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
				body: JSON.stringify({ senderId: 'ACME', envelopes }),
			});
		expect(
			(
				await send([
					{ number: '254700000001', message: `Refund order A-1?\n${link}` },
					{ number: '254700000002', message: 'Hi <Amina> & "co", see https://example.com/x.' },
				])
			).status,
		).toBe(202);
		// Refused: not in the inbox.
		expect((await send([{ number: '12', message: 'too short a number' }])).status).toBe(400);
		expect(lines).toEqual([
			`SMS #58 from ACME to 254700000001: Refund order A-1?\n    ${link}`,
			'SMS #59 from ACME to 254700000002: Hi <Amina> & "co", see https://example.com/x.',
		]);

		const page = await fetch(`${urls.baseUrl.replace('/api/v3', '')}/__sim/inbox`);
		expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
		const html = await page.text();
		expect(html).toContain('newest first (2 messages)');
		const escaped = link.replace('&', '&amp;');
		expect(html).toContain(`Refund order A-1?\n<a href="${escaped}">${escaped}</a></p>`);
		expect(html).toContain(
			'Hi &lt;Amina&gt; &amp; &quot;co&quot;, see <a href="https://example.com/x">https://example.com/x</a>.</p>',
		);
		expect(html.indexOf('#59 ')).toBeLessThan(html.indexOf('#58 '));
		expect(html).not.toContain('<Amina>');
	});
});

describe('the n8n hosts the scripts install', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const local = require('../scripts/lib/local-n8n');

	test.each(Object.keys(local.LINES))(
		'n8n %s is locked: its lockfile is of its manifest',
		(line) => {
			const { manifest, lockfile } = local.lockedFiles(line);
			const wanted = JSON.parse(manifest);
			const locked = JSON.parse(lockfile);
			expect(locked.packages[''].dependencies).toEqual(wanted.dependencies);
			expect(locked.packages['node_modules/n8n'].version).toBe(wanted.dependencies.n8n);
			// Every package is pinned by version and checksum; no registry address is recorded.
			for (const [where, entry] of Object.entries<{ version?: string; integrity?: string }>(
				locked.packages,
			)) {
				if (where === '' || 'link' in entry) continue;
				expect(entry.version).toMatch(/^\d/);
				expect(entry).not.toHaveProperty('resolved');
			}
		},
	);

	test('a locked version the registry lacks fails naming the install and the package', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-'));
		const dependencies = { '@types/jest': '99.99.99' };
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: 'host', private: true, dependencies }),
		);
		fs.writeFileSync(
			path.join(dir, 'package-lock.json'),
			JSON.stringify({
				name: 'host',
				lockfileVersion: 3,
				requires: true,
				packages: {
					'': { name: 'host', dependencies },
					'node_modules/@types/jest': { version: '99.99.99', license: 'MIT' },
				},
			}),
		);
		try {
			await expect(
				local.npmCi('n8n 9.x host (scripts/n8n/9.x)', 'scripts/n8n/9.x', dir),
			).rejects.toThrow(
				'Could not install the n8n 9.x host (scripts/n8n/9.x): the registry does not serve @types/jest@99.99.99, locked in scripts/n8n/9.x/package-lock.json.',
			);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});
});
