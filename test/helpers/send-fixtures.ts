import type { INodeParameters } from 'n8n-workflow';

/**
 * SMS → Send with one envelope per item from `phone` and `order`, and the given options; a
 * `timeout` goes where Send reads it, the node's Settings → Request Options.
 */
export const send = ({ timeout, ...options }: INodeParameters = {}) => ({
	resource: 'sms',
	operation: 'send',
	senderId: 'ACME',
	number: '={{ $json.phone }}',
	message: '=Order {{ $json.order }} is on its way',
	thirdPartyRef: '={{ $json.order }}',
	options,
	...(timeout === undefined ? {} : { requestOptions: { timeout } }),
});

/** `count` items with a phone number and an order reference each. */
export const customers = (count: number) =>
	Array.from({ length: count }, (_, i) => ({
		phone: `2547${String(10000000 + i)}`,
		order: `ORD-${i}`,
	}));
