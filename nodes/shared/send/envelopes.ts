// Envelopes: each item checked and made an envelope, batched, paired with its outgoing record.

import type { IDataObject, INode } from 'n8n-workflow';

import { normalisedPhoneNumber } from '../input/phoneNumbers';
import { comparableText } from '../lists/matching';
import {
	defaultCountry,
	fieldsOf,
	isSet,
	phoneNumber,
	requiredText,
	senderIdName,
	type NationalNumbers,
} from '../input/validation';

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

/**
 * The run's batches: one Sender ID each (one per request), at most `batchSize` envelopes; Sender
 * IDs in the order each first comes, the envelopes of each in input order.
 */
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

/** What the API must keep of an envelope: its number (in Send's form) and its reference. */
const numberAndReferenceKey = (number: string, reference: unknown) =>
	JSON.stringify([number, isSet(reference) ? String(reference) : '']);

/** An answer's outgoing records by number (in Send's form) and reference, in answer order. */
function recordsByNumberAndReference(outgoings: unknown): Map<string, IDataObject[]> {
	const records = new Map<string, IDataObject[]>();
	for (const record of Array.isArray(outgoings) ? outgoings : []) {
		if (!record || typeof record !== 'object') continue;
		const { recipient, thirdPartyRef } = record as IDataObject;
		if (typeof recipient !== 'string') continue;
		const key = numberAndReferenceKey(normalisedPhoneNumber(recipient) ?? recipient, thirdPartyRef);
		const same = records.get(key) ?? [];
		same.push(record as IDataObject);
		records.set(key, same);
	}
	return records;
}

/**
 * Pairs the envelopes of one number and reference with the records that keep them. One of each:
 * they are each other's, whatever text the API stored. Several (a tie): by text, compared as
 * `comparableText` gives it, in request order among equal texts; when one envelope and one record
 * are left over, they are paired.
 */
function pairSameNumberAndReference(
	envelopes: Envelope[],
	records: IDataObject[],
): Array<IDataObject | undefined> {
	if (envelopes.length === 1 && records.length === 1) return [records[0]];
	const free = [...records];
	const paired = envelopes.map(({ envelope }) => {
		const text = comparableText(envelope.message);
		const at = free.findIndex(
			({ message }) => typeof message === 'string' && comparableText(message) === text,
		);
		return at === -1 ? undefined : free.splice(at, 1)[0];
	});
	const left = paired.flatMap((record, k) => (record ? [] : [k]));
	if (left.length === 1 && free.length === 1) paired[left[0]] = free[0];
	return paired;
}

/**
 * Pairs the outgoing records of an accepted request with the envelopes it carried by what the API
 * must keep of each (its number and reference), never by position alone; the text decides only
 * between envelopes that share both (`pairSameNumberAndReference`). An envelope no record pairs
 * with gets `undefined`: its outcome is unknown.
 */
export function matchOutgoings(
	outgoings: unknown,
	batch: Envelope[],
): Array<IDataObject | undefined> {
	const records = recordsByNumberAndReference(outgoings);
	const byNumberAndReference = new Map<string, number[]>();
	batch.forEach(({ envelope }, k) => {
		const key = numberAndReferenceKey(envelope.number, envelope.thirdPartyRef);
		const same = byNumberAndReference.get(key);
		if (same) same.push(k);
		else byNumberAndReference.set(key, [k]);
	});
	const result: Array<IDataObject | undefined> = batch.map(() => undefined);
	for (const [key, positions] of byNumberAndReference) {
		const paired = pairSameNumberAndReference(
			positions.map((k) => batch[k]),
			records.get(key) ?? [],
		);
		positions.forEach((k, n) => (result[k] = paired[n]));
	}
	return result;
}
