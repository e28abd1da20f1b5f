// Whether a phone can open the link in an approval SMS: a loopback or private address cannot.
import type { INode } from 'n8n-workflow';

import { nothingSentError } from '../shared/input/validation';

/** An IPv4 address's four numbers, or undefined when the host is not one. */
function ipv4Of(host: string): number[] | undefined {
	const parts = host.split('.');
	if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
	const numbers = parts.map(Number);
	return numbers.every((n) => n <= 255) ? numbers : undefined;
}

/** Loopback, private (RFC 1918), shared (RFC 6598), link-local or unspecified. */
function isLocalIpv4([a, b]: number[]): boolean {
	return (
		a === 127 ||
		a === 10 ||
		a === 0 ||
		(a === 172 && b >= 16 && b <= 31) ||
		(a === 192 && b === 168) ||
		(a === 169 && b === 254) ||
		(a === 100 && b >= 64 && b <= 127)
	);
}

/** Loopback, unspecified, unique local (fc00::/7), link-local (fe80::/10), or a local IPv4 mapped in. */
function isLocalIpv6(host: string): boolean {
	const address = host.toLowerCase();
	if (address === '::1' || address === '::') return true;
	const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
	if (mapped) return isLocalIpv4(ipv4Of(mapped[1])!);
	return /^f[cd]/.test(address) || /^fe[89ab]/.test(address);
}

/**
 * Whether a URL's host is one a phone on the public network cannot reach: a loopback, private or
 * link-local address, `localhost`, a name without a dot (a container's, a machine's), or a name
 * under .local, .localhost, .internal, .lan or .home.arpa.
 */
function isLocalHost(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	if (host.includes(':')) return isLocalIpv6(host);
	const ipv4 = ipv4Of(host);
	if (ipv4) return isLocalIpv4(ipv4);
	return (
		host === 'localhost' ||
		!host.includes('.') ||
		/\.(local|localhost|internal|lan|home\.arpa)\.?$/.test(host)
	);
}

/** The host of a URL, or undefined when it does not read as one. */
export function hostOf(url: string): string | undefined {
	try {
		return new URL(url).hostname;
	} catch {
		return undefined;
	}
}

/**
 * Refuses, before anything is sent, an approval whose links would point to an address phones
 * cannot reach (n8n without WEBHOOK_URL builds them from its own host, 127.0.0.1 or a container's
 * name) while the SMS go out through an API that is not on this machine or network: its
 * recipients would get a link that opens nothing. With the API local too (the local simulator,
 * an API inside the same network) the link may well be meant for that network.
 */
export function refuseUnreachableLink(node: INode, link: string, apiHost: string | undefined) {
	const linkHost = hostOf(link);
	if (linkHost === undefined || !isLocalHost(linkHost)) return;
	if (apiHost === undefined || isLocalHost(apiHost)) return;
	const base = link.split('?')[0].replace(/\/[^/]*\/[^/]*$/, '');
	throw nothingSentError(
		node,
		`The approval link would point to ${base}/…, an address a phone cannot reach (${linkHost} is local to this n8n), while the SMS go out through ${apiHost}`,
		"Set n8n's WEBHOOK_URL to the address phones can reach, for example https://n8n.example.com/, and restart n8n.",
	);
}
