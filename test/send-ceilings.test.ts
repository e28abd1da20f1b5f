// SMS → Send's bounds: Max Attempts is a ceiling (another run's successes do not start its count
// again), the lookup of unknown outcomes looks again for a while (a slow API lists a message after
// the node gave up waiting), and the retry ledger is small and kept only by a run that fails.
import { retryExecution, runWorkflow, type RunOptions } from './helpers/n8n';
import { customers, send } from './helpers/send-fixtures';
import { useSimulator } from './helpers/simulator';
import { useVirtualClock } from './helpers/virtual-clock';

useVirtualClock();
const ctx = useSimulator();

const sendRequests = () => ctx.sim.requests.filter((r) => r.host === 'send');
const ledgerOf = (result: Awaited<ReturnType<typeof runWorkflow>>) =>
	JSON.stringify(result.run.data.executionData?.contextData ?? {});

describe('Max Attempts is a ceiling', () => {
	test("a per-Sender-ID 429 ends after Max Attempts while another run's Send succeeds meanwhile", async () => {
		ctx.sim.inject({
			host: 'send',
			senderId: 'NOTIFY',
			status: 429,
			retryAfter: 1,
			count: Infinity,
		});
		const other = runWorkflow({
			parameters: {
				...send({ batchSize: 1 }),
				requestOptions: { batching: { batch: { batchSize: 1, batchInterval: 250 } } },
			},
			items: customers(24),
			credentials: ctx.credentials,
		});
		const refused = runWorkflow({
			parameters: { ...send({ maxAttempts: 3 }), senderId: 'NOTIFY' },
			items: customers(1),
			credentials: ctx.credentials,
		});
		const [a, b] = await Promise.all([other, refused]);
		expect(a.error).toBeUndefined();
		expect(b.error?.message).toMatch(/too many requests/i);
		expect(sendRequests().filter((r) => r.body.senderId === 'NOTIFY')).toHaveLength(3);
		// The other run kept succeeding after the refused one gave up.
		const lastRefusal = Math.max(
			...sendRequests()
				.filter((r) => r.body.senderId === 'NOTIFY')
				.map((r) => r.at),
		);
		expect(sendRequests().some((r) => r.body.senderId === 'ACME' && r.at > lastRefusal)).toBe(true);
	});
});

