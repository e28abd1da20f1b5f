// One Custom Form field as the editor's Form Fields or the JSON gives it, checked before anything is sent.
import type { IDataObject, INode } from 'n8n-workflow';

import { nothingSentError } from '../../shared/input/validation';
import { sanitizeHtml } from './sanitizeHtml';

/** The twelve field types of n8n's own forms. */
const FIELD_TYPES = [
	'text',
	'textarea',
	'email',
	'number',
	'password',
	'date',
	'dropdown',
	'checkbox',
	'radio',
	'file',
	'hiddenField',
	'html',
] as const;
type FieldType = (typeof FIELD_TYPES)[number];

/** One field of the page's form; its answer comes out under its label. */
export interface FormField {
	/**
	 * The key of its answer in `data` and what the page shows above it: the Field Label, a hidden
	 * field's Field Name, an html field's Element Name ('' when it has none: then it gives no answer).
	 */
	label: string;
	type: FieldType;
	placeholder?: string;
	required: boolean;
	/** The options of a dropdown, of checkboxes and of radio buttons. */
	options?: string[];
	/** A dropdown that takes several options. */
	multiselect?: boolean;
	/** Checkboxes: how many may be ticked (Limit Selection); absent: any number. */
	selections?: { min: number; max: number };
	/** A file field that takes several files. */
	multipleFiles?: boolean;
	/** A file field's Accepted File Types, normalised (`.jpg,image/*`); absent: any file. */
	accept?: string;
	/** The largest file a file field takes, in bytes. */
	maxBytes?: number;
	/** How many files a file field with Multiple Files takes at most. */
	maxFiles?: number;
	/** A hidden field's value: always this one, whatever a client posts. */
	value?: string;
	/** An html field's HTML, sanitized. */
	html?: string;
}

/** Whether a field's answer comes out in `data` (an html field only with an Element Name). */
export const givesAnswer = (field: FormField) => field.type !== 'html' || field.label !== '';

/** Where a file field's files go on the item, as n8n's Form node names them: `Meter photo` → `Meter_photo`. */
export const binaryKeyOf = (label: string) => label.replace(/\W/g, '_');

/** A file field's default limit, and the most it can be: n8n's own multipart limit (N8N_FORMDATA_FILE_SIZE_MAX). */
const DEFAULT_MAX_MB = 25;
const LARGEST_MAX_MB = 200;

/** Max Files by default: more than a person sends in one answer; a cap on what a link can make n8n store. */
const DEFAULT_MAX_FILES = 50;
const LARGEST_MAX_FILES = 1000;

/** One megabyte, as Max File Size (MB) counts it: decimal, as phones and n8n show sizes. */
const MB = 1_000_000;

/** A size as the page says it: `12.4 MB`, `25 MB`. */
export const megabytes = (bytes: number) =>
	`${Number((bytes / MB).toFixed(bytes % MB === 0 ? 0 : 1))} MB`;

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** What a field's errors call it: `Form Fields: field 2 (Photo)`. */
type Named = { node: INode; name: string };

function refused({ node, name }: Named, problem: string, hint: string): never {
	throw nothingSentError(node, `${name} ${problem}`, hint);
}

/** The key and label of a field: its Field Label, a hidden field's Field Name, an html field's Element Name. */
function labelOf(named: Named, type: FieldType, values: IDataObject): string {
	if (type === 'html') return text(values.elementName);
	if (type === 'hiddenField') {
		const fieldName = text(values.fieldName);
		if (fieldName === '') {
			refused(named, 'has no Field Name', 'A hidden field gives its value under its Field Name.');
		}
		return fieldName;
	}
	const label = text(values.fieldLabel);
	if (label === '') {
		refused(
			named,
			'has no Field Label',
			'Each field needs a label: its answer comes out under it.',
		);
	}
	return label;
}

/** The options of a dropdown, of checkboxes or of radio buttons: at least one, each once. */
function optionsOf(named: Named, type: FieldType, values: IDataObject): string[] {
	const listed = (values.fieldOptions as IDataObject | undefined)?.values ?? [];
	const options = (Array.isArray(listed) ? (listed as IDataObject[]) : []).map((entry) =>
		text(entry?.option),
	);
	if (options.length === 0 || options.includes('') || new Set(options).size < options.length) {
		const what = { dropdown: 'a dropdown', checkbox: 'checkboxes', radio: 'radio buttons' }[
			type as 'dropdown'
		];
		const need = type === 'dropdown' ? 'needs its' : 'need their';
		refused(
			named,
			`${what} ${need} options, each one given once`,
			'Add the options under Field Options.',
		);
	}
	return options;
}

/** A whole number of at least `min`, or the default when not given. */
function countOf(
	named: Named,
	value: unknown,
	label: string,
	fallback: number,
	min: number,
): number {
	if (value === undefined || value === null || value === '') return fallback;
	const count = Number(value);
	if (!Number.isInteger(count) || count < min) {
		refused(
			named,
			`${label} must be a whole number of at least ${min}, not ${JSON.stringify(value)}`,
			'Set how many boxes may be ticked.',
		);
	}
	return count;
}

