// The queue tests share one cluster, and queue-mode.queue.ts kills one of its workers: the
// approval's wait and resume run first, on the whole cluster.
const Sequencer = require('@jest/test-sequencer').default;

const FIRST = ['approval.queue.ts'];

class QueueSequencer extends Sequencer {
	sort(tests) {
		const rank = (test) => (FIRST.some((name) => test.path.endsWith(name)) ? 0 : 1);
		return [...tests].sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
	}
}

module.exports = QueueSequencer;
