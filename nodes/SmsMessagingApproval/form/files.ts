// A file field's answer: how many files, their size and type (by name, by what they say, by their
// content), and the files as binary data on the item, as n8n's Form node gives them.
import type { IBinaryData, IBinaryKeyData, IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { contentOf, type Content } from './content';
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
 * content type by what the file says it is; and, once its content is read (`content` not
 * undefined), neither may contradict it: a PDF named photo.jpg, or sent as image/jpeg, is no
 * photo. An image type takes only content recognised as an image.
 */
function accepts(entry: string, file: PostedFile, content: Content | undefined): boolean {
	if (entry.startsWith('.')) {
		if (!nameOf(file).toLowerCase().endsWith(entry)) return false;
		return !content || content.extensions.includes(entry);
	}
	const matches = (type: string) =>
		entry.endsWith('/*') ? type.startsWith(entry.slice(0, -1)) : type === entry;
	const declared = declaredOf(file);
	if (!matches(declared) && !(isGeneric(declared) && content !== null)) return false;
	if (content === undefined) return true;
	return content ? matches(content.mime) : !entry.startsWith('image/');
}

const acceptedBy = (field: FormField, file: PostedFile, content?: Content) =>
	field.accept === undefined ||
	field.accept.split(',').some((entry) => accepts(entry, file, content));

/** What is wrong with a file field's files by what they say of themselves, if anything. */
export function fileProblem(field: FormField, files: PostedFile[]): string | undefined {
	if (files.length === 0) return field.required ? 'Choose a file.' : undefined;
	if (!field.multipleFiles && files.length > 1) return 'Choose one file.';
	const large = files.find((file) => file.size > field.maxBytes!);
	if (large) {
		return `${nameOf(large)} is ${megabytes(large.size)}; this field takes files up to ${megabytes(field.maxBytes!)}.`;
	}
	const other = files.find((file) => !acceptedBy(field, file));
	if (other) return `${nameOf(other)} is not one of the accepted types (${field.accept}).`;
	return undefined;
}

/** A file field's value in `data`: `{ filename, mimetype, size }`, a list of them with Multiple Files. */
export function fileSummaries(field: FormField, files: PostedFile[]): unknown {
	const summaries = files.map((file) => ({
		filename: file.originalFilename ?? '',
		mimetype: file.mimetype ?? '',
		size: file.size,
	}));
	return field.multipleFiles ? summaries : (summaries[0] ?? null);
}

/** A stored file's first bytes: from n8n's binary data store, or from the data itself in memory mode. */
async function headOf(this: IWebhookFunctions, binary: IBinaryData): Promise<Buffer> {
	if (!binary.id) return Buffer.from(binary.data.slice(0, 88), 'base64');
	const stream = await this.helpers.getBinaryStream(binary.id, 64);
	for await (const chunk of stream) {
		stream.destroy();
		return Buffer.from(chunk as Buffer);
	}
	return Buffer.alloc(0);
}

/**
 * Stores each file of the answer as binary data of the execution (n8n deletes its own copy once
 * the request is answered), under the field's label with every non-word character replaced by
 * `_` (`_0`, `_1`… with Multiple Files), as n8n's Form node does; then checks each file's content
 * against Accepted File Types. A refused answer leaves its stored files unused; n8n deletes
 * them with the execution.
 */
export async function storeFiles(
	this: IWebhookFunctions,
	fields: FormField[],
	filesOf: (position: number) => PostedFile[],
): Promise<{ binary: IBinaryKeyData; problems: Array<string | undefined> }> {
	const binary: IBinaryKeyData = {};
	const problems: Array<string | undefined> = [];
	for (const [position, field] of fields.entries()) {
		problems.push(undefined);
		if (field.type !== 'file') continue;
		for (const [index, file] of filesOf(position).entries()) {
			const stored = await this.nodeHelpers.copyBinaryFile(
				file.filepath,
				nameOf(file),
				declaredOf(file) || 'application/octet-stream',
			);
			const content = contentOf(await headOf.call(this, stored));
			if (!acceptedBy(field, file, content)) {
				const what = content ? content.mime : 'not a kind of file this node recognises';
				problems[position] ??=
					`${nameOf(file)} is not what it says: its content is ${what}, not one of the accepted types (${field.accept}).`;
			}
			// A browser that did not know the file's type said so: its content tells.
			if (content && isGeneric(declaredOf(file))) stored.mimeType = content.mime;
			binary[`${binaryKeyOf(field.label)}${field.multipleFiles ? `_${index}` : ''}`] = stored;
		}
	}
	return { binary, problems };
}
