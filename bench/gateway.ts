// A gateway in front of one host of the API simulator, on 127.0.0.1, as an API's own edge would
// be: it adds latency to every request it lets through and enforces one limit the node is never
// told (requests in flight, a sliding window of requests per second, or a token bucket), answering
// 429 with `Retry-After` (1 s unless told) and the API's error wrapper beyond it, at once. Used by `npm run bench` (the adaptive section) and by the tests of Auto.
import http from 'node:http';
import { randomUUID } from 'node:crypto';

export interface GatewayOptions {
	/** The host it stands in front of: `http://127.0.0.1:<port>`. */
	target: string;
	/** Added before every request it lets through is passed on (ms). */
	latencyMs?: number;
	/** Added on top of `latencyMs` per request already let through and waiting: a queueing API. */
	queueMsPerRequest?: number;
	/** At most this many requests through at once (from arrival to answer). */
	maxInFlight?: number;
	/** At most this many requests let through in any 1000 ms (a sliding window). */
	perSecond?: number;
	/**
	 * A token bucket: `perSecond` tokens a second, at most `burst` kept (a request takes one), as
	 * most API gateways limit a rate. It starts full.
	 */
	bucket?: { perSecond: number; burst: number };
	/** The Retry-After of a 429 (default '1'). */
	retryAfter?: string;
	/**
	 * A refusal is answered this long after its request arrived (default 0: at once). On a test's
	 * virtual clock "at once" takes no time at all, where a real one takes the loopback's moment.
	 */
	refusalMs?: number;
	/** Answer this status instead of 429 beyond the limit (503 for the backoff tests). */
	refuseWith?: number;
	/**
	 * Paths may start with `/w<n>` (a worker's number), which is removed before the request is
	 * passed on: one credential spelt differently per worker, so that each has a limiter of its own
	 * in one process, as n8n workers do in theirs.
	 */
	workerPrefix?: boolean;
	port?: number;
}

interface GatewayRecord {
	method: string;
	/** The path and query as received. */
	url: string;
	arrivedAt: number;
	answeredAt?: number;
	/** The status it answered; undefined while it waits. */
	status?: number;
	/** Refused by the gateway's limit (never reached the simulator). */
	refused: boolean;
	/** Requests let through and not yet answered when this one arrived, itself included. */
	inFlight: number;
	/** The body it came with. */
	body: string;
}

export interface Gateway {
	/** `http://127.0.0.1:<port>` */
	origin: string;
	records: GatewayRecord[];
	/** The most requests it let through at once. */
	peak: number;
	options: GatewayOptions;
	stop(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
	const target = new URL(options.target);
	const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
	const passedAt: number[] = [];
	let inFlight = 0;
	let tokens = options.bucket?.burst ?? 0;
	let filledAt = Date.now();
	const gateway: Gateway = {
		origin: '',
		records: [],
		peak: 0,
		options,
		stop: async () => {
			agent.destroy();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
	const refuse = (record: GatewayRecord, res: http.ServerResponse) => {
		const status = options.refuseWith ?? 429;
		const body = JSON.stringify({
			status: `${status} ${status === 429 ? 'TOO_MANY_REQUESTS' : 'SERVICE_UNAVAILABLE'}`,
			code: status,
			message: status === 429 ? 'too many requests' : 'service unavailable',
			timestamp: new Date().toISOString(),
			reqId: randomUUID(),
			path: record.url.split('?')[0],
			errors: ['Rate limit exceeded'],
		});
		record.status = status;
		record.answeredAt = Date.now();
		res.writeHead(status, {
			'Content-Type': 'application/json',
			'Content-Length': Buffer.byteLength(body),
			'Retry-After': options.retryAfter ?? '1',
		});
		res.end(body);
	};
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const now = Date.now();
			while (passedAt.length > 0 && passedAt[0] <= now - 1000) passedAt.shift();
			if (options.bucket) {
				const { perSecond, burst } = options.bucket;
				tokens = Math.min(burst, tokens + ((now - filledAt) * perSecond) / 1000);
				filledAt = now;
			}
			const over =
				(options.maxInFlight !== undefined && inFlight >= options.maxInFlight) ||
				(options.perSecond !== undefined && passedAt.length >= options.perSecond) ||
				(options.bucket !== undefined && tokens < 1);
			const record: GatewayRecord = {
				method: req.method ?? 'GET',
				url: req.url ?? '/',
				arrivedAt: now,
				refused: over,
				inFlight: over ? inFlight : inFlight + 1,
				body: Buffer.concat(chunks).toString('utf8'),
			};
			gateway.records.push(record);
			if (over) {
				if (options.refusalMs) setTimeout(() => refuse(record, res), options.refusalMs);
				else refuse(record, res);
				return;
			}
			inFlight++;
			passedAt.push(now);
			tokens--;
			gateway.peak = Math.max(gateway.peak, inFlight);
			const pass = () => {
				const upstream = http.request(
					{
						host: target.hostname,
						port: target.port,
						method: req.method,
						path: options.workerPrefix ? req.url?.replace(/^\/w\d+/, '') : req.url,
						headers: { ...req.headers, host: target.host },
						agent,
					},
					(answer) => {
						const body: Buffer[] = [];
						answer.on('data', (chunk: Buffer) => body.push(chunk));
						answer.on('end', () => {
							inFlight--;
							record.status = answer.statusCode;
							record.answeredAt = Date.now();
							res.writeHead(answer.statusCode ?? 502, answer.headers);
							res.end(Buffer.concat(body));
						});
					},
				);
				upstream.on('error', () => {
					inFlight--;
					res.socket?.destroy();
				});
				upstream.end(Buffer.concat(chunks));
			};
			const wait = (options.latencyMs ?? 0) + (options.queueMsPerRequest ?? 0) * (inFlight - 1);
			if (wait > 0) setTimeout(pass, wait);
			else pass();
		});
	});
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	gateway.origin = `http://127.0.0.1:${port}`;
	return gateway;
}

/** A base URL of the simulator (`http://127.0.0.1:1234/api/v3`) with the gateway's origin. */
export function throughGateway(gateway: Gateway, baseUrl: string): string {
	const url = new URL(baseUrl);
	return `${gateway.origin}${url.pathname.replace(/\/+$/, '')}`;
}
