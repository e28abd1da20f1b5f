// What a file is by its first bytes, whatever its name or the type a browser gave it.

/** What a file's first bytes say it is; null: none of the kinds below. */
export type Content = { mime: string; extensions: string[] } | null;

/** Content kinds told by their first bytes: the images a phone takes, PDF, a phone's video. */
export function contentOf(head: Buffer): Content {
	const ascii = head.toString('latin1');
	const brand = ascii.slice(4, 8) === 'ftyp' ? ascii.slice(8, 12) : '';
	if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) {
		return { mime: 'image/jpeg', extensions: ['.jpg', '.jpeg', '.jpe', '.jfif'] };
	}
	if (ascii.startsWith('\x89PNG\r\n\x1a\n')) return { mime: 'image/png', extensions: ['.png'] };
	if (/^GIF8[79]a/.test(ascii)) return { mime: 'image/gif', extensions: ['.gif'] };
	if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') {
		return { mime: 'image/webp', extensions: ['.webp'] };
	}
	if (/^(heic|heix|hevc|hevx|heim|heis|mif1|msf1)$/.test(brand)) {
		return { mime: 'image/heic', extensions: ['.heic', '.heif'] };
	}
	if (/^avi[fs]$/.test(brand)) return { mime: 'image/avif', extensions: ['.avif'] };
	if (ascii.startsWith('II*\0') || ascii.startsWith('MM\0*')) {
		return { mime: 'image/tiff', extensions: ['.tif', '.tiff', '.dng'] };
	}
	if (ascii.startsWith('BM')) return { mime: 'image/bmp', extensions: ['.bmp'] };
	if (ascii.startsWith('%PDF-')) return { mime: 'application/pdf', extensions: ['.pdf'] };
	if (brand === 'qt  ') return { mime: 'video/quicktime', extensions: ['.mov', '.qt'] };
	if (/^(isom|iso2|mp41|mp42|avc1|M4V |3gp[0-9])$/.test(brand)) {
		return { mime: 'video/mp4', extensions: ['.mp4', '.m4v', '.3gp'] };
	}
	return null;
}

