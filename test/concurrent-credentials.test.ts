// No state shared between executions: a worker runs up to ten executions at once in one process
// (n8n's default worker concurrency), so two runs with different credentials at the same time must
// not mix tokens, envelopes or outputs. Two simulators with two tokens; both runs go through
// n8n-core's engine in this one process, at once.
import { runWorkflow, type Credentials } from './helpers/n8n';
import { Simulator } from './simulator/simulator';

const A = {
	token: 'tok_account_a_1111',
	sim: new Simulator({ token: 'tok_account_a_1111', balance: 50_000 }),
};
const B = {
	token: 'tok_account_b_2222',
	sim: new Simulator({ token: 'tok_account_b_2222', balance: 80_000 }),
};
const credentials: Record<'A' | 'B', Credentials> = {
	A: { apiToken: A.token, baseUrl: '', sendBaseUrl: '' },
	B: { apiToken: B.token, baseUrl: '', sendBaseUrl: '' },
};

beforeAll(async () => {
	credentials.A = { apiToken: A.token, ...(await A.sim.start()) };
	credentials.B = { apiToken: B.token, ...(await B.sim.start()) };
});
beforeEach(() => {
	A.sim.reset();
	B.sim.reset();
	// Every answer comes late, so that the two runs' requests interleave.
	for (const { sim } of [A, B]) sim.inject({ delayMs: 30, count: 1000 });
});
afterAll(async () => {
	await A.sim.stop();
	await B.sim.stop();
});

const people = (account: string, count: number) =>
	Array.from({ length: count }, (_, i) => ({
		phone: `${account === 'A' ? '2547' : '2557'}${String(10000000 + i)}`,
		text: `Account ${account}, message ${i}`,
	}));

const send = {
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '={{ $json.text }}',
	// Small batches: many requests per run, interleaved with the other run's.
	options: { batchSize: 10 },
};

/** Which runs were in flight at once: some request of each arrived between two of the other's. */
function interleaved(a: Simulator, b: Simulator) {
	const times = (sim: Simulator) => sim.requests.map((r: { at: number }) => r.at);
	const [aFirst, aLast] = [Math.min(...times(a)), Math.max(...times(a))];
	return times(b).some((t: number) => t > aFirst && t < aLast);
}

describe('two executions at once with different credentials', () => {
	test('Send: each account receives only its own token and envelopes, each output only its own results', async () => {
		const [runA, runB] = await Promise.all([
			runWorkflow({ parameters: send, items: people('A', 120), credentials: credentials.A }),
			runWorkflow({ parameters: send, items: people('B', 150), credentials: credentials.B }),
		]);
		expect(runA.error).toBeUndefined();
		expect(runB.error).toBeUndefined();
		expect(interleaved(A.sim, B.sim)).toBe(true);

		for (const [account, run, sim, token, count] of [
			['A', runA, A.sim, A.token, 120],
			['B', runB, B.sim, B.token, 150],
		] as const) {
			// The API side: only this account's token, only this account's envelopes, each once.
			expect(sim.requests).toHaveLength(count / 10);
			expect(sim.requests.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);
			const numbers = sim.sentEnvelopes.map((e: { number: string }) => e.number);
			expect(numbers).toEqual(people(account, count).map((p) => p.phone));
			expect(
				sim.sentEnvelopes.every((e: { message: string }) =>
					e.message.startsWith(`Account ${account},`),
				),
			).toBe(true);
			// The n8n side: this run's items, paired in order, with this account's balance.
			expect(run.items.map((item) => item.json.recipient)).toEqual(numbers);
			expect(run.items.map((item) => item.pairedItem)).toEqual(
				numbers.map((_, item) => ({ item })),
			);
			// Each batch's items carry the balance that batch's answer gave: this account's only
			// (A's 50,000 and B's 80,000 credits never overlap), ending at its final balance.
			const balances = run.items.map((item) => item.json.balance as number);
			expect(balances[balances.length - 1]).toBe(sim.balance);
			const initial = account === 'A' ? 50_000 : 80_000;
			expect(balances.every((b) => b >= sim.balance && b < initial)).toBe(true);
			// Neither token appears in what n8n keeps of the other run.
			const other = account === 'A' ? B.token : A.token;
			expect(run.serialized).not.toContain(other);
		}
		expect(A.sim.balance).toBe(50_000 - 120);
		expect(B.sim.balance).toBe(80_000 - 150);
	});

	test('Get Many: each run pages through its own account with its own token', async () => {
		// Different seeds make the two accounts' lists differ.
		B.sim.sms = B.sim.sms.slice(0, 40);
		const getMany = { resource: 'sms', operation: 'getAll', returnAll: true, options: {} };
		const [runA, runB] = await Promise.all([
			runWorkflow({ parameters: getMany, credentials: credentials.A }),
			runWorkflow({ parameters: getMany, credentials: credentials.B }),
		]);
		expect(runA.error).toBeUndefined();
		expect(runB.error).toBeUndefined();
		const ids = (items: Array<{ json: { id?: unknown } }>) =>
			items.map((item) => Number(item.json.id)).sort((x, y) => x - y);
		expect(ids(runA.items)).toEqual(ids(A.sim.sms.map((json: object) => ({ json }))));
		expect(ids(runB.items)).toEqual(ids(B.sim.sms.map((json: object) => ({ json }))));
		expect(runA.items).toHaveLength(57);
		expect(runB.items).toHaveLength(40);
		for (const [sim, token] of [
			[A.sim, A.token],
			[B.sim, B.token],
		] as const) {
			expect(sim.requests.length).toBeGreaterThan(0);
			expect(sim.requests.every((r) => r.headers['x-service'] === `Bearer ${token}`)).toBe(true);
		}
	});
});
