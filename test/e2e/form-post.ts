// A recipient's answer as a browser posts it: in the encoding the page's form declares, a
// multiselect as repeated names, a file as a file part. n8n 2.41 refuses a POST to a send-and-wait form in any encoding
// but multipart before the node sees it, so the tests post what the page asks for, not a guess.

/**
 * The page's form encoding: its enctype, urlencoded when the form names none (as a browser does);
 * multipart, as the node's pages declare, when the page shows no form (an expired wait).
 */
async function enctypeOf(link: string): Promise<string> {
	const form = /<form\b[^>]*>/i.exec(await (await fetch(link)).text())?.[0];
	if (form === undefined) return 'multipart/form-data';
	return /\benctype="([^"]+)"/i.exec(form)?.[1] ?? 'application/x-www-form-urlencoded';
}

/** A file as a browser posts it from a file input: its name, its type and its bytes. */
export const fileOf = (filename: string, type: string, content: Buffer) =>
	new File([content], filename, { type });

export async function postForm(
	link: string,
	fields: Array<[string, string | File]> | Record<string, string>,
): Promise<Response> {
	const entries = Array.isArray(fields) ? fields : Object.entries(fields);
	if ((await enctypeOf(link)) === 'multipart/form-data') {
		const form = new FormData();
		for (const [name, value] of entries) form.append(name, value);
		return await fetch(link, { method: 'POST', body: form });
	}
	return await fetch(link, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams(entries as Array<[string, string]>).toString(),
	});
}
