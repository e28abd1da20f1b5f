// The HTML page of Free Text and Custom Form, with what was given back after a refused post.
import { inputName, selectionRule, WHOLE_POST, type Given } from './checks';
import { megabytes, type FormField } from './fields';
import type { FieldsForm } from './form';
import { FORM_TAG, page } from './page';
import { escapeHtml } from './sanitizeHtml';
import { SENDING, UPLOAD_PROBLEM, UPLOAD_SCRIPT } from './upload';

const attribute = (name: string, value: string) => ` ${name}="${escapeHtml(value)}"`;

/** What a checkbox field's Limit Selection asks, shown under its boxes. */
function selectionHint({ min, max }: NonNullable<FormField['selections']>): string {
	if (min === max) return `Choose exactly ${min}.`;
	return min === 0 ? `Choose at most ${max}.` : `Choose from ${min} to ${max}.`;
}

/**
 * How many boxes the node takes, for the page's script to check before a photo uploads: the
 * field's name and label, the least and most boxes, and the rule in the node's own words.
 */
function boxLimits(field: FormField, id: string): string {
	const { min, max } = field.selections ?? {
		min: field.required ? 1 : 0,
		max: field.options!.length,
	};
	const rule = field.selections ? selectionRule(field.selections) : 'Choose at least one option.';
	return `${attribute('data-name', id)}${attribute('data-label', field.label)}${attribute('data-min', String(min))}${attribute('data-max', String(max))}${attribute('data-rule', rule)}${field.required ? ' data-required' : ''}`;
}

/** Boxes or radio buttons in a fieldset, the chosen ones ticked. */
function choices(field: FormField, id: string, given: string | string[], label: string): string {
	const chosen = Array.isArray(given) ? given : [given];
	const type = field.type === 'radio' ? 'radio' : 'checkbox';
	const required = type === 'radio' && field.required ? ' required' : '';
	const boxes = field.options!.map(
		(option) =>
			`<label><input type="${type}"${attribute('name', id)}${attribute('value', option)}${required}${chosen.includes(option) ? ' checked' : ''}>${escapeHtml(option)}</label>`,
	);
	const hint = field.selections
		? `\n<p class="hint">${escapeHtml(selectionHint(field.selections))}</p>`
		: '';
	return `<fieldset${attribute('aria-describedby', `${id}-error`)}${type === 'checkbox' ? boxLimits(field, id) : ''}><legend>${label}</legend>\n${boxes.join('\n')}${hint}\n</fieldset>`;
}

/**
 * A file input that offers a phone's camera when it takes images (`accept`), with the limit it
 * states; after a refused post, the names received (a page cannot keep a file).
 */
function fileInput(field: FormField, common: string, given: string | string[]): string {
	const limit = megabytes(field.maxBytes!);
	const accept = field.accept ? attribute('accept', field.accept) : '';
	const data = `${attribute('data-max-bytes', String(field.maxBytes))}${attribute('data-max-files', String(field.maxFiles))}${attribute('data-label', field.label)}${attribute('data-limit', limit)}`;
	const entries = field.accept?.split(',') ?? [];
	// An extension is checked against the content too: a file renamed to fit is refused.
	const byContent = entries.some((entry) => entry.startsWith('.'))
		? ', by name and by content: a file renamed is refused'
		: '';
	const accepted = entries.length ? ` Accepted: ${entries.join(', ')}${byContent}.` : '';
	const rule = `Up to ${limit}${field.multipleFiles ? ' per file' : ''}.${accepted}`;
	const received = Array.isArray(given) && given.length ? given : [];
	const again = received.length
		? `\n<p class="hint">Received ${escapeHtml(received.join(', '))}: choose ${received.length === 1 ? 'it' : 'them'} again, a page cannot keep a file.</p>`
		: '';
	return `<input type="file"${common}${accept}${field.multipleFiles ? ' multiple' : ''}${data}>\n<p class="hint">${escapeHtml(rule)}</p>${again}`;
}

