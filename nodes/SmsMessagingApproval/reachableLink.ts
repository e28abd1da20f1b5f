// Whether a phone can open the link in an approval SMS: a loopback, private or reserved address cannot.
import type { INode } from 'n8n-workflow';

import { nothingSentError } from '../shared/input/validation';

/** An IPv4 address's four bytes, from the dotted form a WHATWG URL gives every IPv4 host. */
function ipv4Of(host: string): number[] | undefined {
	const parts = host.split('.');
	if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
	const bytes = parts.map(Number);
	return bytes.every((n) => n <= 255) ? bytes : undefined;
}

/** An IPv6 address's sixteen bytes (a dotted IPv4 tail included), or undefined when it is none. */
function ipv6Of(host: string): number[] | undefined {
	let text = host;
	const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
	if (tail) {
		const v4 = ipv4Of(tail[1]);
		if (!v4) return undefined;
		text = `${text.slice(0, -tail[1].length)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
	}
	const halves = text.split('::');
	if (halves.length > 2) return undefined;
	const groupsOf = (half: string) => (half === '' ? [] : half.split(':'));
	const [head, rest] = [groupsOf(halves[0]), halves.length === 2 ? groupsOf(halves[1]) : []];
	const missing = 8 - head.length - rest.length;
	if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) {
		return undefined;
	}
	const groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
	if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
	return groups.flatMap((group) => {
		const value = parseInt(group, 16);
		return [value >> 8, value & 0xff];
	});
}

type Verdict = 'local' | 'reserved' | undefined;

/**
 * Loopback, private (RFC 1918), shared (RFC 6598), link-local or unspecified: local; the other
 * special-purpose blocks no phone reaches (documentation, benchmarking, multicast, reserved):
 * reserved; undefined for an address on the internet.
 */
function ipv4Verdict([a, b, c]: number[]): Verdict {
	if (
		a === 0 ||
		a === 10 ||
		a === 127 ||
		(a === 100 && b >= 64 && b <= 127) ||
		(a === 169 && b === 254) ||
		(a === 172 && b >= 16 && b <= 31) ||
		(a === 192 && b === 168)
	) {
		return 'local';
	}
	const reserved =
		a >= 224 ||
		(a === 192 && b === 0 && (c === 0 || c === 2)) ||
		(a === 198 && (b === 18 || b === 19)) ||
		(a === 198 && b === 51 && c === 100) ||
		(a === 203 && b === 0 && c === 113);
	return reserved ? 'reserved' : undefined;
}

const startsWith = (bytes: number[], prefix: number[]) =>
	prefix.every((byte, at) => bytes[at] === byte);
const zeros = (count: number) => Array<number>(count).fill(0);

/**
 * What an IPv6 address is, and the IPv4 address it carries where it carries one (mapped,
 * translated, NAT64, 6to4): an address that carries a local IPv4 address is local.
 */
function ipv6Verdict(bytes: number[]): { verdict: Verdict; ipv4?: number[] } {
	const carried = [
		[...zeros(10), 0xff, 0xff], // ::ffff:0:0/96, IPv4-mapped
		[...zeros(8), 0xff, 0xff, 0, 0], // ::ffff:0:0:0/96, IPv4-translated
		[0, 0x64, 0xff, 0x9b, ...zeros(8)], // 64:ff9b::/96, NAT64
		zeros(12), // ::/96, IPv4-compatible (and :: and ::1)
	].find((prefix) => startsWith(bytes, prefix));
	if (carried) {
		const ipv4 = bytes.slice(12);
		if (startsWith(bytes, zeros(12)) && bytes[12] === 0 && bytes[13] === 0 && bytes[14] === 0) {
			return { verdict: 'local' }; // :: and ::1
		}
		return {
			verdict: ipv4Verdict(ipv4) ?? (startsWith(bytes, zeros(12)) ? 'reserved' : undefined),
			ipv4,
		};
	}
	if (startsWith(bytes, [0x20, 0x02])) {
		const ipv4 = bytes.slice(2, 6);
		return { verdict: ipv4Verdict(ipv4), ipv4 };
	}
	if ((bytes[0] & 0xfe) === 0xfc || (bytes[0] === 0xfe && (bytes[1] & 0x80) === 0x80)) {
		return { verdict: 'local' }; // fc00::/7 unique local, fe80::/10 link-local, fec0::/10 site-local
	}
	const reserved =
		bytes[0] === 0xff || // multicast
		startsWith(bytes, [0x20, 0x01, 0x0d, 0xb8]) || // documentation
		(bytes[0] === 0x3f && (bytes[1] & 0xf0) === 0xf0) || // documentation, 3fff::/20
		startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 1]) || // local-use NAT64
		startsWith(bytes, [1, 0, ...zeros(6)]) || // discard-only
		(bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] < 0x02); // 2001::/23: Teredo, benchmarking, ORCHID
	return { verdict: reserved ? 'reserved' : undefined };
}

/**
 * Names that resolve only inside a machine or a network: RFC 6761, RFC 6762 (`.local`, Kubernetes'
 * `.cluster.local` too), RFC 8375, ICANN's `.internal`, the names ICANN will never delegate because
 * networks use them (`.corp`, `.home`, `.mail`), Kubernetes' `<service>.<namespace>.svc`, and the
 * usual names of a home or office network.
 */
const LOCAL_NAME =
	/(^|\.)(localhost|local|internal|lan|home\.arpa|localdomain|corp|home|mail|svc|intranet)$/;
/** Names for tests and documentation, and names outside the DNS (Tor's `.onion`, RFC 9476's `.alt`). */
const RESERVED_NAME = /(^|\.)(invalid|test|example|onion|alt)$/;

/**
 * Why a URL's host (as a WHATWG URL gives it: IPv4 dotted whatever its spelling, IPv6 in
 * brackets, names in lower case) is one a phone on the public network cannot reach, in words;
 * undefined when a phone can reach it. A name is not looked up.
 */
function unreachable(hostname: string): string | undefined {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	let verdict: Verdict;
	let shown = hostname;
	if (hostname.startsWith('[')) {
		const bytes = ipv6Of(host);
		if (!bytes) return `${hostname} is not an address`;
		const found = ipv6Verdict(bytes);
		verdict = found.verdict;
		if (found.ipv4) shown = `${hostname} (${found.ipv4.join('.')})`;
	} else {
		const ipv4 = ipv4Of(host);
		const name = host.replace(/\.+$/, '');
		if (ipv4) verdict = ipv4Verdict(ipv4);
		else if (!name.includes('.') || LOCAL_NAME.test(name)) verdict = 'local';
		else if (RESERVED_NAME.test(name)) verdict = 'reserved';
	}
	if (verdict === 'local') return `${shown} is local to this n8n`;
	return verdict === 'reserved'
		? `${shown} is reserved, not an address on the internet`
		: undefined;
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
 * Why no phone opens a link, in words, and whether that holds wherever the API is (a link that is
 * not a web address opens nowhere); undefined when a phone on the public network can open it.
 */
function linkProblem(link: string): { why: string; anywhere: boolean } | undefined {
	let url: URL;
	try {
		url = new URL(link);
	} catch {
		const host = /^[^:/?#]+:\/\/([^/?#]*)/.exec(link)?.[1];
		const what = host ? `its host ${host}` : 'it';
		return { why: `${what} does not read as a web address a browser opens`, anywhere: true };
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return { why: `a ${url.protocol} link is not a web page a phone opens`, anywhere: true };
	}
	const why = unreachable(url.hostname);
	return why === undefined ? undefined : { why, anywhere: false };
}

/**
 * Refuses, before anything is sent, an approval whose links would point where phones cannot go:
 * a link that is not an http(s) web address (a `file:` link, a host no browser takes, such as an
 * IPv6 zone `[fe80::1%25eth0]`), wherever the API is; and an address phones cannot reach (n8n
 * without WEBHOOK_URL builds them from its own host, 127.0.0.1 or a container's name) while the
 * SMS go out through an API that is not on this machine or network: its recipients would get a
 * link that opens nothing. With the API local too (the local simulator, an API inside the same
 * network) such a link may well be meant for that network. `link` is the execution's resume URL
 * as n8n writes it, before n8n reads it as a URL to sign it.
 */
export function refuseUnreachableLink(node: INode, link: string, apiHost: string | undefined) {
	const problem = linkProblem(link);
	if (problem === undefined) return;
	const apiLocal = apiHost === undefined || unreachable(apiHost) !== undefined;
	if (!problem.anywhere && apiLocal) return;
	const base = link.split('?')[0].replace(/\/[^/]*\/[^/]*$/, '');
	const through = apiHost === undefined ? '' : `, while the SMS go out through ${apiHost}`;
	throw nothingSentError(
		node,
		`The approval link would point to ${base}/…, an address a phone cannot reach (${problem.why})${through}`,
		"Set n8n's WEBHOOK_URL to the address phones can reach, for example https://n8n.example.com/, and restart n8n.",
	);
}
