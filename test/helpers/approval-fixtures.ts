// What the unit and end-to-end tests of SMS Messaging Approval share (no imports: the end-to-end
// tests run without n8n-core's engine).

/** Send and Wait from ACME to each item's `phone` with its `text`. */
export const SEND_AND_WAIT = {
	operation: 'sendAndWait',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '={{ $json.text }}',
};

/** A Custom Form with a field of each of the six types the first forms offered, as Form Fields holds them. */
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

/**
 * A Custom Form with a field of each of the six other types of n8n's forms, as Form Fields holds
 * them: two of three boxes exactly, a radio choice, a password, a hidden order id, HTML with
 * script and a handler to strip, a photo of at most 10 MB.
 */
export const MORE_FIELD_TYPES = [
	{
		fieldLabel: 'Checks done',
		fieldType: 'checkbox',
		fieldOptions: { values: [{ option: 'seal' }, { option: 'meter' }, { option: 'cable' }] },
		limitSelection: 'exact',
		numberOfSelections: 2,
		requiredField: true,
	},
	{
		fieldLabel: 'Access',
		fieldType: 'radio',
		fieldOptions: { values: [{ option: 'front door' }, { option: 'back door' }] },
		requiredField: true,
	},
	{ fieldLabel: 'PIN', fieldType: 'password', requiredField: true },
	{ fieldType: 'hiddenField', fieldName: 'orderId', fieldValue: 'A-2291' },
	{
		fieldType: 'html',
		elementName: 'notice',
		html: '<p>Photograph the <b>meter</b><script>alert(1)</script> <a href="javascript:alert(1)" onclick="steal()">here</a> <a href="https://example.com/help">help</a></p>',
	},
	{
		fieldLabel: 'Meter photo',
		fieldType: 'file',
		acceptFileTypes: 'image/*',
		multipleFiles: false,
		maxFileSizeMb: 10,
		requiredField: true,
	},
];

/** What MORE_FIELD_TYPES's html field shows, and gives under its Element Name. */
export const SANITIZED_NOTICE =
	'<p>Photograph the <b>meter</b> <a rel="noopener noreferrer nofollow">here</a> <a href="https://example.com/help" rel="noopener noreferrer nofollow">help</a></p>';

/** The first bytes of a JPEG (a photo), a PNG and a PDF, padded to `size` bytes. */
export function fileBytes(kind: 'jpeg' | 'png' | 'pdf', size = 2_048): Buffer {
	const head = {
		jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]),
		png: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
		pdf: Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
	}[kind];
	const bytes = Buffer.alloc(size, 0x20);
	head.copy(bytes);
	return bytes;
}
