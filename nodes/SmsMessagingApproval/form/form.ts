// The form a recipient answers (approval buttons, Free Text or Custom Form), read from the parameters.
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { fieldsOf, nothingSentError, oneOf } from '../../shared/input/validation';
import { binaryKeyOf, fieldOf, givesAnswer, type FormField } from './fields';

/** Approval: one button, or two. */
export interface ApprovalForm {
	kind: 'approval';
	approveLabel: string;
	/** Absent when the recipient can only approve. */
	disapproveLabel?: string;
}

/** Free Text (one field, out as `text`) or Custom Form: a form the recipient fills in. */
export interface FieldsForm {
	kind: 'freeText' | 'customForm';
	title: string;
	/** Shown instead of each recipient's message when set. */
	description?: string;
	buttonLabel: string;
	fields: FormField[];
}

export type AnswerForm = ApprovalForm | FieldsForm;

/** The one field of Free Text: its value comes out as `data.text`. */
const FREE_TEXT_FIELD: FormField = { label: 'text', type: 'textarea', required: true };

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** Define Form = Using JSON: the JSON array, parsed. */
function jsonFields(this: IExecuteFunctions, where: string): unknown {
	const raw = this.getNodeParameter('jsonOutput', 0, '[]');
	if (typeof raw !== 'string') return raw;
	try {
		return JSON.parse(raw);
	} catch {
		throw nothingSentError(
			this.getNode(),
			`${where} is not valid JSON`,
			'Give a JSON array of fields.',
		);
	}
}

/** The first value that two entries share, if any. */
const twiceIn = (values: string[]) => values.find((value, at) => values.indexOf(value) !== at);

/**
 * Refuses two file fields that could put a file under one binary key: a field's files go under
 * its key (`binaryKeyOf`), with Multiple Files under the key, `_` and the file's position
 * (`Photo_0`, `Photo_1`…), so "Photo" with Multiple Files and "Photo 0" would share `Photo_0`.
 */
function refuseSharedBinaryKeys(node: INode, where: string, fields: FormField[]) {
	const files = fields
		.map((field, position) => ({ field, position, key: binaryKeyOf(field.label) }))
		.filter(({ field }) => field.type === 'file');
	const keyOf = (one: (typeof files)[number], other: (typeof files)[number]) => {
		if (one.key === other.key) return one.key;
		const each = new RegExp(`^${one.key}_\\d+$`);
		return one.field.multipleFiles && !other.field.multipleFiles && each.test(other.key)
			? other.key
			: undefined;
	};
	for (const [at, one] of files.entries()) {
		for (const other of files.slice(at + 1)) {
			const key = keyOf(one, other) ?? keyOf(other, one);
			if (key === undefined) continue;
			const [first, second] = [one, other].map(
				({ field, position }) => `field ${position + 1} (${field.label})`,
			);
			throw nothingSentError(
				node,
				`${where}: ${first} and ${second} would both put a file under ${JSON.stringify(key)}`,
				'A file comes out as binary data under its label with every character other than a letter, digit or _ replaced by _ (and _0, _1… after it with Multiple Files): change one of the labels.',
			);
		}
	}
}

/** Custom Form's fields: the editor's Form Fields, or the JSON of Define Form = Using JSON. */
function readFields(this: IExecuteFunctions): FormField[] {
	const byJson = this.getNodeParameter('defineForm', 0, 'fields') === 'json';
	const where = byJson ? 'Form Fields JSON' : 'Form Fields';
	const raw = byJson
		? jsonFields.call(this, where)
		: this.getNodeParameter('formFields.values', 0, []);
	const node = this.getNode();
	if (!Array.isArray(raw) || raw.length === 0) {
		throw nothingSentError(node, `${where}: the form has no fields`, 'Add at least one field.');
	}
	const fields = raw.map((each, position) => fieldOf(node, each, position, where));
	const twice = twiceIn(fields.filter(givesAnswer).map(({ label }) => label));
	if (twice !== undefined) {
		throw nothingSentError(
			node,
			`${where}: two fields are labelled ${JSON.stringify(twice)}`,
			'Each answer comes out under its label (a hidden field under its Field Name, an html field under its Element Name), so they must differ.',
		);
	}
	refuseSharedBinaryKeys(node, where, fields);
	return fields;
}

/** The page's form as the parameters define it, checked before anything is sent. */
export function readForm(this: IExecuteFunctions): AnswerForm {
	const type = oneOf(
		fieldsOf(this.getNode(), 0)('responseType', 'Response Type'),
		this.getNodeParameter('responseType', 0, 'approval'),
		['approval', 'freeText', 'customForm'],
	);
	if (type === 'approval') {
		const values = this.getNodeParameter('approvalOptions.values', 0, {}) as IDataObject;
		const approveLabel = String(values.approveLabel || 'Approve');
		if (values.approvalType !== 'double') return { kind: 'approval', approveLabel };
		const disapproveLabel = String(values.disapproveLabel || 'Decline');
		return { kind: 'approval', approveLabel, disapproveLabel };
	}
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const form: FieldsForm = {
		kind: type as FieldsForm['kind'],
		title: text(options.responseFormTitle) || 'Your answer is requested',
		buttonLabel: text(options.responseFormButtonLabel) || 'Submit',
		fields: type === 'freeText' ? [FREE_TEXT_FIELD] : readFields.call(this),
	};
	if (text(options.responseFormDescription) !== '') {
		form.description = String(options.responseFormDescription);
	}
	return form;
}
