// What the unit and end-to-end tests of SMS Messaging Approval share (no imports: the end-to-end
// tests run without n8n-core's engine).

/** Send and Wait from ACME to each item's `phone` with its `text`. */
export const SEND_AND_WAIT = {
	operation: 'sendAndWait',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '={{ $json.text }}',
};

/** A Custom Form with a field of every type n8n's form offers, as Form Fields holds them. */
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
