// n8n's Request Options (Batching, Ignore SSL Issues, Proxy, Timeout) for requests outside routing.

import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type INode,
} from 'n8n-workflow';

import { requestOptionsParameter } from '../n8n/n8nInternals';
import {
	booleanValue,
	fieldsOf,
	integerInRange,
	isSet,
	withoutCredentials,
	type FieldRef,
} from '../input/validation';

/**
 * n8n's Request Options (the node's Settings) as they apply to requests made outside routing
 * (Send, Get Delivery Status, the approval's send).
 */
export interface RequestSettings {
	request: Pick<IHttpRequestOptions, 'proxy' | 'skipSslCertificateValidation' | 'timeout'>;
	/** Batching: the most envelopes one request carries (Infinity without Batching). */
	itemsPerBatch: number;
	/** Batching: milliseconds between two requests. */
	batchInterval: number;
}

/** Names a field of the Request Options, for the error that points at it. */
type OptionField = (field: string, label: string) => FieldRef;

/** The Proxy option as n8n's request takes it; a value that is not an http(s) URL is an error. */
function proxyOf(node: INode, value: unknown): IHttpRequestOptions['proxy'] {
	const notAUrl = () =>
		new NodeOperationError(
			node,
			`Proxy is not a URL: ${JSON.stringify(withoutCredentials(String(value)))}`,
			{
				description: 'Use a URL such as http://myproxy:3128 or http://user:password@myproxy:3128.',
			},
		);
	let proxy: URL;
	try {
		proxy = new URL(String(value));
	} catch {
		throw notAUrl();
	}
	// "myproxy:3128" parses as a URL with no host: n8n would quietly connect without the proxy.
	if (!['http:', 'https:'].includes(proxy.protocol) || !proxy.hostname) throw notAUrl();
	return {
		host: proxy.hostname,
		port: Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80),
		protocol: proxy.protocol.replace(/:$/, ''),
		...(proxy.username
			? {
					auth: {
						username: decodeURIComponent(proxy.username),
						password: decodeURIComponent(proxy.password),
					},
				}
			: {}),
	};
}

/** Batching's Items per Batch and Batch Interval (ms). */
function batchingOf(
	field: OptionField,
	batching: unknown,
): Pick<RequestSettings, 'itemsPerBatch' | 'batchInterval'> {
	const batch = ((batching as IDataObject | undefined)?.batch ?? {}) as IDataObject;
	const size = isSet(batch.batchSize)
		? integerInRange(field('batching.batch.batchSize', 'Items per Batch'), batch.batchSize, -1)
		: -1;
	return {
		// As the field says: -1 turns the split off, and 0 counts as 1.
		itemsPerBatch: size < 0 ? Infinity : Math.max(1, size),
		batchInterval: isSet(batch.batchInterval)
			? integerInRange(
					field('batching.batch.batchInterval', 'Batch Interval (ms)'),
					batch.batchInterval,
					0,
				)
			: 0,
	};
}

/**
 * Reads the Request Options n8n adds to the Settings of a node that has no `execute` (Batching,
 * Ignore SSL Issues, Proxy, Timeout). n8n's routing applies them to routed operations; a custom
 * operation must apply them itself, or the user's proxy and timeout are silently ignored.
 */
export function requestSettings(this: IExecuteFunctions): RequestSettings {
	const given = requestOptionsParameter(this);
	const node = this.getNode();
	const field = fieldsOf(node, 0, 'requestOptions');
	const request: RequestSettings['request'] = {};
	if (isSet(given.proxy)) request.proxy = proxyOf(node, given.proxy);
	if (isSet(given.allowUnauthorizedCerts)) {
		const label = 'Ignore SSL Issues (Insecure)';
		if (booleanValue(field('allowUnauthorizedCerts', label), given.allowUnauthorizedCerts)) {
			request.skipSslCertificateValidation = true;
		}
	}
	if (isSet(given.timeout))
		request.timeout = integerInRange(field('timeout', 'Timeout'), given.timeout, 1);
	return { request, ...batchingOf(field, given.batching) };
}
