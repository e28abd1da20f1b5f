// A Custom Form with a field of every type n8n's form offers, as the approval node's Form Fields
// parameter holds them (unit and end-to-end tests use the same form).
export const EVERY_FIELD_TYPE = [
	{ fieldLabel: 'Name', fieldType: 'text', placeholder: 'e.g. Ann', requiredField: true },
	{ fieldLabel: 'Notes', fieldType: 'textarea' },
	{ fieldLabel: 'E-mail', fieldType: 'email', requiredField: true },
	{ fieldLabel: 'Reading', fieldType: 'number', requiredField: true },
	{ fieldLabel: 'Next visit', fieldType: 'date', requiredField: true },
	{
		fieldLabel: 'Seal',
		fieldType: 'dropdown',
		fieldOptions: { values: [{ option: 'intact' }, { option: 'broken' }] },
		requiredField: true,
	},
	{
		fieldLabel: 'Checks',
		fieldType: 'dropdown',
		multiselect: true,
		fieldOptions: { values: [{ option: 'leak' }, { option: 'noise' }, { option: 'none' }] },
	},
];
