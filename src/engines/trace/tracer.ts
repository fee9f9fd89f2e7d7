import { vectorizeRawSync, type ColorMode, type Config, type Hierarchical, type PathSimplifyMode } from '@neplex/vectorizer';
import type { ReasoningEffort } from '../../contract/common.ts';
import { alphaProfile, bilevel, downsampleBlocks, flatShare, luma, palette, pixelBlockSize, type Bilevel } from './analyze.ts';
import { compactColour, compactPathPieces } from './path-data.ts';
import type { RgbaImage } from './pixels.ts';
import { resizeRgba } from './raster.ts';
import { upsampleCubic } from './upsample.ts';

export interface TraceOptions {
  effort: ReasoningEffort;
  /** Longer side of the output's width/height; the source size when absent. */
  targetSize?: number;
}

export interface TraceResult {
  svg: string;
}

// The package declares its enums as ambient const enums, which this project's module settings
// cannot read as values; these are their published numbers.
const COLOR_MODE = { colour: 0 as ColorMode.Color, binary: 1 as ColorMode.Binary };
const STACKED = 0 as Hierarchical.Stacked;
const PATH_MODE = { none: 0 as PathSimplifyMode.None, polygon: 1 as PathSimplifyMode.Polygon, spline: 2 as PathSimplifyMode.Spline };

/** VTracer's own defaults, the starting point of every mode below. */
const VTRACER_DEFAULTS: Config = {
  colorMode: COLOR_MODE.colour,
  hierarchical: STACKED,
  filterSpeckle: 4,
  colorPrecision: 6,
  layerDifference: 16,
  mode: PATH_MODE.spline,
  cornerThreshold: 60,
  lengthThreshold: 4,
  maxIterations: 10,
  spliceThreshold: 45,
  pathPrecision: 2,
};

/** What each reasoning effort buys: the resolution traced at and the detail kept. */
const EFFORT: Record<ReasoningEffort, { maxSide: number; pixelArtMaxSide: number; bilevelScale: number; speckle: number; photoSpeckle: number }> = {
  low: { maxSide: 512, pixelArtMaxSide: 128, bilevelScale: 1, speckle: 6, photoSpeckle: 4 },
  medium: { maxSide: 1024, pixelArtMaxSide: 256, bilevelScale: 2, speckle: 4, photoSpeckle: 2 },
  high: { maxSide: 1536, pixelArtMaxSide: 384, bilevelScale: 2, speckle: 3, photoSpeckle: 2 },
  xhigh: { maxSide: 2048, pixelArtMaxSide: 512, bilevelScale: 3, speckle: 2, photoSpeckle: 1 },
};

/** Share of soft (shadow, glow) pixels from which they are traced as translucent layers. */
const SOFT_SHARE = 0.002;

/** Below this share of flat pixels an image is treated as a photograph. */
const PHOTO_FLATNESS = 0.3;

interface Shape {
  d: string;
  fill: string;
  offsetX: number;
  offsetY: number;
  opacity?: number;
}

/** Width and height of the output: the source size, or the longer side scaled to targetSize. */
export function outputSize(image: { width: number; height: number }, targetSize?: number): { width: number; height: number } {
  if (!targetSize) return { width: image.width, height: image.height };
  const scale = targetSize / Math.max(image.width, image.height);
  return { width: Math.max(1, Math.round(image.width * scale)), height: Math.max(1, Math.round(image.height * scale)) };
}

const PATH = /<path d="([^"]*)" fill="(#[0-9A-Fa-f]{6})"(?: transform="translate\((-?[\d.]+),(-?[\d.]+)\)")?\s*\/>/g;

/**
 * VTracer, synchronously: the tracer runs in a worker process that does one job at a time, so
 * blocking its event loop costs nothing, and the thread-pool hop of the async call (a wake-up
 * of two threads, several per job) is a large share of a small icon's trace on a busy machine.
 */
function vtrace(image: RgbaImage, config: Config): Shape[] {
  if (!hasVisiblePixel(image)) return []; // VTracer fails on an image with nothing to trace
  const svg = vectorizeRawSync(image.pixels, { width: image.width, height: image.height }, config);
  return [...svg.matchAll(PATH)].map((m) => ({ d: m[1]!, fill: m[2]!, offsetX: Number(m[3] ?? 0), offsetY: Number(m[4] ?? 0) }));
}

function hasVisiblePixel({ pixels }: RgbaImage): boolean {
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! >= 128) return true;
  return false;
}

