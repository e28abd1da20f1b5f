// A file field's answer: how many files, their size and type (by name, by what they say, by their
// content), and the files as binary data on the item, as n8n's Form node gives them, named safely.
import type { IBinaryData, IBinaryKeyData, IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	contentOf,
	HEAD_BYTES,
	isActiveExtension,
	isActiveType,
	isZip,
	kindMatches,
	namesKind,
	recognisable,
	TAIL_BYTES,
	type Content,
} from './content';
import { binaryKeyOf, megabytes, type FormField } from './fields';

/** A file as n8n's multipart parser (formidable, n8n 1.82 to 2.41) hands it to the node. */
export interface PostedFile {
	filepath: string;
	originalFilename?: string | null;
	mimetype?: string | null;
	size: number;
}

const isFile = (value: unknown): value is PostedFile =>
	typeof (value as PostedFile)?.filepath === 'string' &&
	typeof (value as PostedFile).size === 'number';

/** The files posted under an input's name (n8n gives one file as itself, several as a list); empty inputs left out. */
export function postedFiles(files: unknown, name: string): PostedFile[] {
	if (!files || typeof files !== 'object') return [];
	const under = (files as IDataObject)[name];
	const list = Array.isArray(under) ? under : under === undefined ? [] : [under];
	return list.filter(isFile).filter((file) => !(file.size === 0 && !file.originalFilename));
}

const nameOf = (file: PostedFile) => file.originalFilename || 'The file';
const declaredOf = (file: PostedFile) => (file.mimetype ?? '').toLowerCase().split(';')[0].trim();
/** Some browsers send no type, or a generic one, for files they do not know (HEIC on a desktop). */
const isGeneric = (declared: string) => declared === '' || declared === 'application/octet-stream';

/**
 * Whether one entry of Accepted File Types takes a file: an extension by the file's name, a
 * content type by the type the browser gave (or, where it gave none, by the content); and, once
 * its content is read (`content` not undefined), the content must be of that entry too: a PDF
 * or an HTML page named photo.jpg is no photo. Content the node does not recognise passes only
 * an entry whose every file the node could not recognise either (`.csv`, `video/*`).
 */
function accepts(entry: string, file: PostedFile, content: Content | undefined): boolean {
	const declared = declaredOf(file);
	const named = entry.startsWith('.')
		? nameOf(file).toLowerCase().endsWith(entry)
		: (entry.endsWith('/*') ? declared.startsWith(entry.slice(0, -1)) : declared === entry) ||
			(isGeneric(declared) && content !== null);
	if (!named || content === undefined) return named;
	return content === null ? !recognisable(entry) : kindMatches(entry, content);
}

const acceptedBy = (field: FormField, file: PostedFile, content?: Content) =>
	field.accept === undefined ||
	field.accept.split(',').some((entry) => accepts(entry, file, content));

/** What is wrong with a file field's files by what they say of themselves, if anything. */
export function fileProblem(field: FormField, files: PostedFile[]): string | undefined {
	if (files.length === 0) return field.required ? 'Choose a file.' : undefined;
	if (!field.multipleFiles && files.length > 1) return 'Choose one file.';
	if (files.length > field.maxFiles!) return `Choose at most ${field.maxFiles} files.`;
	// A phone sends a photo kept in the cloud and not downloaded yet as a file of 0 bytes.
	const empty = files.find((file) => file.size === 0);
	if (empty) {
		return `${nameOf(empty)} is empty (0 bytes): a file kept in the cloud, such as a photo not yet downloaded, may need to download to the phone first. Choose it again.`;
	}
	const large = files.find((file) => file.size > field.maxBytes!);
	if (large) {
		return `${nameOf(large)} is ${megabytes(large.size)}; this field takes files up to ${megabytes(field.maxBytes!)}.`;
	}
	const other = files.find((file) => !acceptedBy(field, file));
	if (other) return `${nameOf(other)} is not one of the accepted types (${field.accept}).`;
	return undefined;
}

