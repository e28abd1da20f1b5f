// The Free Text and Custom Form parameters, named as on n8n's own send-and-wait nodes.
import type { INodeProperties } from 'n8n-workflow';

const showForCustomForm = { show: { responseType: ['customForm'] } };

/** The options of a dropdown, of checkboxes or of radio buttons: one fixedCollection per type, as n8n shows them. */
const optionsOf = (
	fieldType: string,
	displayName: string,
	placeholder: string,
	optionName: string,
): INodeProperties => ({
	displayName,
	name: 'fieldOptions',
	placeholder,
	type: 'fixedCollection',
	default: { values: [{ option: '' }] },
	required: true,
	displayOptions: { show: { fieldType: [fieldType] } },
	typeOptions: { multipleValues: true, sortable: true },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [{ displayName: optionName, name: 'option', type: 'string', default: '' }],
		},
	],
});

/** Shown for checkboxes with this Limit Selection. */
const showForLimit = (limit: string) => ({
	show: { fieldType: ['checkbox'], limitSelection: [limit] },
});

const showForFile = { show: { fieldType: ['file'] } };

const fieldValues: INodeProperties[] = [
	{
		displayName: 'Field Label',
		name: 'fieldLabel',
		type: 'string',
		default: '',
		placeholder: 'e.g. Meter reading',
		description: 'Shown above the field; the answer comes out under this label',
		required: true,
		displayOptions: { hide: { fieldType: ['hiddenField', 'html'] } },
	},
	{
		displayName: 'Field Name',
		name: 'fieldName',
		type: 'string',
		default: '',
		placeholder: 'e.g. orderId',
		description: 'The value comes out under this name',
		displayOptions: { show: { fieldType: ['hiddenField'] } },
	},
	{
		displayName: 'Element Type',
		name: 'fieldType',
		type: 'options',
		default: 'text',
		description: 'The type of field to add to the form',
		options: [
			{
				name: 'Checkboxes',
				value: 'checkbox',
				description: 'Comes out as a list of the ticked options',
			},
			{
				name: 'Custom HTML',
				value: 'html',
				description: 'Shown on the page (no script); no answer unless it has an Element Name',
			},
			{ name: 'Date', value: 'date', description: 'Comes out as YYYY-MM-DD' },
			{ name: 'Dropdown', value: 'dropdown' },
			{ name: 'Email', value: 'email' },
			{
				name: 'File',
				value: 'file',
				description:
					'A photo or a document: comes out as binary data, and as { filename, mimetype, size }',
			},
			{
				name: 'Hidden Field',
				value: 'hiddenField',
				description: 'Not on the page: always gives its Field Value',
			},
			{ name: 'Number', value: 'number', description: 'Comes out as a number' },
			{ name: 'Password', value: 'password', description: 'Comes out as typed' },
			{
				name: 'Radio Buttons',
				value: 'radio',
				description: 'Comes out as the chosen option',
			},
			{ name: 'Text Input', value: 'text' },
			{ name: 'Textarea', value: 'textarea' },
		],
	},
	{
		displayName: 'Element Name',
		name: 'elementName',
		type: 'string',
		default: '',
		placeholder: 'e.g. terms',
		description: 'Optional: with a name, the HTML comes out under it',
		displayOptions: { show: { fieldType: ['html'] } },
	},
	{
		displayName: 'Placeholder',
		name: 'placeholder',
		type: 'string',
		default: '',
		displayOptions: {
			hide: {
				fieldType: ['dropdown', 'date', 'file', 'html', 'hiddenField', 'radio', 'checkbox'],
			},
		},
	},
	{
		displayName: 'Field Value',
		name: 'fieldValue',
		type: 'string',
		default: '',
		description: 'The value the answer always carries under Field Name, whatever a browser posts',
		displayOptions: { show: { fieldType: ['hiddenField'] } },
	},
	optionsOf('dropdown', 'Field Options', 'Add Field Option', 'Option'),
	optionsOf('checkbox', 'Checkboxes', 'Add Checkbox', 'Checkbox Label'),
	optionsOf('radio', 'Radio Buttons', 'Add Radio Button', 'Radio Button Label'),
	{
		displayName: 'Multiple Choice',
		name: 'multiselect',
		type: 'boolean',
		default: false,
		description: 'Whether several options can be chosen; the answer is then a list',
		displayOptions: { show: { fieldType: ['dropdown'] } },
	},
	{
		displayName: 'Limit Selection',
		name: 'limitSelection',
		type: 'options',
		default: 'unlimited',
		description:
			'How many boxes may be ticked: the page says so, and the node refuses any other count',
		options: [
			{ name: 'Exact Number', value: 'exact' },
			{ name: 'Range', value: 'range' },
			{ name: 'Unlimited', value: 'unlimited' },
		],
		displayOptions: { show: { fieldType: ['checkbox'] } },
	},
	{
		displayName: 'Number of Selections',
		name: 'numberOfSelections',
		type: 'number',
		default: 1,
		typeOptions: { numberPrecision: 0, minValue: 1 },
		displayOptions: showForLimit('exact'),
	},
	{
		displayName: 'Minimum Selections',
		name: 'minSelections',
		type: 'number',
		default: 0,
		typeOptions: { numberPrecision: 0, minValue: 0 },
		displayOptions: showForLimit('range'),
	},
	{
		displayName: 'Maximum Selections',
		name: 'maxSelections',
		type: 'number',
		default: 1,
		typeOptions: { numberPrecision: 0, minValue: 1 },
		displayOptions: showForLimit('range'),
	},
	{
		displayName: 'HTML',
		name: 'html',
		type: 'string',
		typeOptions: { editor: 'htmlEditor' },
		noDataExpression: true,
		default: '<!-- Your HTML here -->\n',
		description: 'Shown on the page',
		hint: 'Scripts, styles, event handlers and forms are removed; links and images only to https',
		displayOptions: { show: { fieldType: ['html'] } },
	},
	{
		displayName: 'Multiple Files',
		name: 'multipleFiles',
		type: 'boolean',
		default: true,
		description:
			'Whether the recipient can send several files; they then come out as a list, and as binary data with _0, _1… after the label',
		displayOptions: showForFile,
	},
	{
		displayName: 'Max Files',
		name: 'maxFiles',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1, maxValue: 1000 },
		description:
			'How many files one answer may hold; more are refused before any is stored, and the page says so before the upload',
		displayOptions: { show: { fieldType: ['file'], multipleFiles: [true] } },
	},
	{
		displayName: 'Accepted File Types',
		name: 'acceptFileTypes',
		type: 'string',
		default: '',
		placeholder: 'e.g. image/* or .jpg, .png',
		description:
			"Comma-separated extensions or content types; image/* offers a phone's camera. The node checks each file's name, type and content.",
		hint: 'Leave empty to allow all file types',
		displayOptions: showForFile,
	},
	{
		displayName: 'Max File Size (MB)',
		name: 'maxFileSizeMb',
		type: 'number',
		default: 25,
		typeOptions: { minValue: 0.01, maxValue: 200, numberPrecision: 2 },
		description:
			"The largest file the field takes; the page says so and a larger file is refused. At most 200 (n8n's own limit, N8N_FORMDATA_FILE_SIZE_MAX).",
		displayOptions: showForFile,
	},
	{
		displayName: 'Required Field',
		name: 'requiredField',
		type: 'boolean',
		default: false,
		description: 'Whether the recipient must fill this field in',
		displayOptions: { hide: { fieldType: ['hiddenField', 'html'] } },
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
			'A JSON array of fields, each with fieldLabel, fieldType (text, textarea, email, number, password, date, dropdown, checkbox, radio, file, hiddenField, html), placeholder and requiredField; for dropdown, checkbox and radio fieldOptions: { values: [{ option }] }; for dropdown multiselect; for checkbox limitSelection (exact, range, unlimited) with numberOfSelections, minSelections, maxSelections; for file multipleFiles, maxFiles, acceptFileTypes and maxFileSizeMb; for hiddenField fieldName and fieldValue; for html html and elementName',
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
