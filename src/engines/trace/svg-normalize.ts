import { Resvg } from '@resvg/resvg-js';
import { svgIntrinsicSize } from '../../svg/geometry.ts';
import { parseSvg } from '../../svg/parse.ts';
import { serializeSvg } from '../../svg/serialize.ts';
import { subjectBox, withMargin } from './raster.ts';
import type { RgbaImage } from './pixels.ts';

/** Longest side an SVG is rendered at to find its subject: enough for a 0.1% crop precision. */
const CROP_RENDER_SIDE = 1024;
export const CROP_MARGIN = 0.04;

/** Three decimals, or four significant digits below 1, so a tiny crop never becomes 0. */
const round = (n: number) => String(Math.abs(n) >= 1 ? Math.round(n * 1000) / 1000 : Number(n.toPrecision(4)));

/** resvg refused the SVG (too many nodes after <use> expansion, say). */
export class UnrenderableSvgError extends Error {
  override name = 'UnrenderableSvgError';
}

/**
 * Renders sanitized markup at its own width and height. A render that runs long (filters can
 * be made arbitrarily slow) is stopped by the pool's deadline, which kills the whole process.
 */
function render(markup: string): RgbaImage {
  try {
    const rendered = new Resvg(markup, { font: { loadSystemFonts: false } }).render();
    return { width: rendered.width, height: rendered.height, pixels: Buffer.from(rendered.pixels) };
  } catch (error) {
    throw new UnrenderableSvgError(String((error as Error).message ?? error).split('\n')[0]!.slice(0, 200));
  }
}

export interface SvgVectorizeOptions {
  autoCrop: boolean;
  targetSize?: number;
}

/**
 * An SVG input to vectorize is already vector: it is not traced but normalized (its markup was
 * sanitized, and its size checked, when the request arrived). `auto_crop` renders it once, at
 * most 1024 px a side, to find the subject and shrinks the viewBox to it; `target_size` sets
 * the longer side of width/height.
 */
export function normalizeSvgInput(markup: string, options: SvgVectorizeOptions): string {
  const root = parseSvg(markup);
  const size = svgIntrinsicSize(root);
  let box = size.viewBox ?? { minX: 0, minY: 0, width: size.width, height: size.height };
  const unitsPerPx = { x: size.width / box.width, y: size.height / box.height };
  if (options.autoCrop) {
    const scale = CROP_RENDER_SIDE / Math.max(box.width, box.height);
    const probe = new Map(root.attributes);
    probe.set('viewBox', `${box.minX} ${box.minY} ${box.width} ${box.height}`);
    // At least one pixel a side: a very thin viewBox still renders.
    probe.set('width', String(Math.max(1, Math.round(box.width * scale))));
    probe.set('height', String(Math.max(1, Math.round(box.height * scale))));
    probe.set('preserveAspectRatio', 'none');
    const image = render(serializeSvg({ ...root, attributes: probe }));
    const subject = subjectBox(image);
    if (subject) {
      const crop = withMargin(subject, CROP_MARGIN, image);
      const [sx, sy] = [box.width / image.width, box.height / image.height];
      box = { minX: box.minX + crop.left * sx, minY: box.minY + crop.top * sy, width: crop.width * sx, height: crop.height * sy };
    }
  }
  let width = box.width * unitsPerPx.x;
  let height = box.height * unitsPerPx.y;
  if (options.targetSize) {
    const scale = options.targetSize / Math.max(width, height);
    width *= scale;
    height *= scale;
  }
  const attributes = new Map(root.attributes);
  attributes.set('viewBox', [box.minX, box.minY, box.width, box.height].map(round).join(' '));
  attributes.set('width', round(width));
  attributes.set('height', round(height));
  return serializeSvg({ ...root, attributes });
}
