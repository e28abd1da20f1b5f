// SMS → Send's Options, read and checked before anything is sent.

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { DEFAULT_PARALLEL_REQUESTS, DEFAULT_RETRY } from '../requests/transport';
import { booleanValue, fieldsOf, integerInRange, isSet, oneOf } from '../input/validation';

/** SMS → Send's Options, as a run uses them (a node without them runs on the defaults). */
export interface SendOptions {
	batchSize: number;
	dryRun: boolean;
	maxAttempts: number;
	maxMessages: number;
	onRequestFailure: 'stop' | 'continue';
	/** 0 is Auto; 1 to 16 fixes the requests in flight. */
	parallelRequests: number;
}

/**
 * The run's options, checked before anything is sent: set by an expression, a batch size of 0
 * would never end and one of "abc" would send an empty request.
 */
export function readOptions(this: IExecuteFunctions): SendOptions {
	const given = this.getNodeParameter('options', 0, {}) as IDataObject;
	const ref = fieldsOf(this.getNode(), 0, 'options');
	const option = <T>(field: keyof SendOptions, fallback: T, check: (value: unknown) => T): T =>
		isSet(given[field]) ? check(given[field]) : fallback;
	return {
		batchSize: option('batchSize', 100, (v) =>
			integerInRange(ref('batchSize', 'Batch Size'), v, 1, 1000),
		),
		dryRun: option('dryRun', false, (v) => booleanValue(ref('dryRun', 'Dry Run'), v)),
		maxAttempts: option('maxAttempts', DEFAULT_RETRY.maxAttempts, (v) =>
			integerInRange(ref('maxAttempts', 'Max Attempts'), v, 1, 10),
		),
		maxMessages: option('maxMessages', 0, (v) =>
			integerInRange(ref('maxMessages', 'Max Messages per Run'), v, 0),
		),
		onRequestFailure: option('onRequestFailure', 'stop', (v) =>
			oneOf(ref('onRequestFailure', 'After a Failed Request'), v, ['stop', 'continue']),
		) as SendOptions['onRequestFailure'],
		parallelRequests: option('parallelRequests', DEFAULT_PARALLEL_REQUESTS, (v) =>
			integerInRange(ref('parallelRequests', 'Requests in Parallel'), v, 0, 16),
		),
	};
}
