import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// What `npm publish` would upload. `npm test` builds first, so dist/ is current.
const root = join(__dirname, '..');

interface PackResult {
	name: string;
	files: Array<{ path: string }>;
}

function packedFiles(): string[] {
	const output = execFileSync('npm', ['pack', '--dry-run', '--json'], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const [result] = JSON.parse(output) as PackResult[];
	return result.files.map((file) => file.path).sort();
}

const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('the published package', () => {
	let files: string[];

	beforeAll(() => {
		files = packedFiles();
	});

	test('holds only dist/ plus README.md, LICENSE and package.json', () => {
		const outside = files.filter(
			(path) =>
				!path.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(path),
		);
		expect(outside).toEqual([]);
		expect(files).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json']));
	});

	test('holds the built node, credential, codex and icons', () => {
		expect(files).toEqual(
			expect.arrayContaining([
				'dist/nodes/SmsMessaging/SmsMessaging.node.js',
				'dist/credentials/SmsMessagingApi.credentials.js',
				'dist/nodes/SmsMessaging/SmsMessaging.node.json',
				'dist/icons/sms.svg',
				'dist/icons/sms.dark.svg',
			]),
		);
	});

	test('holds no tests and no TypeScript sources other than .d.ts', () => {
		expect(files.filter((path) => /(^|\/)test\//.test(path))).toEqual([]);
		expect(files.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))).toEqual([]);
	});

	// libphonenumber-js is a devDependency bundled into dist (gulpfile.js): n8n installs nothing else.
	test('bundles libphonenumber-js: no file requires it, its licence ships beside it', () => {
		const requiring = files
			.filter((path) => path.endsWith('.js'))
			.filter((path) =>
				/require\(["']libphonenumber-js/.test(readFileSync(join(root, path), 'utf8')),
			);
		expect(requiring).toEqual([]);
		expect(files).toContain('dist/nodes/shared/vendor/libphonenumber-js.LICENSE');
		expect(
			readFileSync(join(root, 'dist/nodes/shared/vendor/libphonenumber.js'), 'utf8'),
		).toContain('parsePhoneNumberWithError');
	});

	// The maps would point at .ts sources that are not published.
	test('holds no source maps', () => {
		expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
	});
});

describe('package.json', () => {
	test('has no runtime dependencies', () => {
		expect(packageJson.dependencies).toBeUndefined();
	});

	test('declares n8n-workflow as its only peer dependency, any version', () => {
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	});

	test('is a strict n8n community node package', () => {
		expect(packageJson.n8n.strict).toBe(true);
		expect(packageJson.keywords).toContain('n8n-community-node-package');
	});
});
