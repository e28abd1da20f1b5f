// The links n8n shows beside the node and the credential ("Docs", "Open docs") and package.json's
// homepage all lead into this package's own repository, each to a section the README has.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { credentialType } from './helpers/n8n';
import { packageRoot } from './helpers/package-root';

const root = packageRoot();
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	homepage: string;
	repository: { url: string };
};
/** The repository's web address, from package.json's `repository` field. */
const repository = packageJson.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

const readmeAnchors = new Set(
	readFileSync(join(root, 'README.md'), 'utf8')
		.split('\n')
		.filter((line) => /^#{1,6} /.test(line))
		.map((line) => slug(line.replace(/^#+ /, ''))),
);

function codexLinks(file: string): string[] {
	const codex = JSON.parse(readFileSync(join(root, file), 'utf8')) as {
		resources: Record<string, Array<{ url: string }>>;
	};
	return Object.values(codex.resources).flatMap((links) => links.map((link) => link.url));
}

const LINKS: Array<[where: string, url: string]> = [
	['package.json homepage', packageJson.homepage],
	['the credential', credentialType.documentationUrl!],
	...codexLinks('nodes/SmsMessaging/SmsMessaging.node.json').map((url): [string, string] => [
		'SMS Messaging',
		url,
	]),
	...codexLinks('nodes/SmsMessagingTrigger/SmsMessagingTrigger.node.json').map(
		(url): [string, string] => ['SMS Messaging Trigger', url],
	),
];

describe('documentation links', () => {
	test.each(LINKS)('%s: %s is a section of the README in the repository', (_where, url) => {
		const [address, anchor] = url.split('#');
		expect(address).toBe(repository);
		expect(anchor === 'readme' || readmeAnchors.has(anchor)).toBe(true);
	});

	test('the node links to its operations and the trigger to its own section', () => {
		expect(LINKS).toEqual(
			expect.arrayContaining([
				['SMS Messaging', `${repository}#operations`],
				['SMS Messaging Trigger', `${repository}#sms-messaging-trigger`],
				['the credential', `${repository}#credentials`],
			]),
		);
	});
});
