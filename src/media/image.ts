import { imageSize } from 'image-size';
import sharp, { type Metadata } from 'sharp';
import { ApiError } from '../contract/errors.ts';
import type { SvgElement } from '../svg/tree.ts';
import { IMAGE_MAX_BYTES, IMAGE_MAX_PIXELS, IMAGE_MAX_SIDE, pixelCapExceeded, SVG_MAX_BYTES } from '../contract/media-size.ts';
import { sniffImageFormat, type ImageFormat } from './sniff.ts';
import { svgFromBytes } from './svg-input.ts';
import { isUsableSvgSize, SVG_SIZE_RANGE, svgIntrinsicSize, type SvgSize } from '../svg/geometry.ts';

export type RasterFormat = Exclude<ImageFormat, 'svg'>;

/** An image input that passed every check, ready for an engine. */
export type CheckedImage =
  | { format: RasterFormat; bytes: Buffer; width: number; height: number; frames: number }
  | { format: 'svg'; markup: string; root: SvgElement; size: SvgSize };

function tooLarge(param: string, detail: string): ApiError {
  return new ApiError('payload_too_large', { param, message: `The image in '${param}' is too large: ${detail}.` });
}

function invalid(param: string, detail: string): ApiError {
  return new ApiError('invalid_request', { param, message: `Invalid image in '${param}': ${detail}.` });
}

/** The spec's pixel caps, on dimensions read from a header (raster) or an SVG's intrinsic size. */
export function checkDimensions(width: number, height: number, param: string): void {
  const exceeded = pixelCapExceeded(width, height);
  if (exceeded === 'side') throw tooLarge(param, `${width}x${height} pixels, at most ${IMAGE_MAX_SIDE}x${IMAGE_MAX_SIDE} are accepted`);
  if (exceeded === 'pixels') throw tooLarge(param, `more than ${IMAGE_MAX_PIXELS} pixels`);
}

/** How much of a raster image its declared-size check reads (every PNG, GIF and WebP header is in the first 30 bytes). */
const DECLARED_SIZE_SCAN_BYTES = 65_536;

/** image-size's name of each raster format. */
const IMAGE_SIZE_TYPE: Record<RasterFormat, string> = { png: 'png', jpeg: 'jpg', gif: 'gif', webp: 'webp' };

const damaged = (param: string, format: RasterFormat) => invalid(param, `the ${format.toUpperCase()} data is damaged or incomplete`);

/**
 * The canvas the header declares — PNG IHDR, JPEG SOF, WebP canvas (VP8X included), GIF logical
 * screen — held to the pixel limits. A decoder reports the first frame, and a GIF's 1×1 frame on
 * a 65535×65535 screen passes that. image-size reads at most the first 64 KiB, since its JPEG
 * marker walk costs ~2 s on 12 MB of crafted segments. A JPEG it cannot size (SOF beyond that,
 * or a lossless or arithmetic SOF it does not know) is left to sharp's header read, which reports
 * that same SOF, and refuses it if it is damaged.
 */
function checkDeclaredCanvas(bytes: Buffer, format: RasterFormat, param: string): void {
  let declared: { width: number; height: number; type?: string };
  try {
    declared = imageSize(bytes.subarray(0, DECLARED_SIZE_SCAN_BYTES));
  } catch {
    if (format === 'jpeg') return;
    throw damaged(param, format);
  }
  if (declared.type !== IMAGE_SIZE_TYPE[format]) throw damaged(param, format);
  if (!declared.width || !declared.height) throw invalid(param, 'the image has no dimensions');
  checkDimensions(declared.width, declared.height, param);
}

/**
 * Checks an image's bytes before anything decodes them: the type is sniffed from the bytes
 * (png, jpeg, webp, gif, svg), and raster dimensions are read from the header alone, so a
 * decompression bomb is refused without inflating a single row. SVG is parsed and sanitized.
 */
export async function checkImageBytes(bytes: Buffer, param: string): Promise<CheckedImage> {
  if (bytes.length > IMAGE_MAX_BYTES) throw tooLarge(param, `${bytes.length} bytes, at most ${IMAGE_MAX_BYTES} are accepted`);
  const format = sniffImageFormat(bytes);
  if (!format) throw invalid(param, 'not a PNG, JPEG, WebP, GIF or SVG image');
  if (format === 'svg') {
    // Markup is parsed, not decoded: it is held to the SVG input size, whatever the image limit.
    if (bytes.length > SVG_MAX_BYTES) throw tooLarge(param, `SVG data of ${bytes.length} bytes, at most ${SVG_MAX_BYTES} are accepted`);
    const { markup, root } = svgFromBytes(bytes, param);
    const size = svgIntrinsicSize(root);
    if (!isUsableSvgSize(size)) {
      throw invalid(param, `the SVG's width, height or viewBox is outside ${SVG_SIZE_RANGE.min} to ${SVG_SIZE_RANGE.max} units`);
    }
    return { format, markup, root, size };
  }
  checkDeclaredCanvas(bytes, format, param);
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw damaged(param, format);
  }
  const { width, height } = metadata;
  if (!width || !height || metadata.format === undefined) throw invalid(param, 'the image has no dimensions');
  checkDimensions(width, metadata.pageHeight ?? height, param);
  return { format, bytes, width, height: metadata.pageHeight ?? height, frames: metadata.pages ?? 1 };
}