/** A file field's value in `data` from its summaries: a list with Multiple Files, else the one or null. */
const fieldValue = (field: FormField, summaries: IDataObject[]) =>
	field.multipleFiles ? summaries : (summaries[0] ?? null);

/** A file field's value in `data`: `{ filename, mimetype, size }`, a list of them with Multiple Files. */
export function fileSummaries(field: FormField, files: PostedFile[]): unknown {
	return fieldValue(
		field,
		files.map((file) => ({
			filename: file.originalFilename ?? '',
			mimetype: file.mimetype ?? '',
			size: file.size,
		})),
	);
}

/** A stored file's first `bytes` bytes, or its last ones: from n8n's binary data store, or from the data itself in memory mode. */
async function bytesOf(
	this: IWebhookFunctions,
	binary: IBinaryData,
	part: 'head' | 'tail',
): Promise<Buffer> {
	const bytes = part === 'head' ? HEAD_BYTES : TAIL_BYTES;
	// Base64 in whole groups of 4 characters: 3 bytes each.
	const chars = Math.ceil(bytes / 3) * 4;
	if (!binary.id) {
		const text = part === 'head' ? binary.data.slice(0, chars) : binary.data.slice(-chars);
		const decoded = Buffer.from(text, 'base64');
		return part === 'head' ? decoded.subarray(0, bytes) : decoded.subarray(-bytes);
	}
	const stream = await this.helpers.getBinaryStream(binary.id, Math.min(bytes, 1 << 16));
	const chunks: Buffer[] = [];
	let read = 0;
	for await (const chunk of stream) {
		chunks.push(Buffer.from(chunk as Buffer));
		read += (chunk as Buffer).length;
		if (part === 'head' && read >= bytes) break;
		// The tail: only the last chunks that hold its bytes are kept.
		while (part === 'tail' && read - chunks[0].length >= bytes) read -= chunks.shift()!.length;
	}
	stream.destroy();
	const kept = Buffer.concat(chunks);
	return part === 'head' ? kept.subarray(0, bytes) : kept.subarray(-bytes);
}

/** A file's extension as its name gives it, with its dot (`.jpg`), or '' when it has none. */
const extensionOf = (name: string) => /(?<=[^.])\.[\w+-]{1,16}$/.exec(name)?.[0] ?? '';

/** A name's last part, without control or invisible characters or leading dots (`.htaccess`). */
const baseNameOf = (name: string) =>
	(name.split(/[/\\]/).pop() ?? '')
		.replace(/[\p{Cc}\p{Cf}]/gu, '')
		.trim()
		.replace(/^[.\s]+/, '');

/** The most bytes a stored file name takes (most file systems' limit). */
const NAME_BYTES = 255;

/**
 * A file's name as stored: the last part of the name sent only, without control or invisible
 * characters, at most 255 bytes, ending with `extension` (the one it is stored as): `x.jpg.html`
 * of a JPEG is `x.jpg`, `photo.jpg` of a PNG `photo.png`, `../../etc/passwd` of a JPEG `passwd.jpg`.
 */
function storedName(sent: string, extension: string | undefined): string {
	let name = baseNameOf(sent) || 'file';
	const own = extensionOf(name);
	if (extension !== undefined && own.toLowerCase() !== `.${extension}`) {
		const stem = name.slice(0, name.length - own.length);
		name = extensionOf(stem).toLowerCase() === `.${extension}` ? stem : `${stem}.${extension}`;
	}
	const ending = extensionOf(name);
	const stem = [...name.slice(0, name.length - ending.length)];
	let bytes = Buffer.byteLength(name);
	while (bytes > NAME_BYTES && stem.length) bytes -= Buffer.byteLength(stem.pop()!);
	return stem.join('') + ending;
}

/**
 * How a file is stored: as what its content is, where the node recognises it (a PNG sent as
 * photo.jpg with image/jpeg is image/png, png); content a browser runs script in (HTML, SVG, XML)
 * only where Accepted File Types name its kind. Otherwise, and for content the node does not
 * recognise, never as a type a browser runs script in: the type the browser gave, or
 * application/octet-stream (`.bin`) in place of an active one. Its name as storedName makes it.
 */
