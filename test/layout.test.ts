import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// The layout docs/development.md draws: node folders side by side on one shared folder, imports
// one way, and no source file too long to read.
const nodesDir = join(__dirname, '..', 'nodes');

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** The top folder under nodes/ a file belongs to: `shared`, `SmsMessaging`… */
const topFolder = (file: string) => relative(nodesDir, file).split(sep)[0];

/** Every relative import of a file, resolved to the top folder under nodes/ it points into. */
function importedFolders(file: string): Array<{ specifier: string; folder: string }> {
	const text = readFileSync(file, 'utf8');
	const specifiers = [...text.matchAll(/\bfrom\s+'(\.[^']*)'|\bimport\(\s*'(\.[^']*)'\s*\)/g)].map(
		(match) => match[1] ?? match[2],
	);
	return specifiers.map((specifier) => {
		const target = resolve(dirname(file), specifier);
		const inside = relative(nodesDir, target);
		return {
			specifier,
			folder: inside.startsWith('..') ? '(outside nodes/)' : inside.split(sep)[0],
		};
	});
}

const files = sourceFiles(nodesDir);
const nodeFolders = [...new Set(files.map(topFolder))].filter((folder) => folder !== 'shared');

test('the three node folders stand on one shared folder', () => {
	expect(nodeFolders.sort()).toEqual([
		'SmsMessaging',
		'SmsMessagingApproval',
		'SmsMessagingTrigger',
	]);
	expect(files.some((file) => topFolder(file) === 'shared')).toBe(true);
});

test('a node folder imports only the shared folder and its own files', () => {
	const wrong = files
		.filter((file) => topFolder(file) !== 'shared')
		.flatMap((file) =>
			importedFolders(file)
				.filter(({ folder }) => folder !== 'shared' && folder !== topFolder(file))
				.map(({ specifier }) => `${relative(nodesDir, file)} imports ${specifier}`),
		);
	expect(wrong).toEqual([]);
});

test('the shared folder imports no node folder', () => {
	const wrong = files
		.filter((file) => topFolder(file) === 'shared')
		.flatMap((file) =>
			importedFolders(file)
				.filter(({ folder }) => folder !== 'shared')
				.map(({ specifier }) => `${relative(nodesDir, file)} imports ${specifier}`),
		);
	expect(wrong).toEqual([]);
});

test('no source file under nodes/ is longer than 400 lines', () => {
	const long = files
		.map((file) => ({
			file: relative(nodesDir, file),
			lines: readFileSync(file, 'utf8').split('\n').length,
		}))
		.filter(({ lines }) => lines > 400);
	expect(long).toEqual([]);
});
