// SMS Messaging Approval's form/ folder stands in floors: each file imports only files of floors
// below its own (type imports included), so that no two files import each other, however far
// round (docs/approval.md, "The form folder's floors").
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const formDir = join(__dirname, '..', 'nodes', 'SmsMessagingApproval', 'form');

/** The floors, lowest first: a file imports only files of the floors below its own. */
const FLOORS = [
	['sanitizeHtml.ts', 'content.ts', 'upload.ts'],
	['fields.ts'],
	['form.ts', 'files.ts'],
	['checks.ts', 'page.ts'],
	['formPage.ts', 'headers.ts'],
];

const floorOf = (file: string) => FLOORS.findIndex((floor) => floor.includes(file));

/** The files of form/ a file imports (`./x`), type imports included. */
function imported(file: string): string[] {
	const text = readFileSync(join(formDir, file), 'utf8');
	return [...text.matchAll(/\bfrom\s+'\.\/([^'/]+)'/g)].map(([, name]) => `${name}.ts`);
}

const files = readdirSync(formDir).filter((name) => name.endsWith('.ts'));

test('every file of form/ stands on one floor', () => {
	expect(files.filter((file) => floorOf(file) === -1)).toEqual([]);
	expect(FLOORS.flat().filter((file) => !files.includes(file))).toEqual([]);
});

test('each file of form/ imports only files of the floors below its own', () => {
	const upward = files.flatMap((file) =>
		imported(file)
			.filter((target) => floorOf(target) === -1 || floorOf(target) >= floorOf(file))
			.map((target) => `${basename(file)} (floor ${floorOf(file)}) imports ${target}`),
	);
	expect(upward).toEqual([]);
});

test('no circle of imports in form/, however far round', () => {
	const circles = new Set<string>();
	const visit = (file: string, path: string[]) => {
		if (path.includes(file)) {
			circles.add([...path.slice(path.indexOf(file)), file].join(' → '));
			return;
		}
		for (const next of imported(file)) if (files.includes(next)) visit(next, [...path, file]);
	};
	for (const file of files) visit(file, []);
	expect([...circles]).toEqual([]);
});