/** A mask as VTracer's binary mode reads it: black where `inside`, white elsewhere, opaque. */
function maskImage(width: number, height: number, inside: (i: number) => boolean): RgbaImage {
  const pixels = Buffer.alloc(width * height * 4, 255);
  for (let i = 0; i < width * height; i++) {
    if (!inside(i)) continue;
    pixels[i * 4] = 0;
    pixels[i * 4 + 1] = 0;
    pixels[i * 4 + 2] = 0;
  }
  return { width, height, pixels };
}

const hex = ([r, g, b]: [number, number, number]) => compactColour(`#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`);

/**
 * Bi-level images (line art, one-colour logos): the ink coverage is upsampled smoothly and
 * thresholded at half, which puts every edge where the antialiasing says it is (to a fraction
 * of a pixel), then traced as one mask in the ink colour over the paper.
 */
function traceBilevel(image: RgbaImage, kind: Bilevel, scale: number, speckle: number): { shapes: Shape[]; background?: string } {
  const { width, height, pixels } = image;
  const coverage = Buffer.allocUnsafe(width * height);
  if (kind.kind === 'on-transparent') {
    for (let i = 0; i < width * height; i++) coverage[i] = pixels[i * 4 + 3]!;
  } else {
    const paper = luma(kind.paper);
    const span = luma(kind.ink) - paper;
    for (let i = 0; i < width * height; i++) {
      const l = 0.299 * pixels[i * 4]! + 0.587 * pixels[i * 4 + 1]! + 0.114 * pixels[i * 4 + 2]!;
      coverage[i] = Math.max(0, Math.min(255, Math.round(((l - paper) / span) * 255)));
    }
  }
  const big = scale === 1 ? coverage : upsampleCubic(coverage, width, height, scale);
  const mask = maskImage(width * scale, height * scale, (i) => big[i]! >= 128);
  const shapes = vtrace(mask, { ...VTRACER_DEFAULTS, colorMode: COLOR_MODE.binary, filterSpeckle: speckle * scale });
  const ink = hex(kind.ink);
  return {
    shapes: shapes.map((s) => ({ ...s, fill: ink })),
    background: kind.kind === 'on-colour' ? hex(kind.paper) : undefined,
  };
}

/** Alpha bands of soft areas (shadows, glows): lower bound and the alpha each band stands for. */
const SOFT_BANDS = [
  { from: 20, alpha: 40 },
  { from: 56, alpha: 76 },
  { from: 92, alpha: 110 },
];

/**
 * Soft transparency (shadows, glows, glass) as nested translucent layers under the opaque
 * trace: one mask per alpha band, each filled with its band's mean colour at the opacity that,
 * stacked on the layers below, gives the band its alpha. VTracer alone draws them opaque.
 */
function traceSoftLayers(image: RgbaImage, speckle: number): Shape[] {
  const { width, height, pixels } = image;
  const layers: Shape[] = [];
  let below = 0; // alpha already laid down by the layers underneath
  for (let b = 0; b < SOFT_BANDS.length; b++) {
    const band = SOFT_BANDS[b]!;
    const upper = SOFT_BANDS[b + 1]?.from ?? 128;
    let r = 0;
    let g = 0;
    let bl = 0;
    let n = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const a = pixels[i + 3]!;
      if (a < band.from || a >= upper) continue;
      r += pixels[i]!;
      g += pixels[i + 1]!;
      bl += pixels[i + 2]!;
      n++;
    }
    if (n < speckle * 4) continue;
    const target = band.alpha / 255;
    const opacity = 1 - (1 - target) / (1 - below);
    below = target;
    const mask = maskImage(width, height, (i) => pixels[i * 4 + 3]! >= band.from);
    const fill = hex([Math.round(r / n), Math.round(g / n), Math.round(bl / n)]);
    for (const shape of vtrace(mask, { ...VTRACER_DEFAULTS, colorMode: COLOR_MODE.binary, filterSpeckle: speckle * 2 })) {
      layers.push({ ...shape, fill, opacity });
    }
  }
  return layers;
}

