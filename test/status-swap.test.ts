// A Status-filtered list whose records change status while it is read (issue 64): SMS → Get
// Many, Status SENT, Return All over 299 SENT messages; before page 2 (or 3) is read, one message
// on the pages already read leaves SENT and an older PENDING message joins SENT. The total does
// not change, and every SENT message between moves up one place. Through n8n's engine against
// the simulator: every message SENT from start to end comes out exactly once.
import { runWorkflow } from './helpers/n8n';
import { useSimulator } from './helpers/simulator';

const ctx = useSimulator({ smsRecords: 0 });

const ids = (items: Array<{ json: Record<string, unknown> }>) =>
	items.map((item) => Number(item.json.id));

/** 299 SENT messages, each after a PENDING one: ids 1 (PENDING), 2 (SENT), … 598 (SENT). */
function seed() {
	for (let k = 0; k < 299; k++) {
		ctx.sim.addSms({ recipient: `2547${20000000 + k}`, content: `Older ${k}`, status: 'PENDING' });
		ctx.sim.addSms({ recipient: `2547${30000000 + k}`, content: `Message ${k}`, status: 'SENT' });
	}
}

describe.each([
	['with totals', false],
	['without totals', true],
])('pages %s', (_, omitTotals) => {
	test.each([
		['page 2', 1, 500],
		['page 3', 2, 300],
	])(
		'before %s, a message of the page just read leaves SENT and an older PENDING one joins: each message SENT throughout once',
		async (_page, listRequestsBefore, leaving) => {
			seed();
			ctx.sim.omitTotals = omitTotals;
			// The newest SENT message is 598: 500 is on the first page, 300 on the second, and 3
			// (PENDING) below them all.
			ctx.sim.inject({
				path: '/sms',
				skip: listRequestsBefore,
				beforeAnswer: () => {
					ctx.sim.setSmsStatus(leaving, 'DELIVERED');
					ctx.sim.setSmsStatus(3, 'SENT');
				},
			});
			const result = await runWorkflow({
				parameters: {
					resource: 'sms',
					operation: 'getAll',
					returnAll: true,
					filters: { status: 'SENT' },
				},
				credentials: ctx.credentials,
			});
			expect(result.error).toBeUndefined();
			const given = ids(result.items);
			expect(new Set(given).size).toBe(given.length);
			const sentThroughout = Array.from({ length: 299 }, (_, k) => 598 - 2 * k).filter(
				(id) => id !== leaving,
			);
			expect(given.filter((id) => id !== leaving && id !== 3)).toEqual(sentThroughout);
		},
	);
});
