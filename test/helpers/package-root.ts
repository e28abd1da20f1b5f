import fs from 'node:fs';
import path from 'node:path';

/** The package root: the nearest folder up with a package.json (also from compiled copies). */
export function packageRoot(dir = __dirname): string {
	return fs.existsSync(path.join(dir, 'package.json')) ? dir : packageRoot(path.dirname(dir));
}