/** Checkboxes' Limit Selection: exactly N, from min to max, or any number (n8n's defaults: 1, 0 and 1). */
function selectionsOf(named: Named, values: IDataObject, options: number): FormField['selections'] {
	const limit = values.limitSelection ?? 'unlimited';
	if (limit === 'unlimited') return undefined;
	let min: number;
	let max: number;
	if (limit === 'exact') {
		min = max = countOf(named, values.numberOfSelections, 'Number of Selections', 1, 1);
	} else if (limit === 'range') {
		min = countOf(named, values.minSelections, 'Minimum Selections', 0, 0);
		max = countOf(named, values.maxSelections, 'Maximum Selections', 1, Math.max(1, min));
	} else {
		refused(
			named,
			`Limit Selection must be exact, range or unlimited, not ${JSON.stringify(limit)}`,
			'Choose how many boxes may be ticked.',
		);
	}
	if (min > options) {
		refused(
			named,
			`asks for at least ${min} of ${options} boxes`,
			'Lower the number of selections, or add options.',
		);
	}
	return { min, max };
}

/** Accepted File Types, each an extension (`.jpg`; `jpg` reads as `.jpg`) or a content type (`image/*`). */
function acceptOf(named: Named, value: unknown): string | undefined {
	const entries = String(value ?? '')
		.split(',')
		.map((entry) => entry.trim().toLowerCase())
		.filter((entry) => entry !== '')
		.map((entry) => (/^[a-z0-9][a-z0-9+_-]*$/.test(entry) ? `.${entry}` : entry));
	const wrong = entries.find(
		(entry) =>
			!/^\.[a-z0-9][a-z0-9+_-]*$/.test(entry) &&
			!/^[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/.test(entry),
	);
	if (wrong !== undefined) {
		refused(
			named,
			`Accepted File Types: ${JSON.stringify(wrong)} is neither an extension nor a content type`,
			'Give extensions such as .jpg, .png or content types such as image/*, separated by commas.',
		);
	}
	return entries.length ? entries.join(',') : undefined;
}

/** A file field's limit in bytes, from Max File Size (MB). */
function maxBytesOf(named: Named, value: unknown): number {
	const mb = value === undefined || value === null || value === '' ? DEFAULT_MAX_MB : Number(value);
	if (!Number.isFinite(mb) || mb <= 0 || mb > LARGEST_MAX_MB) {
		refused(
			named,
			`Max File Size (MB) must be above 0 and at most ${LARGEST_MAX_MB}, not ${JSON.stringify(value)}`,
			`n8n itself takes no file over ${LARGEST_MAX_MB} MB unless N8N_FORMDATA_FILE_SIZE_MAX says otherwise.`,
		);
	}
	return Math.floor(mb * MB);
}

/** Max Files: a whole number from 1 to 1,000, 50 when not given. */
function maxFilesOf(named: Named, value: unknown): number {
	if (value === undefined || value === null || value === '') return DEFAULT_MAX_FILES;
	const count = Number(value);
	if (!Number.isInteger(count) || count < 1 || count > LARGEST_MAX_FILES) {
		refused(
			named,
			`Max Files must be a whole number from 1 to ${LARGEST_MAX_FILES}, not ${JSON.stringify(value)}`,
			'Set how many files one answer may hold.',
		);
	}
	return count;
}

/** What a field of `type` adds to the common ones. */
function extrasOf(named: Named, type: FieldType, values: IDataObject): Partial<FormField> {
	switch (type) {
		case 'dropdown':
			return { options: optionsOf(named, type, values), multiselect: values.multiselect === true };
		case 'radio':
			return { options: optionsOf(named, type, values) };
		case 'checkbox': {
			const options = optionsOf(named, type, values);
			const selections = selectionsOf(named, values, options.length);
			return selections ? { options, selections } : { options };
		}
		case 'file': {
			const accept = acceptOf(named, values.acceptFileTypes);
			const multipleFiles = values.multipleFiles === true;
			const file = {
				multipleFiles,
				maxBytes: maxBytesOf(named, values.maxFileSizeMb),
				maxFiles: multipleFiles ? maxFilesOf(named, values.maxFiles) : 1,
			};
			return accept ? { ...file, accept } : file;
		}
		case 'hiddenField':
			return {
				value:
					values.fieldValue === undefined || values.fieldValue === null
						? ''
						: String(values.fieldValue),
			};
		case 'html':
			return { html: sanitizeHtml(String(values.html ?? '')) };
		default:
			return text(values.placeholder) === '' ? {} : { placeholder: text(values.placeholder) };
	}
}

/** One field as the editor's Form Fields or the JSON gives it, checked. */
export function fieldOf(node: INode, raw: unknown, position: number, where: string): FormField {
	const named = { node, name: `${where}: field ${position + 1}` };
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
		refused(named, 'is not an object', 'Each field is an object with a fieldLabel.');
	}
	const values = raw as IDataObject;
	const type = (values.fieldType ?? 'text') as FieldType;
	const label = labelOf(named, FIELD_TYPES.includes(type) ? type : 'text', values);
	named.name = `${named.name} (${label || type}):`;
	if (!FIELD_TYPES.includes(type)) {
		refused(
			named,
			`Element Type must be one of ${FIELD_TYPES.join(', ')}, got ${JSON.stringify(values.fieldType)}`,
			'Choose one of the types the page offers.',
		);
	}
	// n8n's binary data is a plain object: a file under "__proto__" would set its prototype instead.
	if (type === 'file' && binaryKeyOf(label) === '__proto__') {
		refused(
			named,
			'would put its file under "__proto__", which n8n\'s binary data cannot hold',
			'A file comes out as binary data under its label with every character other than a letter, digit or _ replaced by _: change the label.',
		);
	}
	// A hidden field always gives its value, an html field shows only: neither can be required.
	const required = values.requiredField === true && type !== 'hiddenField' && type !== 'html';
	return { label, type, required, ...extrasOf(named, type, values) };
}
