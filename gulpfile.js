const { copyFile } = require('node:fs/promises');
const path = require('node:path');

const { build } = require('esbuild');
const { parallel, series, src, dest } = require('gulp');

// tsc compiles the TypeScript; n8n also needs the icons and the codex (node .json) beside it.
function copyAssets() {
	return src(['icons/*.svg', 'nodes/**/*.json'], { base: '.' }).pipe(dest('dist'));
}

// libphonenumber-js goes into dist inside the one module that re-exports it, in place of tsc's
// output, its licence beside it: n8n's verification allows the package no runtime dependency.
const VENDOR = 'nodes/shared/vendor';

// The library's es6 build carries Babel's helpers for object spread and for-of, which took most
// of the time of a lookup that reads 150,000 numbers; its es6-modern build is the same code
// without them.
const modernLibphonenumber = {
	name: 'libphonenumber-es6-modern',
	setup(plugin) {
		plugin.onResolve({ filter: /^\./ }, ({ path: imported, resolveDir }) => {
			const resolved = path.resolve(resolveDir, imported);
			const es6 = `${path.sep}libphonenumber-js${path.sep}es6${path.sep}`;
			if (!resolved.includes(es6)) return undefined;
			return { path: resolved.replace(es6, `${path.sep}libphonenumber-js${path.sep}es6-modern${path.sep}`) };
		});
	},
};

function bundleLibphonenumber() {
	return build({
		plugins: [modernLibphonenumber],
		entryPoints: [`${VENDOR}/libphonenumber.ts`],
		outfile: `dist/${VENDOR}/libphonenumber.js`,
		allowOverwrite: true,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'es2019',
		banner: { js: '// libphonenumber-js (MIT licence: libphonenumber-js.LICENSE beside this file)' },
		logLevel: 'warning',
	});
}

function copyLibphonenumberLicence() {
	return copyFile(
		'node_modules/libphonenumber-js/LICENSE',
		`dist/${VENDOR}/libphonenumber-js.LICENSE`,
	);
}

exports['build:assets'] = parallel(copyAssets, series(bundleLibphonenumber, copyLibphonenumberLicence));
