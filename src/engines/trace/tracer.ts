import { vectorizeRaw } from '@neplex/vectorizer';
import type { ReasoningEffort } from '../../contract/common.ts';

/** Decoded, straight-alpha RGBA pixels, row-major, 4 bytes per pixel. */
export interface RgbaImage {
  width: number;
  height: number;
  pixels: Buffer;
}

export interface TraceOptions {
  effort: ReasoningEffort;
  /** Longer side of the output's width/height; the source size when absent. */
  targetSize?: number;
}

export interface TraceResult {
  svg: string;
  paths: number;
}

/** Width and height of the output: the source size, or the longer side scaled to targetSize. */
export function outputSize(image: { width: number; height: number }, targetSize?: number): { width: number; height: number } {
  if (!targetSize) return { width: image.width, height: image.height };
  const scale = targetSize / Math.max(image.width, image.height);
  return { width: Math.max(1, Math.round(image.width * scale)), height: Math.max(1, Math.round(image.height * scale)) };
}

/** Traces RGBA pixels into SVG markup (work in progress: VTracer defaults for now). */
export async function traceImage(image: RgbaImage, options: TraceOptions): Promise<TraceResult> {
  const raw = await vectorizeRaw(image.pixels, { width: image.width, height: image.height });
  const body = raw.slice(raw.indexOf('>', raw.indexOf('<svg')) + 1, raw.lastIndexOf('</svg>'));
  const size = outputSize(image, options.targetSize);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${image.width} ${image.height}" width="${size.width}" height="${size.height}">${body}</svg>`;
  return { svg, paths: (svg.match(/<path/g) ?? []).length };
}
