// SMS Messaging Approval: what the node checks at the door of every answer, through n8n-core's
// engine and WebhookContext against the simulator: the time limit, counted from when the SMS went
// out, and the execution's data, which holds nothing that makes a link answer.
import { createHash } from 'crypto';
import type { INodeParameters } from 'n8n-workflow';

import { answer, approvalRun, linksSent } from './helpers/approval';
import { useSimulator } from './helpers/simulator';

process.env.N8N_HMAC_SIGNATURE_SECRET = 'approval-door-test-secret';

const ctx = useSimulator();

const ORDERS = [
	{ phone: '254712345678', text: 'Refund 120 EUR to Alice?' },
	{ phone: '254799000111', text: 'Refund 8,000 EUR to Bob?' },
];

/** Limit Wait Time of `seconds` (Amount in minutes takes two decimals). */
const limitOf = (seconds: number) => ({
	limitWaitTime: {
		values: { limitType: 'afterTimeInterval', resumeAmount: seconds / 60, resumeUnit: 'minutes' },
	},
});

const waitingRun = (options: INodeParameters = {}) =>
	approvalRun(ctx.credentials, ORDERS, { options });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SMS Messaging Approval: the time limit holds at the door', () => {
	test('counted from when the SMS went out, not from before a slow send', async () => {
		ctx.sim.inject({ host: 'send', delayMs: 2_000 });
		const result = await waitingRun(limitOf(3));
		const [sent] = ctx.sim.requests.filter((r) => r.host === 'send');
		const answeredAt = Number(sent.at);
		expect(result.run.waitTill!.getTime()).toBeGreaterThanOrEqual(answeredAt + 3_000);
	});

	test('an answer after the limit, before n8n resumes the execution: refused, nothing recorded', async () => {
		const waiting = await waitingRun(limitOf(3));
		const [link] = linksSent(ctx.sim);
		await sleep(3_100);
		for (const method of ['POST', 'GET'] as const) {
			const { response, resumed } = await answer(waiting, {
				method,
				link,
				body: { approved: 'true' },
			});
			expect(resumed).toBeUndefined();
			expect(response.statusCode).toBe(410);
			expect(response.body).toContain('This request has expired');
			expect(response.body).not.toContain('<form');
		}
	});

	test('an answer within the limit is recorded', async () => {
		const waiting = await waitingRun(limitOf(60));
		const [, link] = linksSent(ctx.sim);
		const { items } = await answer(waiting, {
			method: 'POST',
			link,
			body: { approved: 'true' },
		});
		expect(items!.map((item) => item.json)).toEqual([
			{ data: { approved: true }, answeredBy: '254799000111' },
		]);
	});
});

describe('SMS Messaging Approval: the execution’s data makes no link', () => {
	test('it holds each code’s SHA-256, never the code nor a key that makes one', async () => {
		const waiting = await waitingRun();
		const stored = JSON.stringify(waiting.run.data);
		for (const link of linksSent(ctx.sim)) {
			const code = new URL(link).searchParams.get('k')!.split('.')[1];
			expect(stored).not.toContain(code);
			expect(stored).toContain(createHash('sha256').update(code).digest('base64url'));
		}
		expect(stored).not.toMatch(/"key":/);
	});
});
