// The headers every page of SMS Messaging Approval carries, as a browser receives them through n8n
// (test/approval.test.ts checks each directive of each page in n8n-core's engine).

/** A page of the node as n8n delivered it: its policy and the other headers. */
export function expectPageHeaders(response: Response) {
	const policy = response.headers.get('content-security-policy') ?? '';
	expect(policy).toMatch(
		/^default-src 'none'; style-src 'sha256-[^']+'(; script-src 'sha256-[^']+')?; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
	);
	expect(response.headers.get('x-content-type-options')).toBe('nosniff');
	expect(response.headers.get('referrer-policy')).toBe('no-referrer');
	expect(response.headers.get('cache-control')).toBe('no-store');
	expect(response.headers.get('x-frame-options')).toBe('DENY');
}
