// How many SMS parts, and so credits, a text takes: GSM-7 or UCS-2, as the industry counts them.

/** GSM 03.38 basic character set: one septet each. */
const GSM_BASIC = new Set(
	'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
/** GSM 03.38 extension table: an escape plus the character, two septets each. */
const GSM_EXTENDED = new Set('^{}\\[~]|€\f');

interface PartEstimate {
	encoding: 'GSM-7' | 'UCS-2';
	/** Septets for GSM-7, UTF-16 code units for UCS-2. */
	length: number;
	parts: number;
}

/**
 * The API does not publish its part size. This uses the industry values: 160 GSM-7 septets (an
 * extension character takes two) in one part and 153 per part when split; 70 UCS-2 code units, 67
 * per part when split.
 */
export function estimateParts(text: string): PartEstimate {
	let septets = 0;
	for (const char of text) {
		if (GSM_BASIC.has(char)) septets += 1;
		else if (GSM_EXTENDED.has(char)) septets += 2;
		else {
			const units = text.length;
			return { encoding: 'UCS-2', length: units, parts: units <= 70 ? 1 : Math.ceil(units / 67) };
		}
	}
	return {
		encoding: 'GSM-7',
		length: septets,
		parts: septets <= 160 ? 1 : Math.ceil(septets / 153),
	};
}
