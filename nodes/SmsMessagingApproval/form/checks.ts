// Checks what a recipient posted in a Free Text or Custom Form page, field by field.
import type { IDataObject } from 'n8n-workflow';

import { apiTime } from '../../shared/input/apiTime';
import type { FieldsForm, FormField } from './form';

/** The name of a field's input in the page's form: its position, whatever its label. */
export const inputName = (position: number) => `field-${position}`;

/** What a POST of the form gave for each field, as the page shows it back. */
export type Given = Array<string | string[]>;

type Checked =
	| { ok: true; data: IDataObject }
	| { ok: false; given: Given; problems: Array<string | undefined> };

/** The longest answer a text field takes (the answer becomes execution data). */
const MAX_LENGTH = 10_000;
const EMAIL = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function givenOf(field: FormField, raw: unknown): string | string[] | undefined {
	const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
	if (!list.every((entry) => typeof entry === 'string')) return undefined;
	if (field.multiselect) return list as string[];
	return list.length <= 1 ? ((list[0] as string | undefined) ?? '') : undefined;
}

/** One field's value as the output gives it, or what is wrong with it. */
function check(field: FormField, given: string | string[]): { value?: unknown; problem?: string } {
	if (Array.isArray(given)) {
		if (given.length === 0) {
			return field.required ? { problem: 'Choose at least one option.' } : { value: [] };
		}
		const unknown = given.find((entry) => !field.options!.includes(entry));
		if (unknown !== undefined || new Set(given).size < given.length) {
			return { problem: 'Choose options of the list, each once.' };
		}
		return { value: given };
	}
	const value = field.type === 'text' || field.type === 'textarea' ? given : given.trim();
	if (value.trim() === '') {
		if (field.required) return { problem: 'This field is required.' };
		return { value: field.type === 'number' ? null : '' };
	}
	if (value.length > MAX_LENGTH) return { problem: `Enter at most ${MAX_LENGTH} characters.` };
	switch (field.type) {
		case 'email':
			return EMAIL.test(value) ? { value } : { problem: 'Enter an e-mail address.' };
		case 'number':
			return NUMBER.test(value) && Number.isFinite(Number(value))
				? { value: Number(value) }
				: { problem: 'Enter a number.' };
		case 'date':
			// apiTime reads a day that does not exist (30 February) as NaN.
			return DATE.test(value) && !Number.isNaN(apiTime(value))
				? { value }
				: { problem: 'Enter a date (YYYY-MM-DD).' };
		case 'dropdown':
			return field.options!.includes(value)
				? { value }
				: { problem: 'Choose an option of the list.' };
		default:
			return { value };
	}
}

/**
 * The answer a POST of the form gives: each field checked as the page checks it (required, a
 * number, an e-mail address, a real date, an option of the list), the output keyed by label with
 * typed values; or, when any field fails, what was given and what is wrong with each field.
 */
export function checkAnswer(form: FieldsForm, body: IDataObject): Checked {
	// Entries, made an object at the end: a label such as "__proto__" stays a key of its own.
	const entries: Array<[string, IDataObject[string]]> = [];
	const given: Given = [];
	const problems: Array<string | undefined> = [];
	form.fields.forEach((field, position) => {
		const raw = givenOf(field, body[inputName(position)]);
		given.push(raw ?? (field.multiselect ? [] : ''));
		const result =
			raw === undefined ? { problem: 'Give one value.', value: undefined } : check(field, raw);
		problems.push(result.problem);
		if (result.problem === undefined)
			entries.push([field.label, result.value as IDataObject[string]]);
	});
	if (problems.some((problem) => problem !== undefined)) return { ok: false, given, problems };
	return { ok: true, data: Object.fromEntries(entries) as IDataObject };
}
