// The headers every page a link opens is sent with: a Content-Security-Policy made from the node's own style and script.
import { createHash } from 'crypto';

import type { AnswerForm } from './form';
import { STYLE } from './page';
import { UPLOAD_SCRIPT } from './upload';

/** A block's hash, as a CSP source names it. */
const hashOf = (block: string) => `'sha256-${createHash('sha256').update(block).digest('base64')}'`;

/** The node's own style and script, hashed once: what a page holds never adds to its policy. */
const STYLE_SOURCE = hashOf(STYLE);
const SCRIPT_SOURCE = hashOf(UPLOAD_SCRIPT);

/**
 * Whether the wait's form shows an image: an html field whose HTML, as sanitized, kept an image's
 * address (https only); an image whose address was dropped loads nothing and allows nothing.
 */
const showsImage = (form: AnswerForm | undefined) =>
	form?.kind !== 'approval' &&
	!!form?.fields.some(({ html }) => /<img [^>]*\bsrc="https:/.test(html ?? ''));

/** Whether the wait's form has a file field, whose page runs the node's one script. */
const hasFile = (form: AnswerForm | undefined) =>
	form?.kind !== 'approval' && !!form?.fields.some(({ type }) => type === 'file');

/**
 * The Content-Security-Policy of every page for a wait's form (no form: a link that answers no
 * wait): nothing by default; the node's own style block, and on a form with a file field its own
 * script, by their hashes; https images only where an html field shows one; the form posts only
 * to the page's own address; no other site may frame it; no `<base>` may move its links. It
 * depends on the form the workflow defines, never on what a page holds.
 */
function contentSecurityPolicy(form: AnswerForm | undefined): string {
	return [
		"default-src 'none'",
		`style-src ${STYLE_SOURCE}`,
		...(hasFile(form) ? [`script-src ${SCRIPT_SOURCE}`] : []),
		...(showsImage(form) ? ['img-src https:'] : []),
		"form-action 'self'",
		"frame-ancestors 'none'",
		"base-uri 'none'",
	].join('; ');
}

/** The headers of every page: its policy, no sniffing, no referrer, nothing kept in a cache. */
export function pageHeaders(form: AnswerForm | undefined): Record<string, string> {
	return {
		'Content-Security-Policy': contentSecurityPolicy(form),
		'X-Content-Type-Options': 'nosniff',
		'Referrer-Policy': 'no-referrer',
		'Cache-Control': 'no-store',
		// For browsers without frame-ancestors.
		'X-Frame-Options': 'DENY',
	};
}