/** Alpha thresholded at half: antialiased edges land where they should, not half a pixel out. */
function hardAlpha(image: RgbaImage): RgbaImage {
  const pixels = Buffer.from(image.pixels);
  for (let i = 3; i < pixels.length; i += 4) pixels[i] = pixels[i]! >= 128 ? 255 : 0;
  return { ...image, pixels };
}

/**
 * Traces RGBA pixels into compact SVG markup. Pixel art is traced at its native resolution with
 * exact pixel edges; bi-level images as one smooth mask; everything else with VTracer's colour
 * clustering on a half-thresholded alpha, with soft transparency as translucent layers beneath.
 */
export async function traceImage(source: RgbaImage, options: TraceOptions): Promise<TraceResult> {
  const effort = EFFORT[options.effort];
  const size = outputSize(source, options.targetSize);
  let image = source;
  let shapes: Shape[];
  let background: string | undefined;
  let decimals = 1;

  // Pixel art is small once its blocks are cells; a large grid of blocks (an upscaled noise
  // image, say) would trace every cell, so it takes the general path and its size cap.
  const block = pixelBlockSize(image);
  if (block >= 2 && Math.max(image.width, image.height) / block <= effort.pixelArtMaxSide) {
    image = downsampleBlocks(image, block);
    shapes = vtrace(hardAlpha(image), { ...VTRACER_DEFAULTS, mode: PATH_MODE.none, filterSpeckle: 0, colorPrecision: 8, layerDifference: 1 });
    decimals = 0;
  } else {
    if (Math.max(image.width, image.height) > effort.maxSide) {
      // outputSize keeps both sides at least 1 px, so a 1×4096 strip still traces.
      const traced = outputSize(image, effort.maxSide);
      image = await resizeRgba(image, traced.width, traced.height);
    }
    const alpha = alphaProfile(image);
    const softened = alpha.softShare > SOFT_SHARE;
    const twoTone = softened ? undefined : bilevel(image, palette(image));
    if (twoTone) {
      const traced = traceBilevel(image, twoTone, effort.bilevelScale, effort.speckle);
      shapes = traced.shapes;
      background = traced.background;
      if (effort.bilevelScale > 1) image = { ...image, width: image.width * effort.bilevelScale, height: image.height * effort.bilevelScale };
      decimals = effort.bilevelScale > 1 ? 0 : 1;
    } else {
      const soft = softened ? traceSoftLayers(image, effort.speckle) : [];
      // Photographs: polygons follow texture more faithfully than splines, in less data.
      const photo = flatShare(image) < PHOTO_FLATNESS;
      const config = photo
        ? { ...VTRACER_DEFAULTS, mode: PATH_MODE.polygon, filterSpeckle: effort.photoSpeckle }
        : { ...VTRACER_DEFAULTS, filterSpeckle: effort.speckle };
      shapes = [...soft, ...vtrace(alpha.transparent ? hardAlpha(image) : image, config)];
    }
  }
  return { svg: writeSvg(shapes, image, size, decimals, background) };
}

/** Consecutive shapes of one fill become one path; numbers are short and relative. */
function writeSvg(shapes: Shape[], viewBox: { width: number; height: number }, size: { width: number; height: number }, decimals: number, background?: string): string {
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${viewBox.width} ${viewBox.height}" width="${size.width}" height="${size.height}">`];
  if (background) out.push(`<rect width="${viewBox.width}" height="${viewBox.height}" fill="${background}"/>`);
  for (let i = 0; i < shapes.length; ) {
    const first = shapes[i]!;
    const fill = compactColour(first.fill);
    let j = i;
    while (j < shapes.length && compactColour(shapes[j]!.fill) === fill && shapes[j]!.opacity === first.opacity) j++;
    const d = compactPathPieces(shapes.slice(i, j), decimals);
    const opacity = first.opacity === undefined ? '' : ` fill-opacity="${Math.round(first.opacity * 1000) / 1000}"`;
    out.push(`<path d="${d}" fill="${fill}"${opacity}/>`);
    i = j;
  }
  out.push('</svg>');
  return out.join('');
}
