export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'svg';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Optional BOM, XML declaration, comments and whitespace, then the root `<svg`. */
const SVG_PROLOGUE = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>/]/;

/**
 * The image type, from the bytes only: a declared content type or data: URL type is never
 * trusted, so a PNG labelled SVG (or the reverse) is read as what it is.
 */
export function sniffImageFormat(bytes: Buffer): ImageFormat | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.toString('latin1', 0, 6))) return 'gif';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (SVG_PROLOGUE.test(bytes.toString('utf8', 0, Math.min(bytes.length, 4096)))) return 'svg';
  return undefined;
}
