// The headers every page a link opens is sent with: a Content-Security-Policy made from the page itself.
import { createHash } from 'crypto';

/** The hash of each inline `<tag>` block of a page, as a CSP source. */
function inlineHashes(html: string, tag: 'script' | 'style'): string[] {
	const blocks = html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'));
	return [...blocks].map(
		([, body]) => `'sha256-${createHash('sha256').update(body).digest('base64')}'`,
	);
}

/**
 * The page's Content-Security-Policy, as tight as the page allows: nothing by default; its own
 * style and script blocks by their hashes (an html field can hold neither: sanitizeHtml.ts);
 * https images only where an html field shows one; the form posts only to the page's own
 * address; no other site may frame it; no `<base>` may move its links.
 */
function contentSecurityPolicy(html: string): string {
	const styles = inlineHashes(html, 'style');
	const scripts = inlineHashes(html, 'script');
	return [
		"default-src 'none'",
		...(styles.length ? [`style-src ${styles.join(' ')}`] : []),
		...(scripts.length ? [`script-src ${scripts.join(' ')}`] : []),
		...(/<img\b/.test(html) ? ['img-src https:'] : []),
		"form-action 'self'",
		"frame-ancestors 'none'",
		"base-uri 'none'",
	].join('; ');
}

/** The headers of every page: its policy, no sniffing, no referrer, nothing kept in a cache. */
export function pageHeaders(html: string): Record<string, string> {
	return {
		'Content-Security-Policy': contentSecurityPolicy(html),
		'X-Content-Type-Options': 'nosniff',
		'Referrer-Policy': 'no-referrer',
		'Cache-Control': 'no-store',
		// For browsers without frame-ancestors.
		'X-Frame-Options': 'DENY',
	};
}
