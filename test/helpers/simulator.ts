import { Simulator } from '../simulator/simulator';
import type { Credentials } from './n8n';

export const TOKEN = 'tok_live_9f8e7d6c5b4a3210';

/**
 * How the simulated API answers unless a test says otherwise: as the spec shows it, or with
 * SMS_SIM_SHAPE=java as a Java service may (times without an offset, texts normalised when
 * stored); `npm run test:zones` runs the main Send, lookup and trigger tests that way.
 */
const SHAPE =
	process.env.SMS_SIM_SHAPE === 'java' ? { localDateTimes: true, normaliseText: true } : {};

/** Starts one simulator for the test file, back to its seeded state before each test. */
export function useSimulator(options: ConstructorParameters<typeof Simulator>[0] = {}) {
	const context = {
		sim: new Simulator({ token: TOKEN, ...SHAPE, ...options }),
		credentials: { apiToken: TOKEN, baseUrl: '', sendBaseUrl: '' } as Credentials,
	};
	beforeAll(async () => {
		const urls = await context.sim.start();
		context.credentials = { apiToken: TOKEN, ...urls };
	});
	beforeEach(() => context.sim.reset());
	afterAll(async () => await context.sim.stop());
	return context;
}

/**
 * A request the test holds: pass `arrived` as a fault's `beforeAnswer` and `released` as its
 * `heldUntil`; `arrival` settles once the request reached the simulator, and its answer goes out
 * at `release()`.
 */
export function hold() {
	let arrived!: () => void;
	let release!: () => void;
	const arrival = new Promise<void>((resolve) => (arrived = resolve));
	const released = new Promise<void>((resolve) => (release = resolve));
	return { arrived, arrival, released, release };
}

/** Adds a message to the simulator's SMS list, in `status`, sent at `sentAt` (ms since the epoch). */
export function addMessage(sim: Simulator, status: string, sentAt: number) {
	return sim.addSms({
		recipient: `2547${String(10_000_000 + sim.sms.length)}`,
		content: `Your code is ${1000 + sim.sms.length}`,
		status,
		sentAt: new Date(sentAt).toISOString(),
		campaignId: undefined,
	});
}

/**
 * From now on the SMS list's pages give neither `totalElements` nor `totalPages`, only `last`, so
 * Return All reads one page after another; returns what puts the pages back.
 */
export function smsPagesWithoutTotals(sim: Simulator): () => void {
	sim.inject({ path: '/sms', noTotal: true, count: Infinity });
	const page = sim.page;
	sim.page = (...args: Parameters<typeof page>) => ({
		...page.apply(sim, args),
		totalPages: undefined as unknown as number,
	});
	return () => {
		sim.page = page;
	};
}
