// The credential: the API token, the two base URLs, the API's time zone, and the request n8n's
// Test button makes.
import type {
	IAuthenticate,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** The send endpoint is the only one that authenticates with `Authorization`. */
const SEND_PATH = /\/outgoings\/send\/?$/;

function requestPath(options: IHttpRequestOptions): string {
	return options.url.split('?')[0];
}

export class SmsMessagingApi implements ICredentialType {
	name = 'smsMessagingApi';

	displayName = 'SMS Messaging API';

	icon: Icon = { light: 'file:../icons/sms.svg', dark: 'file:../icons/sms.dark.svg' };

	documentationUrl =
		'https://github.com/n8n-nodes-sms-messaging/n8n-nodes-sms-messaging#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Token',
			name: 'apiToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The API token of your Messaging Service account. It is sent as a Bearer token and never shown in node output or errors.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/api/v3',
			description:
				'Address of the API for Sender IDs and the SMS and contact lists, including the /api/v3 prefix',
		},
		{
			displayName: 'Send Base URL',
			name: 'sendBaseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://send.example.com/api/v3',
			description:
				'Address of the API that sends SMS, including the /api/v3 prefix. It may be the same as the Base URL.',
		},
		{
			displayName: 'API Time Zone',
			name: 'apiTimeZone',
			type: 'string',
			default: 'UTC',
			placeholder: 'e.g. Africa/Nairobi',
			description:
				"The zone the API writes its times in when they carry no offset, as a Java service writes 2026-11-29T06:23:07.391: an IANA name (Africa/Nairobi, America/New_York), UTC, or an offset such as UTC+03:00. Get Delivery Status and Send's check of a request that timed out read such times in it. Times with an offset (Z, +03:00) are read as written.",
		},
	];

	// The API authenticates the send endpoint with `Authorization` and every other endpoint with
	// `X-Service`; a request must carry exactly one of them, whatever host it goes to.
	authenticate: IAuthenticate = async (credentials, requestOptions) => {
		const headers = { ...requestOptions.headers };
		delete headers.Authorization;
		delete headers['X-Service'];
		const header = SEND_PATH.test(requestPath(requestOptions)) ? 'Authorization' : 'X-Service';
		headers[header] = `Bearer ${credentials.apiToken as string}`;
		return { ...requestOptions, headers };
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl.trim().replace(/\\/+$/, "") }}',
			url: '/contacts',
			method: 'GET',
			qs: { records: 1 },
		},
		// n8n shows a rule's message instead of the bare status text ("Unauthorized") when the
		// test request's answer has that status code.
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API refused the API Token (401): check the API Token of this credential, or create a new token in your Messaging Service account',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers at this Base URL (404): check the Base URL, including its /api/v3 prefix, e.g. https://api.example.com/api/v3',
				},
			},
		],
	};
}
