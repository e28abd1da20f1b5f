// Checks of what the user typed (each error names the item and the field), and the input error.
import { NodeOperationError, type INode } from 'n8n-workflow';

import { apiTime, realDay } from './apiTime';
import { readDefaultCountry, readPhoneNumber, type DefaultCountry } from './phoneNumbers';

/** Where a value came from, so that an error can name the item and the field. */
export interface FieldRef {
	node: INode;
	/** The input item; a trigger's parameters belong to no item. */
	itemIndex?: number;
	/** The parameter's name, as in the workflow JSON. */
	field: string;
	/** The parameter's name as shown in the editor. */
	label: string;
}

/**
 * Where the values of one item come from: `fields(prefix)(name, label)` names a parameter, under
 * `prefix` (a collection such as `options`) when given.
 */
export function fieldsOf(node: INode, itemIndex: number | undefined, prefix?: string) {
	return (field: string, label: string): FieldRef => ({
		node,
		itemIndex,
		field: prefix ? `${prefix}.${field}` : field,
		label,
	});
}

/** Whether an optional parameter was given: unset filters are left out of the request. */
export function isSet(value: unknown): boolean {
	return value !== undefined && value !== null && value !== '';
}

/**
 * The one error for input the node cannot use: n8n's editor names the item from its itemIndex, and
 * the hint says what to do. It is thrown before any request is made for that item.
 */
function inputError(
	node: INode,
	message: string,
	hint: string | undefined,
	itemIndex?: number,
): NodeOperationError {
	return new NodeOperationError(node, message, { itemIndex, description: hint, level: 'warning' });
}

/** An input error for a node that sends all items in one request, so nothing at all was sent. */
export function nothingSentError(node: INode, message: string, hint?: string): NodeOperationError {
	return inputError(node, message, hint ? `${hint} Nothing was sent.` : 'Nothing was sent.', 0);
}

function invalidField(ref: FieldRef, problem: string, hint?: string): NodeOperationError {
	return inputError(ref.node, `${ref.label} ${problem}`, hint, ref.itemIndex);
}

/**
 * A URL, or what was meant as one, without the user and password it may carry before its host
 * (`http://alice:s3cret@proxy:3128`, `alice:s3cret@proxy:3128`): errors never show them.
 */
export function withoutCredentials(text: string): string {
	return text.replace(
		/^(\s*[a-z][a-z0-9+.-]*:\/\/)?[^/?#@\s]*@/i,
		(_, scheme = '') => `${scheme}***@`,
	);
}

function show(value: unknown): string {
	return JSON.stringify(value) ?? String(value);
}

function asText(ref: FieldRef, value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (value === undefined || value === null) return '';
	throw invalidField(ref, `must be text, got ${show(value)}`);
}

export function requiredText(ref: FieldRef, value: unknown): string {
	const text = asText(ref, value);
	if (text.trim() === '')
		throw invalidField(ref, 'is empty', 'Enter a value or an expression that gives one.');
	return text;
}

/** Sender ID names (create, update) and the send `senderId` are 1 to 11 characters. */
export function senderIdName(ref: FieldRef, value: unknown): string {
	const text = requiredText(ref, value).trim();
	if (text.length > 11) {
		throw invalidField(
			ref,
			`is ${text.length} characters long; the API allows 1 to 11`,
			`Got ${show(text)}.`,
		);
	}
	return text;
}

/** How a node reads national numbers: by the country of its setting, if it has one. */
export interface NationalNumbers {
	/** The node has a Default Country Code setting (SMS → Send's Options). */
	hasSetting: boolean;
	/** Its value, when set. */
	country?: DefaultCountry;
}

const COUNTRY_CODE_EXAMPLES = '44 or GB for Britain, 1 or US for the United States';

/**
 * A recipient's number, read by `readPhoneNumber` (the same rules wherever the package takes a
 * number from the user); anything it refuses is an error naming the field and the fix.
 */
export function phoneNumber(
	ref: FieldRef,
	value: unknown,
	national: NationalNumbers = { hasSetting: false },
): string {
	const raw = requiredText(ref, value);
	const read = readPhoneNumber(raw, national.country);
	if ('digits' in read) return read.digits;
	if (read.refused === 'national') {
		const fix = 'Add the country code (for example +44 7700 900123 for the British 07700 900123)';
		throw invalidField(
			ref,
			`has no country code: ${show(raw)} ${
				/^[\s(]*0/.test(raw)
					? 'starts with the national trunk prefix 0'
					: 'writes an area code in parentheses, as a national number'
			}`,
			national.hasSetting
				? `${fix}, or set Default Country Code in Options (${COUNTRY_CODE_EXAMPLES}).`
				: `${fix}.`,
		);
	}
	if (read.refused === 'length') {
		throw invalidField(
			ref,
			`is not a possible phone number: ${show(raw)} has too many or too few digits for a number of +${read.callingCode}`,
			'Check the digits: each number is read by its own country’s rules (Google’s libphonenumber).',
		);
	}
	throw invalidField(
		ref,
		`is not a phone number: ${show(raw)}`,
		'Use the number with its country code, for example 254712345678 or +254 712 345 678; letters and extensions cannot receive an SMS.',
	);
}

/** Default Country Code: a calling code ("44", "+44") or a country's ISO code ("GB"). */
export function defaultCountry(ref: FieldRef, value: unknown): DefaultCountry {
	const text = requiredText(ref, value).trim();
	const country = readDefaultCountry(text);
	if (country === undefined) {
		throw invalidField(
			ref,
			`is not a country code: ${show(text)}`,
			`Use a country's calling code or its two-letter ISO code, for example ${COUNTRY_CODE_EXAMPLES}.`,
		);
	}
	return country;
}

/** A value of an options parameter, which an expression can set to anything. */
export function oneOf(ref: FieldRef, value: unknown, allowed: string[]): string {
	if (typeof value === 'string' && allowed.includes(value)) return value;
	throw invalidField(ref, `must be one of ${allowed.join(', ')}, got ${show(value)}`);
}

/** A multi-options value: at least one entry, each one of `allowed`. */
export function oneOrMoreOf(ref: FieldRef, value: unknown, allowed: string[]): string[] {
	if (!Array.isArray(value) || value.length === 0) {
		throw invalidField(ref, `must name at least one of ${allowed.join(', ')}, got ${show(value)}`);
	}
	return value.map((entry) => oneOf(ref, entry, allowed));
}

/** A whole number from `min` to `max`; a number field set by an expression can be anything. */
export function integerInRange(ref: FieldRef, value: unknown, min: number, max = Infinity): number {
	if (!isSet(value))
		throw invalidField(ref, 'is empty', 'Enter a number or an expression that gives one.');
	// Digits only in text: Number() would read "0x10" as 16 and "1e3" as 1000.
	const number =
		typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
		const range = max === Infinity ? `of ${min} or more` : `from ${min} to ${max}`;
		throw invalidField(ref, `must be a whole number ${range}, got ${show(value)}`);
	}
	return number;
}

