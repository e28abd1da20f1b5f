// A clock the test controls, for the tests about time: jest's fake timers stand for this process's
// timers, Date and performance.now (the node's waits and its limiter's clock, the simulator's and
// the gateway's latencies and time stamps), and the clock moves to the next timer only once no
// HTTP request or answer is on its way between a client and a server of this process. Time then
// passes only where something waits for it: an answer 200 ms away takes 200 ms of this clock
// however busy the machine is, and nothing moves while a request travels.
//
// What is on its way is read from Node's own diagnostics channels for HTTP (every client request
// from the start of its socket to its close, every server request from its start to the close of
// its answer): no code of the node or of n8n is replaced. The sockets' own timeouts (n8n's
// Timeout setting) stay on the machine's clock: a test of them cannot use this one.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';

// Taken before any test fakes them.
const realSetImmediate = setImmediate;
const realSetTimeout = setTimeout;

/** Client requests with a socket, not closed yet (their whole answer not read). */
const clientOpen = new Set<ClientRequest>();
/** Server requests whose answer is not closed yet. */
const serverOpen = new Map<ServerResponse, IncomingMessage>();

const onClientStart = (message: unknown) => {
	const { request } = message as { request: ClientRequest };
	clientOpen.add(request);
	request.once('close', () => clientOpen.delete(request));
};

const onServerStart = (message: unknown) => {
	const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
	serverOpen.set(response, request);
	response.once('close', () => serverOpen.delete(response));
};

/**
 * Nothing on its way: every open client request is held by a server of this process that has
 * read all of it (so it waits for a timer or works), and no server's answer is still unread.
 */
function nothingInTransit(): boolean {
	if (clientOpen.size !== serverOpen.size) return false;
	for (const request of serverOpen.values()) if (!request.complete) return false;
	return true;
}

/**
 * Turns of the event loop with nothing in transit before the clock moves: the code that got an
 * answer goes on within them (to its next request, or to its next wait).
 */
const SETTLE_TURNS = 5;

/** Moves the clock from timer to timer while the test runs; stops when `stopped()`. */
async function pump(stopped: () => boolean): Promise<void> {
	let quiet = 0;
	while (!stopped()) {
		await new Promise((resolve) => realSetImmediate(resolve));
		if (!nothingInTransit()) {
			quiet = 0;
			continue;
		}
		if (++quiet < SETTLE_TURNS) continue;
		quiet = 0;
		if (jest.getTimerCount() > 0) jest.advanceTimersToNextTimer();
		// Nothing waits for this clock: the code waits for the machine (a socket's timeout).
		else await new Promise((resolve) => realSetTimeout(resolve, 1));
	}
}

/**
 * Node runs a timer no sooner than 1 ms after it was set, and a timer of 1.5 ms at the next whole
 * millisecond of its clock; jest's fake clock runs one of less than 1 ms at once and one of 1.5 ms
 * after 1 ms. A wait until a time of the fake clock (the limiter's: `sleep(at - now)` until `now`
 * reaches `at`) could then wait 0 ms again and again, the clock never moving. The fake timers here
 * take Node's rule.
 */
function withNodeDelays(): void {
	type Timer = (callback: () => void, ms: number, ...args: unknown[]) => unknown;
	const nodeDelay = (ms: unknown) => Math.max(1, Math.ceil(Number(ms) || 0));
	const fakeTimeout = globalThis.setTimeout as unknown as Timer;
	const fakeInterval = globalThis.setInterval as unknown as Timer;
	const setTimeoutNodeDelays: Timer = (callback, ms, ...args) =>
		fakeTimeout(callback, nodeDelay(ms), ...args);
	const setIntervalNodeDelays: Timer = (callback, ms, ...args) =>
		fakeInterval(callback, nodeDelay(ms), ...args);
	globalThis.setTimeout = setTimeoutNodeDelays as unknown as typeof setTimeout;
	globalThis.setInterval = setIntervalNodeDelays as unknown as typeof setInterval;
}

/**
 * The tests of the calling `describe` (or file) run on one virtual clock, from its first test's
 * start to its last one's end, moved on by the pump above. One clock for all of them: a limiter
 * keeps the time of its last request, and the clock must not go back under it. For the same
 * reason, the requests made on it go to hosts (a simulator or a gateway) of its own, which no test
 * on the machine's clock uses.
 */
export function useVirtualClock(): void {
	let stopping = false;
	let running: Promise<void> = Promise.resolve();
	beforeAll(() => {
		subscribe('http.client.request.start', onClientStart);
		subscribe('http.server.request.start', onServerStart);
		jest.useFakeTimers({
			doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate', 'clearImmediate'],
		});
		withNodeDelays();
		stopping = false;
		running = pump(() => stopping);
	});
	afterAll(async () => {
		stopping = true;
		await running;
		jest.useRealTimers();
		unsubscribe('http.client.request.start', onClientStart);
		unsubscribe('http.server.request.start', onServerStart);
		clientOpen.clear();
		serverOpen.clear();
	});
}
