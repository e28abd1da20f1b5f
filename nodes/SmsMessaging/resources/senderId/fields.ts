// The Sender ID fields (name, purpose, access, sample) that Create and Update send, each checked.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { bodyField, type CheckedField } from '../../routing';
import { oneOf, requiredText, senderIdName } from '../../../shared/input/validation';

const PURPOSES: INodePropertyOptions[] = [
	{
		name: 'Notification',
		value: 'NOTIFICATION',
		description: 'Alerts and reminders, such as appointment reminders',
	},
	{
		name: 'Promotional',
		value: 'PROMOTIONAL',
		description: 'Marketing messages and offers',
	},
	{
		name: 'Transactional',
		value: 'TRANSACTIONAL',
		description: 'Messages a customer expects, such as one-time codes and order updates',
	},
];

const ACCESS: INodePropertyOptions[] = [
	{ name: 'Private', value: 'PRIVATE', description: 'Only your account' },
	{ name: 'Public', value: 'PUBLIC', description: 'Visible to other users of the service' },
];

type Show = { resource: string[]; operation: string[] };

/** A required choice sent in the body under its own name, checked against its options. */
function optionsField(
	show: Show,
	field: Pick<INodeProperties, 'displayName' | 'name' | 'default' | 'description'> & {
		options: INodePropertyOptions[];
	},
): CheckedField {
	const allowed = field.options.map((option) => String(option.value));
	return bodyField(
		{ ...field, type: 'options', required: true, displayOptions: { show } },
		(ref, value) => oneOf(ref, value, allowed),
	);
}

/** Name, purpose, access and sample: the body both create and update send, each checked. */
export function senderIdFields(operation: 'create' | 'update'): CheckedField[] {
	const show: Show = { resource: ['senderId'], operation: [operation] };
	return [
		bodyField(
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				required: true,
				default: '',
				placeholder: 'e.g. ACMESHOP',
				description:
					'The sender name recipients see instead of a phone number: 1 to 11 characters, usually letters and digits',
				displayOptions: { show },
			},
			senderIdName,
		),
		optionsField(show, {
			displayName: 'Purpose',
			name: 'purpose',
			default: 'TRANSACTIONAL',
			description: 'What kind of messages this Sender ID will send',
			options: PURPOSES,
		}),
		optionsField(show, {
			displayName: 'Access',
			name: 'access',
			default: 'PRIVATE',
			description: 'Who can see this Sender ID',
			options: ACCESS,
		}),
		bodyField(
			{
				displayName: 'Sample Message',
				name: 'sample',
				type: 'string',
				required: true,
				default: '',
				typeOptions: { rows: 3 },
				placeholder: 'e.g. Your order 1234 has shipped and arrives on Friday.',
				description:
					'An example of a message you will send with this Sender ID. The service reviews it before approving the Sender ID.',
				displayOptions: { show },
			},
			requiredText,
		),
	];
}
