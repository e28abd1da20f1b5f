// The SMS Messaging Trigger node n8n loads: its description (parameters) and its poll.
import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';

import { SMS_LIST_FILTERS, SMS_STATUS_OPTIONS } from '../shared/lists/smsFilters';
import { pollDeliveries } from './poll';
import { MAIN_CONNECTION, SMS_ICON } from '../shared/n8n/descriptions';

export class SmsMessagingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'SMS Messaging Trigger',
		name: 'smsMessagingTrigger',
		icon: SMS_ICON,
		group: ['trigger'],
		version: 1,
		// n8n's nodes panel shows one "SMS Messaging" entry for this trigger and the action node, with
		// this description (the trigger's wins), among actions and triggers alike: it speaks for both.
		description:
			'Send SMS, check their delivery, manage Sender IDs and contacts, or start a workflow when sent messages are delivered or fail',
		subtitle: '={{ "Watching " + $parameter["statuses"].join(", ") }}',
		defaults: { name: 'SMS Messaging Trigger' },
		// The API posts no callbacks (spec section 6): delivery is learnt by polling the SMS list.
		polling: true,
		inputs: [],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: 'smsMessagingApi', required: true }],
		properties: [
			// n8n's nodes panel names a trigger's action after the option of a property called
			// "Event" (its `action`), or else "On new <node> event". Hidden: Watch Statuses decides.
			{
				displayName: 'Event',
				name: 'event',
				type: 'hidden',
				default: 'statusReached',
				options: [
					{
						name: 'Message Reached a Watched Status',
						value: 'statusReached',
						action: 'On message delivered or failed',
						description:
							'Starts the workflow when a sent message is delivered or fails (the default Watch Statuses)',
					},
				],
			},
			{
				displayName: 'Watch Statuses',
				name: 'statuses',
				type: 'multiOptions',
				options: SMS_STATUS_OPTIONS,
				default: ['DELIVERED', 'FAILED'],
				description:
					'The workflow starts once for each message that reaches one of these statuses. A poll reads the same lists whichever are watched.',
			},
			{
				displayName: 'Filters',
				name: 'filters',
				type: 'collection',
				placeholder: 'Add Filter',
				default: {},
				options: Object.values(SMS_LIST_FILTERS).map(({ property }) => property),
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Lookback Days',
						name: 'lookbackDays',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 31 },
						default: 2,
						description:
							'Watch messages sent from this many days before today (UTC) on; older ones are not watched. A shorter window costs fewer requests per poll.',
					},
					{
						displayName: 'Full Reading Every (Minutes)',
						name: 'fullReadingMinutes',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 1440 },
						default: 15,
						description:
							"A poll reads the first page of each list, the Pending and Sent lists whole while they hold 2,000 messages or fewer, and reads on only where a list's count shows a change: every move that changes a count comes with the next poll. Once in every such period (whenever its first poll comes) a full reading, whatever is watched, also reads the Pending, Sent and Failed lists whole, at most 20 pages a poll, to catch moves that leave every count as it was (one message from Delivered to Failed while another goes back). 0 makes every poll a full reading.",
					},
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollDeliveries.call(this);
	}
}
