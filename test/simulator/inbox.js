'use strict';
// The simulator's inbox: every SMS it accepted, as one line for a terminal and as a small HTML page
// (GET /__sim/inbox on the API host), so that a person can read what was "sent", approval links
// included, without a phone.

/** What a terminal must not be given raw: control characters (escape sequences among them). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** A message's text with its line breaks as \n and no control character. */
function plain(text) {
	return String(text).replace(/\r\n?/g, '\n').replace(CONTROL, '\uFFFD');
}

/**
 * One SMS as the terminal shows it: one line, and when the text has line breaks (an approval's
 * link comes after one) each further line of the text on its own indented line, so that a link
 * stays whole and a terminal can open it.
 * @param {{id: number, senderId: string, number: string, message: string}} sms
 */
function inboxLine({ id, senderId, number, message }) {
	const [first, ...rest] = plain(message).split('\n');
	return [`SMS #${id} from ${plain(senderId)} to ${plain(number)}: ${first}`, ...rest]
		.join('\n    ')
		.trimEnd();
}

const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

/** http(s) links in a text; a sentence's closing punctuation is not part of one. */
const LINK = /https?:\/\/[^\s<>"']+?(?=[.,;:!?)\]]*(?:\s|$))/g;

/** A message's text as HTML: escaped, its http(s) links clickable. */
function textHtml(text) {
	let html = '';
	let at = 0;
	for (const match of text.matchAll(LINK)) {
		html += escapeHtml(text.slice(at, match.index));
		const url = escapeHtml(match[0]);
		html += `<a href="${url}">${url}</a>`;
		at = match.index + match[0].length;
	}
	return html + escapeHtml(text.slice(at));
}

/**
 * The inbox page: the accepted messages, newest first, with their current status.
 * @param {{id: number, senderId: string, number: string, message: string, at: string}[]} inbox
 * @param {(id: number) => string | undefined} statusOf
 */
function inboxPage(inbox, statusOf) {
	const items = [...inbox].reverse().map(
		(sms) => `<li>
<p class="meta">#${sms.id} · from <b>${escapeHtml(sms.senderId)}</b> to <b>${escapeHtml(sms.number)}</b> · ${escapeHtml(sms.at)} · ${escapeHtml(statusOf(sms.id) ?? '')}</p>
<p class="text">${textHtml(plain(sms.message))}</p>
</li>`,
	);
	const count = inbox.length === 1 ? '1 message' : `${inbox.length} messages`;
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SMS simulator inbox</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem; max-width: 50rem; }
ol { list-style: none; padding: 0; }
li { border-bottom: 1px solid #ddd; padding: 0.5rem 0; }
.meta { color: #555; margin: 0; font-size: 0.9rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.25rem 0 0; }
</style>
</head>
<body>
<h1>SMS simulator inbox</h1>
<p>The messages the API simulator accepted, newest first (${count}). Reload the page to see new ones.</p>
<ol>
${items.length ? items.join('\n') : '<li>No message yet.</li>'}
</ol>
</body>
</html>
`;
}

module.exports = { inboxLine, inboxPage, escapeHtml };
