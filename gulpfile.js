const { src, dest } = require('gulp');

// tsc compiles the TypeScript; n8n also needs the icons and the codex (node .json) beside it.
function copyAssets() {
	return src(['icons/*.svg', 'nodes/**/*.json'], { base: '.' }).pipe(dest('dist'));
}

exports['build:assets'] = copyAssets;
