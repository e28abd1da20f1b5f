import { config } from '@n8n/node-cli/eslint';

export default [
	...config,
	{
		// A function a reader can hold in one screen (docs/development.md, "Reading the code").
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		rules: { 'max-lines-per-function': ['error', { max: 60 }] },
	},
];