/** One field's input, with what was given back in it; the browser checks what HTML can. */
function input(field: FormField, id: string, given: string | string[], label: string): string {
	if (field.type === 'html') return `<div class="html">${field.html}</div>`;
	if (field.type === 'checkbox' || field.type === 'radio' || field.multiselect) {
		return choices(field, id, given, label);
	}
	const labelTag = `<label${attribute('for', id)}>${label}</label>`;
	const value = Array.isArray(given) ? '' : given;
	const required = field.required ? ' required' : '';
	const common = `${attribute('id', id)}${attribute('name', id)}${required}${attribute('aria-describedby', `${id}-error`)}`;
	const placeholder = field.placeholder ? attribute('placeholder', field.placeholder) : '';
	switch (field.type) {
		case 'file':
			return `${labelTag}\n${fileInput(field, common, given)}`;
		case 'dropdown': {
			const options = ['', ...field.options!].map(
				(option) =>
					`<option${attribute('value', option)}${option === value && option !== '' ? ' selected' : ''}>${escapeHtml(option || 'Choose…')}</option>`,
			);
			return `${labelTag}\n<select${common}>\n${options.join('\n')}\n</select>`;
		}
		case 'textarea':
			return `${labelTag}\n<textarea${common}${placeholder}>${escapeHtml(value)}</textarea>`;
		case 'password':
			// Never sent back to the page.
			return `${labelTag}\n<input type="password"${common}${placeholder} autocomplete="off">`;
		default: {
			const extra = field.type === 'number' ? ' step="any"' : '';
			return `${labelTag}\n<input${attribute('type', field.type)}${common}${placeholder}${extra}${attribute('value', value)}>`;
		}
	}
}

/** The fields' blocks: each with its label, input and, after a refused post, what is wrong. */
function fieldBlocks(form: FieldsForm, given: Given, problems: Array<string | undefined>) {
	return form.fields.flatMap((field, position) => {
		// A hidden field's value is the node's own: the page neither shows nor posts it.
		if (field.type === 'hiddenField') return [];
		const id = inputName(position);
		const shown = form.kind === 'freeText' ? 'Your answer' : field.label;
		const label = `${escapeHtml(shown)}${field.required ? '<span class="req"> *</span>' : ''}`;
		const problem = problems[position];
		const error =
			problem === undefined
				? ''
				: `\n<p class="error"${attribute('id', `${id}-error`)}>${escapeHtml(`${shown}: ${problem}`)}</p>`;
		return [`<div>\n${input(field, id, given[position] ?? '', label)}${error}\n</div>`];
	});
}

/** The line above the form after a refused post: how many fields need another answer. */
function summaryOf(problems: Array<string | undefined>, cut: boolean): string {
	const wrong = problems.filter((problem) => problem !== undefined).length;
	if (cut) {
		// n8n 1.x stops reading a post at an empty file field (a page without JavaScript sends one) or
		// at a file over its own limit, and passes on only what came before.
		return '\n<p class="error">Nothing was recorded: this n8n did not pass your whole answer on. It stops at a file field left empty when the page runs without JavaScript, and at a file larger than it takes. Choose a file for each file field and send again.</p>';
	}
	if (wrong === 0) return '';
	return `\n<p id="answer-problem" class="error">Nothing was recorded: ${wrong === 1 ? 'one field needs' : `${wrong} fields need`} another answer.</p>`;
}

/**
 * The page of Free Text and Custom Form: the recipient's message (or the form's description) and
 * the form, posted back to the same link. Plain HTML; a page with a file field adds a small
 * script (allowed by its hash) that checks sizes before sending and shows that it is sending, and
 * works without it. After a refused POST it shows what was given and names each field that is wrong.
 */
export function formPage(
	form: FieldsForm,
	message: string,
	given: Given = [],
	problems: Array<string | undefined> = [],
	cut = false,
): string {
	const hasFile = form.fields.some(({ type }) => type === 'file');
	const upload = hasFile
		? `\n${SENDING}\n<input type="hidden"${attribute('name', WHOLE_POST)} value="1">`
		: '';
	// The script's own line of why nothing was sent stands first in the form.
	const problemLine = hasFile ? `\n${UPLOAD_PROBLEM}` : '';
	return page(
		form.title,
		`<h1>${escapeHtml(form.title)}</h1>
<div class="message">${escapeHtml(form.description ?? message)}</div>${summaryOf(problems, cut)}
${FORM_TAG}${problemLine}
${fieldBlocks(form, given, problems).join('\n')}
<button type="submit">${escapeHtml(form.buttonLabel)}</button>${upload}
</form>
<p class="note">Only the first answer counts.</p>${hasFile ? `\n<script>${UPLOAD_SCRIPT}</script>` : ''}`,
	);
}
