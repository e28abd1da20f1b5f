// The test infrastructure itself: the package as n8n's loader gives it, the forward proxy, and the
// simulator over HTTPS.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';

import { Simulator } from './simulator/simulator';
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
