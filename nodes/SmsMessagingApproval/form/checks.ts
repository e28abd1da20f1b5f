// Checks what a recipient posted in a Free Text or Custom Form page, field by field.
import type { IDataObject } from 'n8n-workflow';

import { apiTime } from '../../shared/input/apiTime';
import type { FieldsForm } from './form';
import { givesAnswer, type FormField } from './fields';
import { fileProblem, fileSummaries, type PostedFile } from './files';

/** The name of a field's input in the page's form: its position, whatever its label. */
export const inputName = (position: number) => `field-${position}`;

/**
 * The last input of a page with a file field: n8n 1.x stops reading a post at a file it cannot
 * take and hands the node what came before, so a post without it did not arrive whole.
 */
export const WHOLE_POST = 'whole';

/** What a POST of the form gave for each field, as the page shows it back (a file field: the names received). */
export type Given = Array<string | string[]>;

type Checked =
	| { ok: true; data: IDataObject; given: Given }
	| { ok: false; given: Given; problems: Array<string | undefined>; cut?: boolean };

/** The longest answer a text field takes (the answer becomes execution data). */
const MAX_LENGTH = 10_000;
const EMAIL = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether a field takes a list of options. */
const isList = (field: FormField) => field.type === 'checkbox' || field.multiselect === true;

function givenOf(field: FormField, raw: unknown): string | string[] | undefined {
	const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
	if (!list.every((entry) => typeof entry === 'string')) return undefined;
	if (isList(field)) return list as string[];
	return list.length <= 1 ? ((list[0] as string | undefined) ?? '') : undefined;
}

/** What Limit Selection asks, in words. */
export function selectionRule({ min, max }: { min: number; max: number }): string {
	if (min === max) return `Choose exactly ${min} option${min === 1 ? '' : 's'}.`;
	return min === 0 ? `Choose at most ${max} options.` : `Choose from ${min} to ${max} options.`;
}

/** A list's value (checkboxes, a multiselect dropdown), or what is wrong with it. */
function checkList(field: FormField, given: string[]): { value?: unknown; problem?: string } {
	const unknown = given.find((entry) => !field.options!.includes(entry));
	if (unknown !== undefined || new Set(given).size < given.length) {
		return { problem: 'Choose options of the list, each once.' };
	}
	if (given.length === 0) {
		if (!field.required) return { value: [] };
		return {
			problem: field.selections ? selectionRule(field.selections) : 'Choose at least one option.',
		};
	}
	const { min, max } = field.selections ?? { min: 0, max: Infinity };
	if (given.length < min || given.length > max)
		return { problem: selectionRule(field.selections!) };
	return { value: given };
}

/** A value typed or chosen, as the output gives it, or what is wrong with it. */
function checkValue(field: FormField, value: string): { value?: unknown; problem?: string } {
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
		case 'radio':
			return field.options!.includes(value)
				? { value }
				: { problem: 'Choose an option of the list.' };
		default:
			return { value };
	}
}

/** One field's value as the output gives it, or what is wrong with it. */
function check(field: FormField, given: string | string[]): { value?: unknown; problem?: string } {
	if (Array.isArray(given)) return checkList(field, given);
	// As n8n's forms give them: a textarea and a password as typed, the rest trimmed.
	const value = field.type === 'textarea' || field.type === 'password' ? given : given.trim();
	if (value === '' || (field.type !== 'password' && value.trim() === '')) {
		if (field.required) {
			return { problem: field.type === 'radio' ? 'Choose an option.' : 'This field is required.' };
		}
		return { value: field.type === 'number' ? null : '' };
	}
	if (value.length > MAX_LENGTH) return { problem: `Enter at most ${MAX_LENGTH} characters.` };
	return checkValue(field, value);
}

/** One field's answer: its value and what the page shows back, or what is wrong with it. */
function answerOf(
	field: FormField,
	raw: unknown,
	files: PostedFile[],
): { value?: unknown; problem?: string; given: string | string[] } {
	// What the node set is the answer, whatever a client posts.
	if (field.type === 'hiddenField') return { value: field.value, given: '' };
	if (field.type === 'html') return { value: field.html, given: '' };
	if (field.type === 'file') {
		const problem = fileProblem(field, files);
		const given = files.map((file) => file.originalFilename ?? '');
		return problem ? { problem, given } : { value: fileSummaries(field, files), given };
	}
	const given = givenOf(field, raw);
	if (given === undefined) return { problem: 'Give one value.', given: isList(field) ? [] : '' };
	const result = check(field, given);
	// A password is never sent back to the page.
	return { ...result, given: field.type === 'password' ? '' : given };
}

/**
 * The answer a POST of the form gives: each field checked as the page checks it (required, a
 * number, an e-mail address, a real date, an option of the list, how many boxes, a file's type
 * and size), the output keyed by label with typed values; or, when any field fails, what was
 * given and what is wrong with each field. Files are checked by what they say of themselves
 * here, by their content once stored (files.ts).
 */
export function checkAnswer(
	form: FieldsForm,
	body: IDataObject,
	filesOf: (name: string) => PostedFile[] = () => [],
): Checked {
	// Entries, made an object at the end: a label such as "__proto__" stays a key of its own.
	const entries: Array<[string, IDataObject[string]]> = [];
	const given: Given = [];
	const problems: Array<string | undefined> = [];
	form.fields.forEach((field, position) => {
		const name = inputName(position);
		const result = answerOf(field, body[name], field.type === 'file' ? filesOf(name) : []);
		given.push(result.given);
		problems.push(result.problem);
		if (result.problem === undefined && givesAnswer(field)) {
			entries.push([field.label, result.value as IDataObject[string]]);
		}
	});
	const cut = form.fields.some(({ type }) => type === 'file') && body[WHOLE_POST] !== '1';
	if (cut || problems.some((problem) => problem !== undefined)) {
		return { ok: false, given, problems, cut };
	}
	return { ok: true, data: Object.fromEntries(entries) as IDataObject, given };
}
