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

test('no folder under nodes/ holds more than 10 files', () => {
	const crowded = (function folders(dir: string): Array<{ folder: string; files: number }> {
		const entries = readdirSync(dir, { withFileTypes: true });
		const files = entries.filter((entry) => entry.isFile()).length;
		return [
			...(files > 10 ? [{ folder: relative(nodesDir, dir) || '.', files }] : []),
			...entries
				.filter((entry) => entry.isDirectory())
				.flatMap((entry) => folders(join(dir, entry.name))),
		];
	})(nodesDir);
	expect(crowded).toEqual([]);
});

test('every source file opens with a line saying what it is for', () => {
	const credentialsDir = join(__dirname, '..', 'credentials');
	const credentials = readdirSync(credentialsDir)
		.filter((name) => name.endsWith('.ts'))
		.map((name) => join(credentialsDir, name));
	const silent = [...files, ...credentials]
		.filter((file) => !/^\/\/ \S/.test(readFileSync(file, 'utf8')))
		.map((file) => relative(join(nodesDir, '..'), file));
	expect(silent).toEqual([]);
});

test('no source file under nodes/ imports itself back through others', () => {
	const importsOf = new Map(
		files.map((file) => {
			const text = readFileSync(file, 'utf8');
			// Type-only imports vanish from the JavaScript, so they cannot make a circle at run time.
			const specifiers = [
				...text.matchAll(/^(?:import|export)\s(?!type\b)[^;]*?from\s+'(\.[^']*)'/gms),
			];
			const targets = specifiers
				.map(([, specifier]) => resolve(dirname(file), specifier))
				.map((target) =>
					[`${target}.ts`, join(target, 'index.ts')].find((path) => files.includes(path)),
				)
				.filter((target): target is string => target !== undefined);
			return [file, targets];
		}),
	);
	const circles: string[] = [];
	const state = new Map<string, 'open' | 'done'>();
	const visit = (file: string, path: string[]) => {
		state.set(file, 'open');
		for (const target of importsOf.get(file) ?? []) {
			if (state.get(target) === 'open') {
				circles.push(
					[...path.slice(path.indexOf(target)), target]
						.map((f) => relative(nodesDir, f))
						.join(' → '),
				);
			} else if (!state.has(target)) visit(target, [...path, target]);
		}
		state.set(file, 'done');
	};
	for (const file of files) if (!state.has(file)) visit(file, [file]);
	expect(circles).toEqual([]);
});
