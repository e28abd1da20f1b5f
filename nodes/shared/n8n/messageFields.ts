// The fields of one message (Sender ID, recipient, text) shown by SMS → Send and the approval node.
import type { INodeProperties } from 'n8n-workflow';

// The fields of one message, as SMS → Send and the approval node both show them: each node adds
// its own display conditions (and the approval its own wording of Message).

export const senderIdField: INodeProperties = {
	displayName: 'Sender ID',
	name: 'senderId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. ACMESHOP',
	description:
		'The approved Sender ID name shown to recipients (at most 11 characters). A PENDING Sender ID cannot send yet.',
};

export const recipientNumberField: INodeProperties = {
	displayName: 'Recipient Number',
	name: 'number',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 254712345678 or {{ $json.phone }}',
	description:
		'Phone number with country code, read from each item. Spaces, dashes, dots, parentheses, a leading + or 00 and a (0) after the country code are removed before sending. A number with a leading 0 is national: it needs a country code.',
};

export const messageField: INodeProperties = {
	displayName: 'Message',
	name: 'message',
	type: 'string',
	required: true,
	default: '',
	typeOptions: { rows: 4 },
	placeholder: 'e.g. Hi {{ $json.name }}, your order has shipped.',
	description:
		'Text for this recipient, read from each item. Up to 160 plain characters (70 with emoji or non-Latin letters) fit in one SMS part; longer texts are split and cost a credit per part.',
};