function storedAs(stored: IBinaryData, field: FormField, file: PostedFile, content: Content) {
	const declared = declaredOf(file);
	const sent = file.originalFilename ?? '';
	const own = extensionOf(baseNameOf(sent)).toLowerCase();
	let extension: string | undefined;
	if (content && (!content.active || namesKind(field.accept, content))) {
		stored.mimeType = content.mimes.includes(declared) ? declared : content.mimes[0];
		extension = (content.extensions.includes(own) ? own : content.extensions[0]).slice(1);
	} else {
		const active = !!content || declared === '' || isActiveType(declared);
		stored.mimeType = active ? 'application/octet-stream' : declared;
		extension = own === '' ? undefined : isActiveExtension(own) ? 'bin' : own.slice(1);
	}
	stored.fileExtension = extension;
	if (extension === undefined) delete stored.fileExtension;
	stored.fileName = storedName(sent, extension);
}

/**
 * One file stored as binary data of the execution (n8n gives a node no way to read a posted file
 * but to store it), under a name without a path and a type no browser runs script in until its
 * content is known; then stored as what it is (storedAs). What is wrong with its content, if anything.
 */
async function storeOne(
	this: IWebhookFunctions,
	field: FormField,
	file: PostedFile,
): Promise<{ stored: IBinaryData; problem?: string }> {
	const declared = declaredOf(file);
	const stored = await this.nodeHelpers.copyBinaryFile(
		file.filepath,
		storedName(file.originalFilename ?? '', undefined),
		declared === '' || isActiveType(declared) ? 'application/octet-stream' : declared,
	);
	const head = await bytesOf.call(this, stored, 'head');
	const content = contentOf(
		head,
		isZip(head) ? await bytesOf.call(this, stored, 'tail') : undefined,
	);
	storedAs(stored, field, file, content);
	if (acceptedBy(field, file, content)) return { stored };
	const what = content ? content.mimes[0] : 'not a kind of file this node recognises';
	return {
		stored,
		problem: `${nameOf(file)} is not what it says: its content is ${what}, not one of the accepted types (${field.accept}).`,
	};
}

/**
 * Stores the files of the answer one by one as binary data of the execution (n8n deletes its own
 * copy once the request is answered), under the field's label with every non-word character
 * replaced by `_` (`_0`, `_1`… with Multiple Files), as n8n's Form node does, each checked by its
 * content once stored; the first file refused by its content ends the storing (the rest of the
 * answer is not stored). Gives each file field's value for `data` as stored (the type its content
 * is, the name it is stored under). A refused answer leaves what it stored unused: n8n deletes it
 * with the execution (a node cannot delete binary data).
 */
export async function storeFiles(
	this: IWebhookFunctions,
	fields: FormField[],
	filesOf: (position: number) => PostedFile[],
): Promise<{
	binary: IBinaryKeyData;
	problems: Array<string | undefined>;
	values: Map<number, unknown>;
}> {
	const binary: IBinaryKeyData = {};
	const problems: Array<string | undefined> = fields.map(() => undefined);
	const values = new Map<number, unknown>();
	for (const [position, field] of fields.entries()) {
		if (field.type !== 'file') continue;
		const summaries: IDataObject[] = [];
		for (const [index, file] of filesOf(position).entries()) {
			const { stored, problem } = await storeOne.call(this, field, file);
			if (problem !== undefined) {
				problems[position] = problem;
				return { binary: {}, problems, values };
			}
			summaries.push({ filename: stored.fileName, mimetype: stored.mimeType, size: file.size });
			binary[`${binaryKeyOf(field.label)}${field.multipleFiles ? `_${index}` : ''}`] = stored;
		}
		values.set(position, fieldValue(field, summaries));
	}
	return { binary, problems, values };
}