describe("Send's lookup of unknown outcomes looks again", () => {
	test('the API takes the batch 1.2 s after the node gave up waiting: found on a later look, sent once', async () => {
		// Processed 1.2 s after the client gave up at 300 ms.
		ctx.sim.inject({ host: 'send', untilClientGone: true, delayMs: 1_200 });
		const result = await runWorkflow({
			parameters: send({ timeout: 300 }),
			items: customers(2),
			credentials: ctx.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(sendRequests()).toHaveLength(1);
		expect(result.items.map((item) => item.json.foundInSmsList)).toEqual([true, true]);
		expect(ctx.sim.requests.filter((r) => r.path === '/sms').length).toBeGreaterThan(1);
	});
	test("a message found on an earlier look is no proof that Send's ids are the list's: a later look gives an unsent message no record", async () => {
		// Three identical envelopes in three requests at once. The first to arrive is accepted with
		// an outgoing id that is not its SMS record's; the second is processed but its connection
		// reset (found on the first look); the third is reset before the API takes it, so the
		// lookup looks again, and must not give it the accepted message's record.
		const items = [0, 1, 2].map(() => ({ phone: '254710000000', order: 'SAME' }));
		ctx.sim.inject({ host: 'send', foreignIds: true });
		ctx.sim.inject({ host: 'send', network: 'reset', process: true });
		ctx.sim.inject({ host: 'send', network: 'reset' });
		const result = await runWorkflow({
			parameters: send({ batchSize: 1, parallelRequests: 3 }),
			items,
			credentials: ctx.credentials,
			continueOnFail: true,
		});
		expect(ctx.sim.sentEnvelopes).toHaveLength(1);
		expect(ctx.sim.requests.filter((r) => r.path === '/sms').length).toBeGreaterThan(1);
		const outputs = result.items.map(({ json }) =>
			json.error ? 'unknown' : json.foundInSmsList ? 'found' : json.status,
		);
		expect(outputs.sort()).toEqual(['SENT', 'found', 'unknown']);
		expect(result.items.find(({ json }) => json.error)?.json.error).toMatch(
			/^May have been sent: /,
		);
	});
});

describe("Send's retry ledger", () => {
	const fourBatches = (continueOnFail = false): RunOptions => ({
		parameters: send({ batchSize: 5, parallelRequests: 1 }),
		items: customers(20),
		credentials: ctx.credentials,
		continueOnFail,
		mode: 'webhook',
	});

	test('a run that returns (Continue On Fail) keeps no ledger: no retry can come', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const result = await runWorkflow(fourBatches(true));
		expect(result.error).toBeUndefined();
		expect(result.items.filter((item) => item.json.error !== undefined)).toHaveLength(15);
		expect(ledgerOf(result)).not.toContain('smsSendLedger');
	});

	test("a ledger in the form of earlier builds (each sent item's whole output) is read: a retry sends nothing again", async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const failed = await runWorkflow(fourBatches());
		const contexts = (failed.run.data.executionData?.contextData ?? {}) as Record<
			string,
			{ smsSendLedger?: Record<string, Record<string, unknown>> }
		>;
		let rewritten = 0;
		for (const context of Object.values(contexts)) {
			for (const ledger of Object.values(context.smsSendLedger ?? {})) {
				for (const [item, entry] of Object.entries(ledger)) {
					if (!Array.isArray(entry)) continue;
					const [key, id, sentAt, credits, balance] = entry as unknown[];
					ledger[item] = {
						key,
						outcome: 'sent',
						json: {
							id,
							credits,
							balance,
							status: 'SENT',
							sentAt: new Date(Number(sentAt)).toISOString(),
						},
					};
					rewritten++;
				}
			}
		}
		expect(rewritten).toBe(5);
		const retried = await retryExecution(failed, fourBatches());
		expect(retried.error).toBeUndefined();
		expect(ctx.sim.sentEnvelopes).toHaveLength(5 + 15);
		expect(retried.items.slice(0, 5).map((item) => item.json.status)).toEqual(
			Array(5).fill('SENT'),
		);
	});

	test('a run that fails keeps at most 64 bytes per sent message, and a retry rebuilds their output', async () => {
		ctx.sim.inject({ host: 'send', status: 402, skip: 1 });
		const failed = await runWorkflow(fourBatches());
		expect(failed.error?.description).toContain('Sent and charged (5 messages): items 0-4.');
		const contexts = (failed.run.data.executionData?.contextData ?? {}) as Record<
			string,
			{ smsSendLedger?: Record<string, Record<string, unknown>> }
		>;
		const ledgers = Object.values(contexts).flatMap((context) =>
			Object.values(context.smsSendLedger ?? {}),
		);
		expect(ledgers).toHaveLength(1);
		const entries = Object.values(ledgers[0]);
		expect(entries).toHaveLength(5);
		for (const entry of entries) expect(JSON.stringify(entry).length).toBeLessThanOrEqual(64);

		const first = await runWorkflow({ ...fourBatches(), items: customers(5) });
		const retried = await retryExecution(failed, fourBatches());
		expect(retried.error).toBeUndefined();
		expect(ctx.sim.sentEnvelopes).toHaveLength(5 + 5 + 15);
		// Items 0-4 come out as a run that sends them gives them, with the failed run's ids and times.
		const shape = (json: Record<string, unknown>) => ({ ...json, id: 0, balance: 0, sentAt: '' });
		expect(retried.items.slice(0, 5).map((item) => shape(item.json))).toEqual(
			first.items.map((item) => shape(item.json)),
		);
		const listed = (order: string) =>
			ctx.sim.sms.find((r: { content: string }) => r.content === `Order ${order} is on its way`);
		expect(retried.items.slice(0, 5).map((item) => item.json.id)).toEqual(
			customers(5).map(({ order }) => listed(order).id),
		);
		// sentAt by n8n's clock when the accepted attempt went out, beside the API's own.
		retried.items.slice(0, 5).forEach((item, k) => {
			const apiSentAt = Date.parse(listed(`ORD-${k}`).sentAt);
			expect(Math.abs(Date.parse(String(item.json.sentAt)) - apiSentAt)).toBeLessThan(1_000);
		});
	});
});
