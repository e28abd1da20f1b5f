// The form a recipient answers (approval buttons, Free Text or Custom Form), read from the parameters.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fieldsOf, nothingSentError, oneOf } from '../../shared/input/validation';

const FIELD_TYPES = ['text', 'textarea', 'email', 'number', 'date', 'dropdown'] as const;
type FieldType = (typeof FIELD_TYPES)[number];

/** One field of the page's form; its answer comes out under its label. */
export interface FormField {
	label: string;
	type: FieldType;
	placeholder?: string;
	required: boolean;
	/** A dropdown's options. */
	options?: string[];
	multiselect?: boolean;
}

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

/** One field as the editor's Form Fields or the JSON gives it, checked. */
function fieldOf(
	this: IExecuteFunctions,
	raw: unknown,
	position: number,
	where: string,
): FormField {
	const name = `${where}: field ${position + 1}`;
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
		throw nothingSentError(
			this.getNode(),
			`${name} is not an object`,
			'Each field is an object with a fieldLabel.',
		);
	}
	const values = raw as IDataObject;
	const label = text(values.fieldLabel);
	if (label === '') {
		throw nothingSentError(
			this.getNode(),
			`${name} has no Field Label`,
			'Each field needs a label: its answer comes out under it.',
		);
	}
	const type = values.fieldType ?? 'text';
	if (!FIELD_TYPES.includes(type as FieldType)) {
		throw nothingSentError(
			this.getNode(),
			`${name} (${label}): Element Type must be one of ${FIELD_TYPES.join(', ')}, got ${JSON.stringify(type)}`,
			'Choose one of the types the page offers.',
		);
	}
	const field: FormField = {
		label,
		type: type as FieldType,
		required: values.requiredField === true,
	};
	if (text(values.placeholder) !== '') field.placeholder = text(values.placeholder);
	if (type !== 'dropdown') return field;
	const listed = ((values.fieldOptions as IDataObject | undefined)?.values ?? []) as IDataObject[];
	const options = (Array.isArray(listed) ? listed : []).map((entry) => text(entry?.option));
	if (options.length === 0 || options.includes('') || new Set(options).size < options.length) {
		throw nothingSentError(
			this.getNode(),
			`${name} (${label}): a dropdown needs its options, each one given once`,
			'Add the options under Field Options.',
		);
	}
	return { ...field, options, multiselect: values.multiselect === true };
}

/** Custom Form's fields: the editor's Form Fields, or the JSON of Define Form = Using JSON. */
function readFields(this: IExecuteFunctions): FormField[] {
	const defineForm = this.getNodeParameter('defineForm', 0, 'fields');
	let raw: unknown;
	let where = 'Form Fields';
	if (defineForm === 'json') {
		where = 'Form Fields JSON';
		raw = this.getNodeParameter('jsonOutput', 0, '[]');
		if (typeof raw === 'string') {
			try {
				raw = JSON.parse(raw);
			} catch {
				throw nothingSentError(
					this.getNode(),
					`${where} is not valid JSON`,
					'Give a JSON array of fields.',
				);
			}
		}
	} else {
		raw = this.getNodeParameter('formFields.values', 0, []);
	}
	if (!Array.isArray(raw) || raw.length === 0) {
		throw nothingSentError(
			this.getNode(),
			`${where}: the form has no fields`,
			'Add at least one field.',
		);
	}
	const fields = raw.map((each, position) => fieldOf.call(this, each, position, where));
	const labels = fields.map(({ label }) => label);
	const twice = labels.find((label, position) => labels.indexOf(label) !== position);
	if (twice !== undefined) {
		throw nothingSentError(
			this.getNode(),
			`${where}: two fields are labelled ${JSON.stringify(twice)}`,
			'Each answer comes out under its label, so labels must differ.',
		);
	}
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
