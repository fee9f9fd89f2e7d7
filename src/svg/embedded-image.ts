import { imageSize } from 'image-size';
import { IMAGE_MAX_BYTES, pixelCapExceeded } from '../contract/media-size.ts';

/** Raster types an <image> may embed, by MIME type, and the name image-size gives each. */
const EMBEDDABLE: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const PREFIX = 'data:';
const BASE64_MARKER = ';base64,';
const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The canonical `data:` URL of a raster image embedded in an <image>, or undefined when the
 * value is anything else. Only `data:image/png|jpeg|gif|webp;base64,…` whose decoded bytes
 * really are that format (magic number and header) and whose declared canvas is within the
 * input image size caps is kept: an SVG image (it could carry script into some viewers), any other
 * `data:` type and every external URL are refused. The returned value is rebuilt from what was
 * checked, so no parameter or whitespace of the original travels on.
 */
export function embeddedImageHref(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return undefined;
  const marker = trimmed.indexOf(BASE64_MARKER);
  if (marker < 0) return undefined;
  // The media type is all that may precede ;base64, (no charset or other parameters).
  const mime = trimmed.slice(PREFIX.length, marker).toLowerCase();
  const expected = EMBEDDABLE[mime];
  if (!expected) return undefined;
  const body = trimmed.slice(marker + BASE64_MARKER.length).replace(/[\t\n\r ]+/g, '');
  if (body.length === 0 || body.length % 4 !== 0 || !BASE64_BODY.test(body)) return undefined;
  if ((body.length / 4) * 3 > IMAGE_MAX_BYTES + 3) return undefined;
  const bytes = Buffer.from(body, 'base64');
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch {
    return undefined; // not an image image-size recognizes, or a damaged header
  }
  if (size.type !== expected) return undefined;
  const { width, height } = size;
  if (!(width > 0 && height > 0) || pixelCapExceeded(width, height)) return undefined;
  return `${PREFIX}${mime}${BASE64_MARKER}${body}`;
}
