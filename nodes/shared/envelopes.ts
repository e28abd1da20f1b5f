import type { IDataObject, INode } from 'n8n-workflow';

import { normalisedPhoneNumber } from './phoneNumbers';
import {
	defaultCountry,
	fieldsOf,
	isSet,
	phoneNumber,
	requiredText,
	senderIdName,
	type NationalNumbers,
} from './validation';

/** One input item turned into what the API calls an envelope, with the Sender ID it goes with. */
export interface Envelope {
	itemIndex: number;
	senderId: string;
	envelope: { number: string; message: string; thirdPartyRef?: string };
	/** The number as the item wrote it, where reading it changed more than spaces (Dry Run shows it). */
	numberAsWritten?: string;
}

/**
 * The item's raw parameter values, read by whoever builds the envelope. `defaultCountryCode` is
 * there only for a node with that setting (SMS → Send's Options).
 */
export type EnvelopeReaders = Record<
	'senderId' | 'number' | 'message' | 'thirdPartyRef',
	(itemIndex: number) => unknown
> & { defaultCountryCode?: (itemIndex: number) => unknown };

/** How this item's national numbers are read: by its Default Country Code, if the node has one. */
function nationalNumbers(node: INode, read: EnvelopeReaders, itemIndex: number): NationalNumbers {
	if (read.defaultCountryCode === undefined) return { hasSetting: false };
	const given = read.defaultCountryCode(itemIndex);
	if (!isSet(given)) return { hasSetting: true };
	const ref = fieldsOf(node, itemIndex, 'options')('defaultCountryCode', 'Default Country Code');
	return { hasSetting: true, country: defaultCountry(ref, given) };
}

/**
 * Checks one item and builds its envelope, or throws an error naming the item and the field. A
 * Reference that is empty or only spaces is left out, as an empty one is.
 */
export function readEnvelope(node: INode, read: EnvelopeReaders, itemIndex: number): Envelope {
	const ref = fieldsOf(node, itemIndex);
	const thirdPartyRef = read.thirdPartyRef(itemIndex);
	const written = read.number(itemIndex);
	const envelope: Envelope['envelope'] = {
		number: phoneNumber(
			ref('number', 'Recipient Number'),
			written,
			nationalNumbers(node, read, itemIndex),
		),
		message: requiredText(ref('message', 'Message'), read.message(itemIndex)),
	};
	const blank = typeof thirdPartyRef === 'string' && thirdPartyRef.trim() === '';
	if (isSet(thirdPartyRef) && !blank) {
		envelope.thirdPartyRef = requiredText(ref('thirdPartyRef', 'Reference'), thirdPartyRef);
	}
	const numberAsWritten = String(written).trim();
	return {
		itemIndex,
		senderId: senderIdName(ref('senderId', 'Sender ID'), read.senderId(itemIndex)),
		envelope,
		...(numberAsWritten.replace(/\s/g, '') === envelope.number ? {} : { numberAsWritten }),
	};
}

/** Envelopes go out in input order, split by Sender ID (one per request) and by batch size. */
export function toBatches(envelopes: Envelope[], batchSize: number): Envelope[][] {
	const bySender = new Map<string, Envelope[]>();
	for (const envelope of envelopes) {
		const group = bySender.get(envelope.senderId) ?? [];
		group.push(envelope);
		bySender.set(envelope.senderId, group);
	}
	const batches: Envelope[][] = [];
	for (const group of bySender.values()) {
		for (let start = 0; start < group.length; start += batchSize) {
			batches.push(group.slice(start, start + batchSize));
		}
	}
	return batches;
}

/** What an outgoing record echoes of its envelope, in the form Send builds envelopes. */
function echoKey(record: unknown): string | undefined {
	if (!record || typeof record !== 'object') return undefined;
	const { recipient, message, thirdPartyRef } = record as IDataObject;
	if (typeof recipient !== 'string' || typeof message !== 'string') return undefined;
	const ref = isSet(thirdPartyRef) ? String(thirdPartyRef) : '';
	return JSON.stringify([normalisedPhoneNumber(recipient) ?? recipient, message, ref]);
}

/**
 * Pairs the outgoing records of an accepted request with the envelopes it carried by what each
 * record echoes (recipient, message, reference), never by position alone: a record goes to the
 * first envelope, in request order, with the same echo that has none yet, so identical envelopes
 * get one record each. An envelope no record echoes gets `undefined`: its outcome is unknown.
 */
export function matchOutgoings(
	outgoings: unknown,
	batch: Envelope[],
): Array<IDataObject | undefined> {
	const records = new Map<string, IDataObject[]>();
	for (const record of Array.isArray(outgoings) ? outgoings : []) {
		const key = echoKey(record);
		if (key === undefined) continue;
		const same = records.get(key) ?? [];
		same.push(record as IDataObject);
		records.set(key, same);
	}
	return batch.map(({ envelope }) =>
		records
			.get(JSON.stringify([envelope.number, envelope.message, envelope.thirdPartyRef ?? '']))
			?.shift(),
	);
}
