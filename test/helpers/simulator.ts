import { Simulator } from '../simulator/simulator';
import type { Credentials } from './n8n';

export const TOKEN = 'tok_live_9f8e7d6c5b4a3210';

/** Starts one simulator for the test file, back to its seeded state before each test. */
export function useSimulator(options: ConstructorParameters<typeof Simulator>[0] = {}) {
	const context = {
		sim: new Simulator({ token: TOKEN, ...options }),
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
