// Google's libphonenumber metadata (each country's trunk prefix, lengths, international prefix)
// through libphonenumber-js, `min` metadata. gulpfile.js bundles this file with the library into
// dist at build time: n8n's verification allows no runtime dependency.
export {
	getCountries,
	getCountryCallingCode,
	isSupportedCountry,
	parsePhoneNumberWithError,
} from 'libphonenumber-js/min';
export type { CountryCode, PhoneNumber } from 'libphonenumber-js/min';
