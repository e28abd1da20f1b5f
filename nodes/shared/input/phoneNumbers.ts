// Phone numbers as people write them, read into the API's digits with libphonenumber's rules.
import {
	getCountries,
	getCountryCallingCode,
	isSupportedCountry,
	parsePhoneNumberWithError,
	type CountryCode,
	type PhoneNumber,
} from '../vendor/libphonenumber';

/** The country national numbers belong to: an ISO code (GB) or a calling code (44, its main country). */
export type DefaultCountry = { defaultCountry: CountryCode } | { defaultCallingCode: string };

/** What a number as written became: the API's digits, or why it cannot be sent. */
type NumberReading =
	| { digits: string }
	| { refused: 'national' | 'notANumber' }
	| { refused: 'length'; callingCode: string };

/** Digits, spaces, dashes, dots and parentheses, a "+" only in front: letters or "ext." are not. */
const AS_WRITTEN = /^\+?[\d\s\-().]+$/;
const DECORATION = /[\s\-.]/g;

/** The calling codes of the countries libphonenumber knows, read once. */
let callingCodes: Set<string> | undefined;

/** "GB", "gb", "44" or "+44"; undefined when it names no country libphonenumber knows. */
export function readDefaultCountry(text: string): DefaultCountry | undefined {
	const written = text.trim();
	if (/^[a-z]{2}$/i.test(written)) {
		const country = written.toUpperCase();
		return isSupportedCountry(country) ? { defaultCountry: country as CountryCode } : undefined;
	}
	const code = /^\+?([1-9]\d{0,2})$/.exec(written)?.[1];
	callingCodes ??= new Set(getCountries().map((country) => getCountryCallingCode(country)));
	return code !== undefined && callingCodes.has(code) ? { defaultCallingCode: code } : undefined;
}

function parse(text: string, country?: DefaultCountry): PhoneNumber | undefined {
	try {
		return parsePhoneNumberWithError(text, country);
	} catch {
		// libphonenumber's ParseError: no country code it knows, or too few digits to be a number.
		return undefined;
	}
}

function reading(number: PhoneNumber | undefined): NumberReading {
	if (number === undefined) return { refused: 'notANumber' };
	if (!number.isPossible()) return { refused: 'length', callingCode: number.countryCallingCode };
	return { digits: number.number.slice(1) };
}

/**
 * A phone number as people write it, read into the API's form: digits with the country code, no
 * plus sign (spec 2.3), by the rules of the number's country. "+" or "00" in front (or the default
 * country's own international prefix, 011 from the US) is international. With a default country
 * any other number is read as one of its national numbers first, then as digits that already
 * carry a country code (the API's own form). Without one, a leading 0 or parentheses mean a
 * national number (`national`), and other digits carry their country code. Only length refuses:
 * a range the metadata does not know yet still goes out.
 */
export function readPhoneNumber(text: string, country?: DefaultCountry): NumberReading {
	const written = text.trim();
	if (!AS_WRITTEN.test(written)) return { refused: 'notANumber' };
	const compact = written.replace(DECORATION, '');
	if (compact.startsWith('+')) return reading(parse(written));
	if (compact.startsWith('00')) return reading(parse(`+${compact.slice(2)}`));
	if (country !== undefined) {
		const national = reading(parse(written, country));
		if ('digits' in national) return national;
		const international = reading(parse(`+${compact.replace(/[()]/g, '')}`));
		return 'digits' in international ? international : national;
	}
	if (compact.startsWith('0') || compact.includes('(')) return { refused: 'national' };
	return reading(parse(`+${compact}`));
}

/** The number as `readPhoneNumber` reads it without a default country; undefined if refused. */
export function normalisedPhoneNumber(text: string): string | undefined {
	const read = readPhoneNumber(text);
	return 'digits' in read ? read.digits : undefined;
}
