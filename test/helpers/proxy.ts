// A forward HTTP proxy for tests, on 127.0.0.1 at an ephemeral port, that records what went
// through it.
//
// What n8n sends to a proxy (n8n-core 2.40 with @n8n/backend-network): the declarative engine turns
// the node setting Request Options → Proxy (`http://[user:pass@]host:port`) into
// `requestOptions.proxy = { host, port, protocol }`; `helpers.httpRequest(WithAuthentication)`
// hands that to axios (whose own proxy support n8n switches off) as node agents built from the
// proxy URL:
// - http:// target: http-proxy-agent. The request goes to the proxy in absolute form,
//   `GET http://127.0.0.1:1234/api/v3/sms?page=1 HTTP/1.1`, with the target's Host header and the
//   node's own headers (so the API token is visible to the proxy), plus Proxy-Authorization when
//   the proxy URL has credentials. The proxy forwards it and returns the answer.
// - https:// target: https-proxy-agent. First `CONNECT 127.0.0.1:1234 HTTP/1.1` (Host header the
//   same, Proxy-Authorization when given); after the proxy's 200 the agent runs TLS to the target
//   through the tunnel, so the proxy sees only encrypted bytes. Allow Unauthorized Certificates
//   (skipSslCertificateValidation) applies to that TLS session with the target, not to the proxy.
// A proxy URL that is not http:// or https:// is ignored with a warning (n8n falls back to the
// HTTP(S)_PROXY environment variables); without a node proxy those variables apply.
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import net from 'node:net';

interface ProxiedRequest {
	method: string;
	/** The absolute-form target, as the client sent it: `http://127.0.0.1:1234/api/v3/sms?page=1`. */
	url: string;
	headers: IncomingHttpHeaders;
}

export interface TestProxy {
	/** `http://127.0.0.1:<port>`, for a node's Request Options → Proxy. */
	url: string;
	port: number;
	/** Every forwarded (absolute-form) request, in order. */
	requests: ProxiedRequest[];
	/** The `host:port` of every CONNECT tunnel asked for, in order. */
	connects: string[];
	/** Closes the proxy and every connection through it. */
	stop(): Promise<void>;
}

// Connection-level headers a proxy must not pass on (RFC 9110 section 7.6.1).
const HOP_BY_HOP = [
	'connection',
	'keep-alive',
	'proxy-authorization',
	'proxy-authenticate',
	'proxy-connection',
	'te',
	'trailer',
	'transfer-encoding',
	'upgrade',
];

function withoutHopByHop(headers: IncomingHttpHeaders): http.OutgoingHttpHeaders {
	const named = (headers.connection ?? '')
		.split(',')
		.map((name) => name.trim().toLowerCase())
		.filter(Boolean);
	return Object.fromEntries(
		Object.entries(headers).filter(([name]) => !HOP_BY_HOP.includes(name) && !named.includes(name)),
	);
}

/**
 * `hosts` sends requests for a `host:port` elsewhere (`{ 'send.example.com:80': '127.0.0.1:8788' }`),
 * as a name server would: a node then talks to a host that is not on this machine, through the
 * proxy, and a local server answers.
 */
export async function startProxy(hosts: Record<string, string> = {}): Promise<TestProxy> {
	const requests: ProxiedRequest[] = [];
	const connects: string[] = [];
	const sockets = new Set<net.Socket>();
	const track = (socket: net.Socket) => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
	};

	const server = http.createServer((req, res) => {
		const method = req.method ?? 'GET';
		let target: URL;
		try {
			target = new URL(req.url ?? '');
		} catch {
			res.writeHead(400, { 'Content-Type': 'text/plain' });
			res.end(`test proxy: not an absolute-form request: ${method} ${req.url}`);
			return;
		}
		requests.push({ method, url: req.url ?? '', headers: req.headers });
		const transport = target.protocol === 'https:' ? https : http;
		const mapped = hosts[target.host] ?? hosts[`${target.hostname}:${target.port || 80}`];
		if (mapped) target = new URL(`${target.protocol}//${mapped}${target.pathname}${target.search}`);
		const upstream = transport.request(target, {
			method,
			headers: withoutHopByHop(req.headers),
			agent: false, // a fresh connection per request: nothing pooled outlives stop()
		});
		upstream.on('socket', track);
		upstream.on('response', (answer) => {
			res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.headers));
			answer.pipe(res);
		});
		upstream.on('error', (error) => {
			if (res.headersSent) {
				res.destroy();
				return;
			}
			res.writeHead(502, { 'Content-Type': 'text/plain' });
			res.end(`test proxy: ${error.message}`);
		});
		// A client that gives up (a timeout) takes the upstream request down with it.
		res.on('close', () => {
			if (!res.writableFinished) upstream.destroy();
		});
		req.pipe(upstream);
	});

	server.on('connection', track);

	server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
		const authority = req.url ?? '';
		connects.push(authority);
		const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
		if (!match) {
			client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
			return;
		}
		const upstream = net.connect(Number(match[2]), match[1]);
		track(upstream);
		let established = false;
		upstream.once('connect', () => {
			established = true;
			client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
			if (head.length > 0) upstream.write(head);
			upstream.pipe(client);
			client.pipe(upstream);
		});
		upstream.on('error', () => {
			if (!established && client.writable) {
				client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
			} else {
				client.destroy();
			}
		});
		client.on('error', () => upstream.destroy());
		client.on('close', () => upstream.destroy());
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as net.AddressInfo;

	return {
		url: `http://127.0.0.1:${port}`,
		port,
		requests,
		connects,
		stop: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}
