import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { IMAGE_MAX_PIXELS } from '../contract/media-size.ts';

/** A checked image input, as a worker process receives it. */
export type ReferenceSource = { kind: 'raster'; bytes: Uint8Array } | { kind: 'svg'; markup: string };

/**
 * A reference image as a vision model takes it: at most `maxSide` pixels a side (never
 * enlarged), first frame, EXIF orientation applied; PNG when it has transparency or is a
 * drawing, JPEG (quality 85) for an opaque photo. Runs in a worker process.
 */
export async function referenceDataUrl(source: ReferenceSource, maxSide: number): Promise<string> {
  if (source.kind === 'svg') {
    const probe = new Resvg(source.markup, { font: { loadSystemFonts: false } });
    const mode = probe.width >= probe.height ? ('width' as const) : ('height' as const);
    const png = new Resvg(source.markup, { fitTo: { mode, value: maxSide }, font: { loadSystemFonts: false }, background: '#ffffff' }).render().asPng();
    return `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
  }
  const image = sharp(Buffer.from(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength), { limitInputPixels: IMAGE_MAX_PIXELS, pages: 1 })
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true });
  const { hasAlpha } = await image.metadata();
  const encoded = hasAlpha ? await image.png().toBuffer() : await image.jpeg({ quality: 85 }).toBuffer();
  return `data:image/${hasAlpha ? 'png' : 'jpeg'};base64,${encoded.toString('base64')}`;
}
