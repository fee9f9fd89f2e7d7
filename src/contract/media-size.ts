// The size caps of image and SVG inputs, each written once: the base64 lengths are the request
// fields' bounds, the decoded byte caps follow from them, the pixel caps are the spec's own.
// Base64 and URL inputs, SVG markup given as an image and rasters embedded in an SVG are all held
// to these numbers.

/** Longest base64 image input, in characters (spec: 1 to 16777216). */
export const IMAGE_BASE64_MAX_LENGTH = 16_777_216;

/** Longest base64 SVG input, in characters (spec: 1 to 1066668). */
export const SVG_BASE64_MAX_LENGTH = 1_066_668;

/** The most bytes base64 text of `length` characters decodes to: 3 bytes per 4 characters. */
export function base64DecodedMaxBytes(length: number): number {
  return Math.floor((length * 3) / 4);
}

/** Decoded image bytes: what the longest base64 image input decodes to (12 582 912). */
export const IMAGE_MAX_BYTES = base64DecodedMaxBytes(IMAGE_BASE64_MAX_LENGTH);

/** An SVG input's bytes, however it arrives: what the longest base64 SVG input decodes to (800 001). */
export const SVG_MAX_BYTES = base64DecodedMaxBytes(SVG_BASE64_MAX_LENGTH);

/** Longest side of an image, in pixels. */
export const IMAGE_MAX_SIDE = 4096;

/** Most pixels of an image (width × height). */
export const IMAGE_MAX_PIXELS = 16_777_216;

/** The pixel cap an image of this size breaks: a side over IMAGE_MAX_SIDE, or too many pixels. */
export function pixelCapExceeded(width: number, height: number): 'side' | 'pixels' | undefined {
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE) return 'side';
  return width * height > IMAGE_MAX_PIXELS ? 'pixels' : undefined;
}
