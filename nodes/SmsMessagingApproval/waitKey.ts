import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { Choices } from './page';

/** The query parameter of the link that says whose link it is and proves it: `<recipient>.<code>`. */
export const LINK_PARAMETER = 'k';

/**
 * One wait of the node: a random key made for it alone (a new one for every run of the node, so
 * per execution, node and run), and what the page and the answer need. The node keeps it in the
 * execution's own data (its node context), which n8n keeps and no recipient sees.
 */
export interface Wait extends IDataObject {
	/** 32 random bytes, base64url. Never in a link, a page or the output. */
	key: string;
	/** The recipients' numbers as sent (normalised as Send normalises), in envelope order. */
	numbers: string[];
	/** The page's message: the first item's, as the SMS carried it (without the link). */
	message: string;
	approveLabel: string;
	/** Absent when the recipient can only approve. */
	disapproveLabel?: string;
}

export function newWait(numbers: string[], message: string, choices: Choices): Wait {
	const wait: Wait = { key: randomBytes(32).toString('base64url'), numbers, message, ...choices };
	if (choices.disapproveLabel === undefined) delete wait.disapproveLabel;
	return wait;
}

/** 128 bits of HMAC-SHA256 under the wait's key, for one recipient of it: 22 characters. */
function code(key: string, recipient: number): string {
	return createHmac('sha256', Buffer.from(key, 'base64url'))
		.update(`sms-approval-answer:${recipient}`)
		.digest()
		.subarray(0, 16)
		.toString('base64url');
}

/** The value of the link's parameter for one recipient (its position among the envelopes). */
export function linkValue(wait: Wait, recipient: number): string {
	return `${recipient}.${code(wait.key, recipient)}`;
}

const LINK_VALUE = /^(0|[1-9][0-9]{0,8})\.([A-Za-z0-9_-]{22})$/;

/**
 * Whose link this is: the recipient's position when the value was made for this wait, compared in
 * constant time; otherwise undefined (another execution's link, an earlier wait's, any part changed).
 */
export function recipientOf(wait: Wait, value: unknown): number | undefined {
	if (typeof value !== 'string') return undefined;
	const match = LINK_VALUE.exec(value);
	if (!match) return undefined;
	const recipient = Number(match[1]);
	if (recipient >= wait.numbers.length) return undefined;
	const given = Buffer.from(match[2]);
	const expected = Buffer.from(code(wait.key, recipient));
	return timingSafeEqual(given, expected) ? recipient : undefined;
}

/** Whether a stored value is a wait this node made (an execution may hold none, or an older one). */
export function isWait(value: unknown): value is Wait {
	const wait = value as Wait | undefined;
	return (
		typeof wait?.key === 'string' &&
		Array.isArray(wait.numbers) &&
		typeof wait.message === 'string' &&
		typeof wait.approveLabel === 'string'
	);
}

/**
 * Waits answered in this process, newest last: n8n 1.x can hand two answers that arrive at once
 * to the node before either has resumed the execution. The node claims the wait before it records
 * an answer, in one synchronous step, so only the first of them resumes it. Bounded: a wait needs
 * its entry only until its execution has resumed.
 */
const answered = new Set<string>();
const ANSWERED_KEPT = 10_000;

/** True for the first answer to this wait in this process, false for any later one. */
export function claimAnswer(wait: Wait): boolean {
	const id = createHmac('sha256', Buffer.from(wait.key, 'base64url')).update('claim').digest('hex');
	if (answered.has(id)) return false;
	answered.add(id);
	if (answered.size > ANSWERED_KEPT) answered.delete(answered.values().next().value!);
	return true;
}
