// The HTML pages a link opens: the approval buttons, the answered, expired and refused pages, and their style.
import type { ApprovalForm } from './form';
import { escapeHtml } from './sanitizeHtml';

export const STYLE = `
body{margin:0;font-family:-apple-system,system-ui,"Segoe UI",Roboto,Arial,sans-serif;background:#f4f5f7;color:#1f2328}
main{max-width:28rem;margin:0 auto;padding:1.5rem 1rem}
h1{font-size:1.25rem;margin:0 0 1rem}
.message{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:1rem;font-size:1.05rem;line-height:1.45}
form{display:flex;flex-direction:column;gap:.75rem;margin-top:1.25rem}
button{font:inherit;font-size:1.1rem;padding:.9rem;border-radius:.5rem;border:1px solid #1a7f37;background:#1a7f37;color:#fff;cursor:pointer}
button.decline{background:#fff;color:#cf222e;border-color:#cf222e}
p.note{color:#59636e;font-size:.9rem}
label,legend{font-weight:600;padding:0}
fieldset{border:0;margin:0;padding:0;display:flex;flex-direction:column;gap:.4rem}
fieldset label{font-weight:400}
input,select,textarea{font:inherit;font-size:1rem;padding:.6rem;border:1px solid #8c959f;border-radius:.4rem;background:#fff;width:100%;box-sizing:border-box}
input[type=checkbox],input[type=radio]{width:auto;margin-right:.5rem}
input[type=file]{padding:.5rem;background:#f6f8fa}
textarea{min-height:6rem}
label,legend,.hint,.error,.message{overflow-wrap:anywhere}
.hint{color:#59636e;font-size:.9rem;margin:0}
.error{color:#cf222e;font-size:.9rem;margin:0}
.req{color:#cf222e}
.html{overflow-wrap:anywhere;overflow-x:auto}
.html img{max-width:100%;height:auto}
.html pre{overflow-x:auto}
.sending{font-weight:600;margin:0}
.sending progress{display:block;width:100%;margin-top:.4rem}
button:disabled{opacity:.6;cursor:progress}`;

export function page(title: string, body: string): string {
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

/**
 * How every page's form posts: multipart, as n8n's own forms do (from 2.41 n8n refuses any other
 * POST to a send-and-wait node with a form, before the node sees it).
 */
export const FORM_TAG = '<form method="post" enctype="multipart/form-data">';

/**
 * The page the SMS links to: the message and a form whose buttons post the choice back to the same
 * signed URL. Plain HTML, no script; only a button press records an answer, so a link preview that
 * fetches the page changes nothing.
 */
export function choicePage(message: string, choices: ApprovalForm): string {
	const buttons = [
		`<button type="submit" name="approved" value="true">${escapeHtml(choices.approveLabel)}</button>`,
	];
	if (choices.disapproveLabel !== undefined) {
		buttons.push(
			`<button type="submit" name="approved" value="false" class="decline">${escapeHtml(choices.disapproveLabel)}</button>`,
		);
	}
	return page(
		'Your answer is requested',
		`<h1>Your answer is requested</h1>
<div class="message">${escapeHtml(message)}</div>
${FORM_TAG}
${buttons.join('\n')}
</form>
<p class="note">Only the first answer counts.</p>`,
	);
}

/** The page shown once the answer is recorded: the button's label for an approval. */
export function recordedPage(label?: string): string {
	const answer = label === undefined ? 'Your answer' : `Your answer “${escapeHtml(label)}”`;
	return page(
		'Answer recorded',
		`<h1>Thank you</h1>
<p>${answer} was recorded. You can close this page.</p>`,
	);
}

/** The page for an answer after the time limit: nothing was recorded. */
export function expiredPage(): string {
	return page(
		'Request expired',
		`<h1>This request has expired</h1>
<p>The time to answer it has passed. Nothing was recorded.</p>`,
	);
}

/** The page for a link that is not this wait's: nothing was recorded. */
export function refusedPage(): string {
	return page(
		'Link not valid',
		`<h1>This link is not valid</h1>
<p>It was not sent for the request now waiting for an answer, or it was changed. Nothing was recorded.</p>`,
	);
}

/** The page for an answer to a wait that another answer has just decided. */
export function alreadyAnsweredPage(): string {
	return page(
		'Already answered',
		`<h1>Already answered</h1>
<p>Another answer to this request was recorded first. Yours changes nothing.</p>`,
	);
}
