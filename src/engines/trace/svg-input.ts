import { Resvg } from '@resvg/resvg-js';
import { svgIntrinsicSize } from '../../media/svg-size.ts';
import { parseSvg } from '../../svg/parse.ts';
import { serializeSvg } from '../../svg/serialize.ts';
import { subjectBox, withMargin } from './raster.ts';

/** Longest side an SVG is rendered at to find its subject: enough for a 0.1% crop precision. */
const CROP_RENDER_SIDE = 1024;
export const CROP_MARGIN = 0.04;

const round = (n: number) => String(Math.round(n * 1000) / 1000);

export interface SvgVectorizeOptions {
  autoCrop: boolean;
  targetSize?: number;
}

/**
 * An SVG input to vectorize is already vector: it is not traced but normalized (its markup was
 * sanitized when the request arrived). `auto_crop` renders it once, under the pixel limits, to
 * find the subject and shrinks the viewBox to it; `target_size` sets the longer side of
 * width/height.
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
    probe.set('width', round(box.width * scale));
    probe.set('height', round(box.height * scale));
    probe.set('preserveAspectRatio', 'none');
    const rendered = new Resvg(serializeSvg({ ...root, attributes: probe }), { font: { loadSystemFonts: false } }).render();
    const image = { width: rendered.width, height: rendered.height, pixels: Buffer.from(rendered.pixels) };
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
