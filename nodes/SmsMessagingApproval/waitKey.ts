// One wait of the approval node: the hashed link codes and what the page and the answer need.
import { createHash, randomBytes, timingSafeEqual } from 'crypto';

import { CODE_PATTERN } from '../shared/approvalLink';
import type { AnswerForm } from './form/form';

/**
 * One wait of the node (a new one for every run of the node, so per execution, node and run): what
 * checks a link's code and what the page and the answer need. The node keeps it in the execution's
 * own data (its node context). It holds only hashes of the codes: reading the waiting execution
 * does not give a link that answers.
 */
export interface Wait {
	/** Random, names the wait among those answered in this process; not a secret. */
	id: string;
	/** SHA-256 of each recipient's code, base64url, in envelope order. */
	codeHashes: string[];
	/** The recipients' numbers as sent (normalised as Send normalises), in envelope order. */
	numbers: string[];
	/** Each recipient's message as their SMS carried it (without the link), in envelope order. */
	messages: string[];
	/**
	 * When the time limit passes (ms since the epoch): a set time as given, or a time interval counted
	 * from when the SMS went out. Unset: no limit.
	 */
	until?: number;
	form: AnswerForm;
}

const hashOf = (code: string) => createHash('sha256').update(code).digest('base64url');

/** A new wait and, apart from it (never stored), each recipient's code for their link. */
export function newWait(
	numbers: string[],
	messages: string[],
	form: AnswerForm,
): { wait: Wait; codes: string[] } {
	const codes = numbers.map(() => randomBytes(16).toString('base64url'));
	const wait: Wait = {
		id: randomBytes(16).toString('base64url'),
		codeHashes: codes.map(hashOf),
		numbers,
		messages,
		form,
	};
	return { wait, codes };
}

/** The value of the link's parameter for one recipient (its position among the envelopes). */
export function linkValue(recipient: number, code: string): string {
	return `${recipient}.${code}`;
}

const LINK_VALUE = new RegExp(`^(0|[1-9][0-9]{0,8})\\.(${CODE_PATTERN})$`);

/**
 * Whose link this is: the recipient's position when the value was made for this wait, its hash
 * compared in constant time; otherwise undefined (another execution's link, an earlier wait's,
 * any part changed).
 */
export function recipientOf(wait: Wait, value: unknown): number | undefined {
	if (typeof value !== 'string') return undefined;
	const match = LINK_VALUE.exec(value);
	if (!match) return undefined;
	const recipient = Number(match[1]);
	if (recipient >= wait.codeHashes.length) return undefined;
	const given = Buffer.from(hashOf(match[2]));
	const expected = Buffer.from(wait.codeHashes[recipient]);
	return given.length === expected.length && timingSafeEqual(given, expected)
		? recipient
		: undefined;
}

/** Whether a stored value is a wait this node made (an execution may hold none, or an older one). */
export function isWait(value: unknown): value is Wait {
	const wait = value as Wait | undefined;
	return (
		typeof wait?.id === 'string' &&
		Array.isArray(wait.codeHashes) &&
		Array.isArray(wait.numbers) &&
		Array.isArray(wait.messages) &&
		typeof wait.form?.kind === 'string'
	);
}

/** Whether the wait's time limit has passed: an answer then records nothing. */
export function hasExpired(wait: Wait, now = Date.now()): boolean {
	return wait.until !== undefined && now >= wait.until;
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
	if (answered.has(wait.id)) return false;
	answered.add(wait.id);
	if (answered.size > ANSWERED_KEPT) answered.delete(answered.values().next().value!);
	return true;
}

/**
 * How many answers through each link (a wait and a recipient) this process refused for a file's
 * content. n8n gives a node no way to read a posted file but to store it, nor to delete what it
 * stored: a refused answer's files stay in the binary data until the execution is deleted. So a
 * link that sent files that were not what they said REFUSED_FILES_TAKEN times takes no more files,
 * and a loop of such posts stores no more than that. Bounded like `answered`.
 */
const refusedFiles = new Map<string, number>();
const REFUSED_FILES_TAKEN = 3;

const linkOf = (wait: Wait, recipient: number) => `${wait.id}.${recipient}`;

/** Whether a link still takes files: fewer than REFUSED_FILES_TAKEN of its answers were refused for one. */
export function takesFiles(wait: Wait, recipient: number): boolean {
	return (refusedFiles.get(linkOf(wait, recipient)) ?? 0) < REFUSED_FILES_TAKEN;
}

/** Counts an answer through a link refused for a file's content. */
export function countRefusedFiles(wait: Wait, recipient: number): void {
	const link = linkOf(wait, recipient);
	refusedFiles.set(link, (refusedFiles.get(link) ?? 0) + 1);
	if (refusedFiles.size > ANSWERED_KEPT) refusedFiles.delete(refusedFiles.keys().next().value!);
}
