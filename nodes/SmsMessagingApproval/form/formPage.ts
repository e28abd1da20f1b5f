// The HTML page of Free Text and Custom Form, with what was given back after a refused post.
import { inputName, type Given } from './checks';
import type { FieldsForm, FormField } from './form';
import { escapeHtml, FORM_TAG, page } from './page';

const attribute = (name: string, value: string) => ` ${name}="${escapeHtml(value)}"`;

/** One field's input, with what was given back in it; the browser checks what HTML can. */
function input(field: FormField, id: string, given: string | string[], label: string): string {
	const required = field.required ? ' required' : '';
	const placeholder = field.placeholder ? attribute('placeholder', field.placeholder) : '';
	if (field.type === 'dropdown' && field.multiselect) {
		const chosen = Array.isArray(given) ? given : [given];
		const boxes = field.options!.map(
			(option) =>
				`<label><input type="checkbox"${attribute('name', id)}${attribute('value', option)}${chosen.includes(option) ? ' checked' : ''}>${escapeHtml(option)}</label>`,
		);
		return `<fieldset${attribute('aria-describedby', `${id}-error`)}><legend>${label}</legend>\n${boxes.join('\n')}\n</fieldset>`;
	}
	const labelTag = `<label${attribute('for', id)}>${label}</label>`;
	const value = Array.isArray(given) ? '' : given;
	const common = `${attribute('id', id)}${attribute('name', id)}${required}${attribute('aria-describedby', `${id}-error`)}`;
	if (field.type === 'dropdown') {
		const options = ['', ...field.options!].map(
			(option) =>
				`<option${attribute('value', option)}${option === value && option !== '' ? ' selected' : ''}>${escapeHtml(option || 'Choose…')}</option>`,
		);
		return `${labelTag}\n<select${common}>\n${options.join('\n')}\n</select>`;
	}
	if (field.type === 'textarea') {
		return `${labelTag}\n<textarea${common}${placeholder}>${escapeHtml(value)}</textarea>`;
	}
	const extra = field.type === 'number' ? ' step="any"' : '';
	return `${labelTag}\n<input${attribute('type', field.type)}${common}${placeholder}${extra}${attribute('value', value)}>`;
}

/**
 * The page of Free Text and Custom Form: the recipient's message (or the form's description) and
 * the form, posted back to the same link. Plain HTML, no script. After a refused POST it shows
 * what was given and names each field that is wrong.
 */
export function formPage(
	form: FieldsForm,
	message: string,
	given: Given = [],
	problems: Array<string | undefined> = [],
): string {
	const fields = form.fields.map((field, position) => {
		const id = inputName(position);
		const shown = form.kind === 'freeText' ? 'Your answer' : field.label;
		const label = `${escapeHtml(shown)}${field.required ? '<span class="req"> *</span>' : ''}`;
		const problem = problems[position];
		const error =
			problem === undefined
				? ''
				: `\n<p class="error"${attribute('id', `${id}-error`)}>${escapeHtml(`${shown}: ${problem}`)}</p>`;
		return `<div>\n${input(field, id, given[position] ?? '', label)}${error}\n</div>`;
	});
	const wrong = problems.filter((problem) => problem !== undefined).length;
	const summary =
		wrong === 0
			? ''
			: `\n<p class="error">Nothing was recorded: ${wrong === 1 ? 'one field needs' : `${wrong} fields need`} another answer.</p>`;
	return page(
		form.title,
		`<h1>${escapeHtml(form.title)}</h1>
<div class="message">${escapeHtml(form.description ?? message)}</div>${summary}
${FORM_TAG}
${fields.join('\n')}
<button type="submit">${escapeHtml(form.buttonLabel)}</button>
</form>
<p class="note">Only the first answer counts.</p>`,
	);
}