export function positiveInteger(ref: FieldRef, value: unknown): number {
	return integerInRange(ref, value, 1);
}

/** A switch set by an expression must still give true or false. */
export function booleanValue(ref: FieldRef, value: unknown): boolean {
	if (typeof value === 'boolean') return value;
	throw invalidField(ref, `must be true or false, got ${show(value)}`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function uuid(ref: FieldRef, value: unknown): string {
	const text = requiredText(ref, value).trim();
	if (!UUID.test(text)) {
		throw invalidField(
			ref,
			`is not a UUID: ${show(text)}`,
			'A campaign ID looks like 3f2b8c1e-9d4a-4b7e-8f21-5c6d7e8f9a0b.',
		);
	}
	return text;
}

const DATE_ONLY = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/;
const DAY_MONTH_ORDER = /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$/;

/** The ISO 8601 text of a Date or of n8n's DateTime (Luxon), if it is one. */
function isoOf(value: object): unknown {
	const candidate = value as { toISO?: () => string; toISOString?: () => string };
	return candidate.toISO?.() ?? candidate.toISOString?.();
}

/**
 * A moment: an ISO 8601 date-time (as Send's output or the SMS list gives it; UTC without an
 * offset, as `apiTime` reads the API's times), a Date or n8n's DateTime; in ms.
 */
export function dateTime(ref: FieldRef, value: unknown): number {
	const text = value && typeof value === 'object' ? isoOf(value) : value;
	const at =
		typeof text === 'string' && /^\d{4}-\d{2}-\d{2}[T ]/.test(text.trim()) ? apiTime(text) : NaN;
	if (Number.isNaN(at)) {
		throw invalidField(
			ref,
			`is not a date and time: ${show(value)}`,
			"Use an ISO 8601 date-time such as 2026-11-25T09:30:00Z, as SMS → Send's output field sentAt gives it, or leave it empty.",
		);
	}
	return at;
}

/**
 * The API takes dates as YYYY-MM-DD. A date picked in the editor, typed as an ISO date or a whole
 * ISO date-time, or given by an expression (Luxon DateTime, JavaScript Date) keeps the calendar
 * date it names; "01/02/2026" is refused because it reads as two different days, and so is
 * anything after a date that is not a real time ("2026-11-01 garbage", "2026-11-01T25:99").
 */
export function apiDate(ref: FieldRef, value: unknown): string {
	const fail = () =>
		invalidField(
			ref,
			`is not a date: ${show(value)}`,
			'Use a date such as 2026-11-01, or pick one.',
		);
	let text: string;
	if (value && typeof value === 'object') {
		const iso = isoOf(value);
		if (typeof iso !== 'string') throw fail();
		text = iso;
	} else {
		text = requiredText(ref, value).trim();
	}
	const parts = DATE_ONLY.exec(text);
	if (parts) {
		const date = realDay(Number(parts[1]), Number(parts[2]), Number(parts[3]));
		if (date === undefined) throw fail();
		return date;
	}
	if (/^\d{4}-/.test(text)) {
		if (Number.isNaN(apiTime(text))) throw fail();
		return text.slice(0, 10);
	}
	if (DAY_MONTH_ORDER.test(text)) throw fail();
	const parsed = new Date(text);
	if (Number.isNaN(parsed.getTime()) || !/[a-z]/i.test(text)) throw fail();
	return realDay(parsed.getFullYear(), parsed.getMonth() + 1, parsed.getDate()) ?? '';
}

/** A credential's base URL as requests use it: without spaces around it or a trailing slash. */
export function baseUrlOf(value: unknown): string {
	return String(value ?? '')
		.trim()
		.replace(/\/+$/, '');
}

/**
 * A base URL from the credential: http or https with a host. Checked before the first request, so
 * that a URL without a scheme ("send.example.com/api/v3") is refused by name instead of failing
 * in the HTTP client.
 */
export function httpUrl(ref: FieldRef, value: unknown): string {
	const text = requiredText(ref, value).trim();
	let url: URL | undefined;
	try {
		url = new URL(text);
	} catch {
		url = undefined;
	}
	if (!url || !['http:', 'https:'].includes(url.protocol) || !url.hostname) {
		throw invalidField(
			ref,
			`is not an http or https URL with a host: ${show(withoutCredentials(text))}`,
			'Nothing was sent. Correct it in the credential, for example https://api.example.com/api/v3.',
		);
	}
	return text;
}
