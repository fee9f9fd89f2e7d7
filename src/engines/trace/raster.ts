import sharp from 'sharp';
import { IMAGE_MAX_PIXELS } from '../../contract/media-size.ts';
import type { RgbaImage } from './pixels.ts';

// One libvips thread per worker: the pool already spreads jobs over the cores.
sharp.concurrency(1);
sharp.cache(false);

export class UndecodableImageError extends Error {
  override name = 'UndecodableImageError';
}

/** Decodes the first frame to straight RGBA, refusing more pixels than the spec allows. */
export async function decodeRgba(bytes: Buffer): Promise<RgbaImage> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: IMAGE_MAX_PIXELS, pages: 1, failOn: 'error' })
      .rotate() // EXIF orientation, so the trace looks like the photo as viewers show it
      .toColourspace('srgb')
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, pixels: data };
  } catch (error) {
    throw new UndecodableImageError((error as Error).message);
  }
}

/** Resizes RGBA pixels (premultiplied while resampling, so transparent edges do not darken). */
export async function resizeRgba(image: RgbaImage, width: number, height: number): Promise<RgbaImage> {
  if (width === image.width && height === image.height) return image;
  const { data, info } = await sharp(image.pixels, { raw: { width: image.width, height: image.height, channels: 4 } })
    .resize(width, height, { fit: 'fill', kernel: width > image.width ? 'cubic' : 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: data };
}

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Colour distance under which a pixel counts as background when trimming. */
const TRIM_TOLERANCE = 24;

/**
 * The box of the subject: everything that differs from the background, where the background is
 * transparency (when the top-left pixel is transparent) or the top-left pixel's colour.
 * Undefined when the whole image is background.
 */
export function subjectBox(image: RgbaImage): Box | undefined {
  const { width, height, pixels } = image;
  const transparent = pixels[3]! < 16;
  const [r0, g0, b0] = [pixels[0]!, pixels[1]!, pixels[2]!];
  let left = width;
  let right = -1;
  let top = height;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    let row = y * width * 4;
    for (let x = 0; x < width; x++, row += 4) {
      const alpha = pixels[row + 3]!;
      const subject = transparent
        ? alpha >= 16
        : alpha < 240 || Math.abs(pixels[row]! - r0) + Math.abs(pixels[row + 1]! - g0) + Math.abs(pixels[row + 2]! - b0) > TRIM_TOLERANCE;
      if (!subject) continue;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      if (y > bottom) bottom = y;
    }
  }
  return right < 0 ? undefined : { left, top, width: right - left + 1, height: bottom - top + 1 };
}

/** The box grown by a margin of `fraction` of its longer side on every edge, clipped to the image. */
export function withMargin(box: Box, fraction: number, image: { width: number; height: number }): Box {
  const margin = Math.max(1, Math.round(Math.max(box.width, box.height) * fraction));
  const left = Math.max(0, box.left - margin);
  const top = Math.max(0, box.top - margin);
  const right = Math.min(image.width, box.left + box.width + margin);
  const bottom = Math.min(image.height, box.top + box.height + margin);
  return { left, top, width: right - left, height: bottom - top };
}

/** Copies a box out of RGBA pixels. */
export function cropRgba(image: RgbaImage, box: Box): RgbaImage {
  if (box.left === 0 && box.top === 0 && box.width === image.width && box.height === image.height) return image;
  const pixels = Buffer.allocUnsafe(box.width * box.height * 4);
  for (let y = 0; y < box.height; y++) {
    const from = ((box.top + y) * image.width + box.left) * 4;
    image.pixels.copy(pixels, y * box.width * 4, from, from + box.width * 4);
  }
  return { width: box.width, height: box.height, pixels };
}
