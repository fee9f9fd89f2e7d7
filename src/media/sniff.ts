export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'svg';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** How much of the data the SVG sniff reads: a prologue longer than this is not an SVG we take. */
const SVG_SNIFF_CHARS = 4096;

/**
 * Whether the text opens an SVG document: optional BOM, XML declaration, comments, one DOCTYPE
 * and whitespace, then the root `<svg`. A forward scan with indexOf, so any input costs linear
 * time (a regular expression with repeated comment groups backtracks exponentially).
 */
function opensSvg(text: string): boolean {
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const skipSpace = () => {
    while (at < text.length && ' \t\r\n'.includes(text[at]!)) at++;
  };
  /** Skips `open ... close` at the cursor; false when it does not start there or never ends. */
  const skip = (open: string, close: string): boolean => {
    if (!text.startsWith(open, at)) return false;
    const end = text.indexOf(close, at + open.length);
    if (end < 0) return false;
    at = end + close.length;
    return true;
  };
  skipSpace();
  if (skip('<?xml', '?>')) skipSpace();
  let doctypeSeen = false;
  for (;;) {
    if (skip('<!--', '-->')) skipSpace();
    else if (!doctypeSeen && skip('<!DOCTYPE', '>')) {
      doctypeSeen = true;
      skipSpace();
    } else break;
  }
  return text.startsWith('<svg', at) && /[\s>/]/.test(text[at + 4] ?? '');
}

/**
 * The image type, from the bytes only: a declared content type or data: URL type is never
 * trusted, so a PNG labelled SVG (or the reverse) is read as what it is.
 */
export function sniffImageFormat(bytes: Buffer): ImageFormat | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.toString('latin1', 0, 6))) return 'gif';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (opensSvg(bytes.toString('utf8', 0, Math.min(bytes.length, SVG_SNIFF_CHARS)))) return 'svg';
  return undefined;
}
