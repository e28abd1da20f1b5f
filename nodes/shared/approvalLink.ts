// The code an SMS Messaging Approval link carries, in one place: the approval node makes and checks
// it, and every operation that outputs SMS records masks it in their text.

/** The query parameter of an approval link: `<recipient>.<code>`, whose link it is and the proof. */
export const LINK_PARAMETER = 'k';

/** The code: 16 random bytes, base64url. */
export const CODE_PATTERN = '[A-Za-z0-9_-]{22}';

const IN_TEXT = new RegExp(`([?&]${LINK_PARAMETER}=(?:0|[1-9][0-9]{0,8})\\.)${CODE_PATTERN}`, 'g');

/**
 * An SMS text with the code of every approval link in it replaced, so that an SMS record read back
 * from the provider's list (which stores the text as sent) holds no link that answers.
 */
function maskApprovalCodes(text: string): string {
	return text.replace(IN_TEXT, '$1[code hidden]');
}

/** An SMS record as the package outputs it: its `content` with approval codes masked. */
export function maskedSmsRecord<T extends Record<string, unknown>>(record: T): T {
	if (typeof record.content !== 'string') return record;
	return { ...record, content: maskApprovalCodes(record.content) };
}
