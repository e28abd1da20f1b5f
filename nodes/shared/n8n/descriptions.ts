// What the three nodes' descriptions share: the icon and n8n's main connection.
import { NodeConnectionTypes, type Icon } from 'n8n-workflow';

/** The icon of the three nodes (paths from their folders under nodes/). */
export const SMS_ICON: Icon = {
	light: 'file:../../icons/sms.svg',
	dark: 'file:../../icons/sms.dark.svg',
};

/**
 * n8n's main connection, for every node's inputs and outputs. The n8n-workflow of n8n 1.82 (1.80)
 * has no NodeConnectionTypes yet: reading `.Main` there threw, and no node of the package loaded.
 */
export const MAIN_CONNECTION =
	(NodeConnectionTypes as Partial<typeof NodeConnectionTypes> | undefined)?.Main ?? 'main';
