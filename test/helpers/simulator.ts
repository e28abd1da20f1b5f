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

/**
 * Whether the API writes its times without an offset (SMS_SIM_SHAPE=java): then a lookup after a
 * single request of unknown outcome cannot place a record in time (its zone shown by nothing), so
 * it cannot tell this run's message from an older one and says "May have been sent" (issue 57).
 */
export const TIMES_WITHOUT_OFFSET = process.env.SMS_SIM_SHAPE === 'java';

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
