// The Free Text and Custom Form parameters, named as on n8n's own send-and-wait nodes.
import type { INodeProperties } from 'n8n-workflow';

// Free Text and Custom Form, with the parameter names of n8n's own send-and-wait nodes.

const showForCustomForm = { show: { responseType: ['customForm'] } };

const fieldValues: INodeProperties[] = [
	{
		displayName: 'Field Label',
		name: 'fieldLabel',
		type: 'string',
		default: '',
		placeholder: 'e.g. Meter reading',
		description: 'Shown above the field; the answer comes out under this label',
		required: true,
	},
	{
		displayName: 'Element Type',
		name: 'fieldType',
		type: 'options',
		default: 'text',
		options: [
			{ name: 'Date', value: 'date', description: 'Comes out as YYYY-MM-DD' },
			{ name: 'Dropdown List', value: 'dropdown' },
			{ name: 'Email', value: 'email' },
			{ name: 'Number', value: 'number', description: 'Comes out as a number' },
			{ name: 'Text', value: 'text' },
			{ name: 'Textarea', value: 'textarea' },
		],
	},
	{
		displayName: 'Placeholder',
		name: 'placeholder',
		type: 'string',
		default: '',
		displayOptions: { hide: { fieldType: ['dropdown', 'date'] } },
	},
	{
		displayName: 'Field Options',
		name: 'fieldOptions',
		placeholder: 'Add Field Option',
		type: 'fixedCollection',
		default: { values: [{ option: '' }] },
		required: true,
		displayOptions: { show: { fieldType: ['dropdown'] } },
		typeOptions: { multipleValues: true, sortable: true },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [{ displayName: 'Option', name: 'option', type: 'string', default: '' }],
			},
		],
	},
	{
		displayName: 'Multiple Choice',
		name: 'multiselect',
		type: 'boolean',
		default: false,
		description: 'Whether several options can be chosen; the answer is then a list',
		displayOptions: { show: { fieldType: ['dropdown'] } },
	},
	{
		displayName: 'Required Field',
		name: 'requiredField',
		type: 'boolean',
		default: false,
		description: 'Whether the recipient must fill this field in',
	},
];

export const formProperties: INodeProperties[] = [
	{
		displayName: 'Define Form',
		name: 'defineForm',
		type: 'options',
		noDataExpression: true,
		default: 'fields',
		options: [
			{ name: 'Using Fields Below', value: 'fields' },
			{ name: 'Using JSON', value: 'json' },
		],
		displayOptions: showForCustomForm,
	},
	{
		displayName: 'Form Fields',
		name: 'formFields',
		placeholder: 'Add Form Field',
		type: 'fixedCollection',
		default: {},
		typeOptions: { multipleValues: true, sortable: true },
		displayOptions: { show: { responseType: ['customForm'], defineForm: ['fields'] } },
		options: [{ displayName: 'Values', name: 'values', values: fieldValues }],
	},
	{
		displayName: 'Form Fields',
		name: 'jsonOutput',
		type: 'json',
		typeOptions: { rows: 5 },
		default:
			'[\n  {\n    "fieldLabel": "Meter reading",\n    "fieldType": "number",\n    "requiredField": true\n  }\n]',
		description:
			'A JSON array of fields, each with fieldLabel, fieldType (text, textarea, email, number, date, dropdown), placeholder, requiredField and, for a dropdown, fieldOptions: { values: [{ option }] } and multiselect',
		displayOptions: { show: { responseType: ['customForm'], defineForm: ['json'] } },
	},
];

/** Options of the page's form (Free Text and Custom Form), inside the node's Options. */
export const formOptions: INodeProperties[] = [
	{
		displayName: 'Form Title',
		name: 'responseFormTitle',
		type: 'string',
		default: '',
		placeholder: 'e.g. Your answer is requested',
		description: 'Title of the page behind the link',
		displayOptions: { show: { '/responseType': ['freeText', 'customForm'] } },
	},
	{
		displayName: 'Form Description',
		name: 'responseFormDescription',
		type: 'string',
		default: '',
		description: "Text above the form; empty shows each recipient's own message",
		displayOptions: { show: { '/responseType': ['freeText', 'customForm'] } },
	},
	{
		displayName: 'Button Label',
		name: 'responseFormButtonLabel',
		type: 'string',
		default: 'Submit',
		displayOptions: { show: { '/responseType': ['freeText', 'customForm'] } },
	},
];
