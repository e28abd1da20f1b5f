import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { runPerItem, type PerItemOperation } from '../../shared/perItem';
import {
	PENDING_SUMMARY,
	readSenderIdBody,
	senderIdFields,
	senderIdRequest,
	type SenderIdBody,
} from './fields';

export const senderIdCreateDescription: INodeProperties[] = [
	{
		displayName:
			'A new Sender ID starts as PENDING: it cannot be used for sending until the service approves it, which takes 1 to 3 business weeks. You get a notification on approval.',
		name: 'pendingNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { resource: ['senderId'], operation: ['create'] } },
	},
	...senderIdFields('create'),
];

/** Sender ID → Create: registers one Sender ID per item; each starts PENDING. */
export async function create(this: IExecuteFunctions) {
	const operation: PerItemOperation<SenderIdBody> = {
		read: readSenderIdBody,
		async run(body, itemIndex, credentials) {
			return await senderIdRequest.call(this, 'create', body, itemIndex, credentials);
		},
		hintSummary: PENDING_SUMMARY,
	};
	return await runPerItem.call(this, operation);
}
