// The run plan: everything checked before the first request, every item's envelope included.

import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { readEnvelope, type Envelope, type EnvelopeReaders } from './envelopes';
import { errorItem, nodeError } from '../requests/errors';
import { itemParameterReader } from '../input/itemParameters';
import { requestSettings, type RequestSettings } from '../requests/requestOptions';
import { apiCredentials } from '../requests/transport';
import { fieldsOf, httpUrl } from '../input/validation';
import { readOptions, type SendOptions } from './options';

export interface SendCredentials {
	sendBaseUrl: string;
	apiToken: string;
}

export interface RunPlan {
	options: SendOptions;
	settings: RequestSettings;
	envelopes: Envelope[];
	/** Error items of the items that were refused (only with Continue On Fail). */
	refused: INodeExecutionData[];
	credentials: SendCredentials;
}

/**
 * Everything checked before the first request: the options, n8n's Request Options, every item's
 * envelope, the cap on messages and the credential's URLs. `defaultCountryCode`: the node has
 * that option (SMS → Send), read per item for its national numbers.
 */
export async function planRun(
	this: IExecuteFunctions,
	continueOnFail: boolean,
	{ defaultCountryCode = false } = {},
): Promise<RunPlan> {
	const options = readOptions.call(this);
	const settings = requestSettings.call(this);
	const node = this.getNode();
	const read: EnvelopeReaders = {
		senderId: itemParameterReader(this, 'senderId', ''),
		number: itemParameterReader(this, 'number', ''),
		message: itemParameterReader(this, 'message', ''),
		thirdPartyRef: itemParameterReader(this, 'thirdPartyRef', ''),
		...(defaultCountryCode
			? { defaultCountryCode: itemParameterReader(this, 'options.defaultCountryCode', '') }
			: {}),
	};
	const envelopes: Envelope[] = [];
	const refused: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < this.getInputData().length; itemIndex++) {
		try {
			envelopes.push(readEnvelope(node, read, itemIndex));
		} catch (caught) {
			// Nothing has been sent yet: without Continue On Fail one bad item stops the whole run.
			const error = nodeError(node, caught, itemIndex);
			if (!continueOnFail) throw error;
			refused.push(errorItem(error, itemIndex));
		}
	}
	if (options.maxMessages > 0 && envelopes.length > options.maxMessages) {
		throw new NodeOperationError(
			node,
			`This run would send ${envelopes.length} messages, more than Max Messages per Run (${options.maxMessages})`,
			{ description: 'Nothing was sent. Raise the cap in Options, or send fewer items.' },
		);
	}
	const credentials = await apiCredentials(this);
	const ref = fieldsOf(node, undefined);
	httpUrl(ref('baseUrl', 'Base URL'), credentials.baseUrl);
	httpUrl(ref('sendBaseUrl', 'Send Base URL'), credentials.sendBaseUrl);
	return { options, settings, envelopes, refused, credentials };
}
