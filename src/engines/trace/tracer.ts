import { vectorizeRawSync, type ColorMode, type Config, type Hierarchical, type PathSimplifyMode } from '@neplex/vectorizer';
import type { ReasoningEffort } from '../../contract/common.ts';
import { alphaProfile, bilevel, downsampleBlocks, flatShare, palette, pixelBlockSize } from './analyze.ts';
import { traceBilevel, traceTwoTone, twoToneOnTransparent } from './bilevel.ts';
import type { Paint } from './gradient-paint.ts';
import { compactColour, compactPathPieces, hexColour } from './path-data.ts';
import type { RgbaImage } from './pixels.ts';
import { resizeRgba } from './raster.ts';
import { planSmoothRegions, type SmoothPlan } from './smooth-regions.ts';

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
  /** A gradient fill, in place of `fill`. */
  paint?: Paint;
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
    const fill = hexColour([Math.round(r / n), Math.round(g / n), Math.round(bl / n)]);
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

/** Least area (px², outlines added up, holes too) of a shape traced among gradients. */
const SLIVER_AREA = 3;

/** Area enclosed by a polygon path's outlines (M/L/Z, as VTracer's polygon mode writes), each counted positive. */
function outlineArea(d: string): number {
  let total = 0;
  for (const outline of d.split(/[Mm]/)) {
    const numbers = outline.match(/-?[\d.]+/g);
    if (!numbers || numbers.length < 6) continue;
    let area = 0;
    const n = numbers.length >> 1;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      area += Number(numbers[i * 2]) * Number(numbers[j * 2 + 1]) - Number(numbers[j * 2]) * Number(numbers[i * 2 + 1]);
    }
    total += Math.abs(area) / 2;
  }
  return total;
}

/**
 * Smooth colour: the image with each gradient region painted a marker colour of its own is
 * traced in colour as usual, so every region becomes one shape stacked in order among the
 * detail; the shapes in a marker's colour then get that region's gradient.
 */
function traceSmooth(plan: SmoothPlan, config: Config, transparent: boolean): Shape[] {
  // slivers (a thread of an antialiased edge, an arc one pixel wide) draw next to nothing and cost
  // a path element each: a shape whose outlines enclose less than SLIVER_AREA goes
  const shapes = vtrace(transparent ? hardAlpha(plan.marked) : plan.marked, config).filter((shape) => outlineArea(shape.d) >= SLIVER_AREA);
  for (const shape of shapes) {
    const colour = parseInt(shape.fill.slice(1), 16);
    const [r, g, b] = [colour >> 16, (colour >> 8) & 255, colour & 255];
    const region = plan.regionFor(r, g, b);
    if (region) shape.paint = region.paint;
  }
  return shapes;
}

/**
 * Traces RGBA pixels into compact SVG markup. Pixel art is traced at its native resolution with
 * exact pixel edges; line art and logos of one ink, or of two colours on transparency, as the
 * half-coverage outlines of bilevel.ts; everything else with VTracer's colour
 * clustering on a half-thresholded alpha, with soft transparency as translucent layers beneath,
 * and regions of smooth colour (smooth-regions.ts) as shapes filled with fitted gradients.
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
    const colours = softened ? undefined : palette(image);
    const oneInk = colours && bilevel(image, colours);
    // Two colours on transparency (black-and-white clip art): the same iso-line tracing, twice.
    const twoTones = colours && !oneInk ? twoToneOnTransparent(image, colours) : undefined;
    if (oneInk || twoTones) {
      const traced: { shapes: Shape[]; background?: string } = oneInk
        ? traceBilevel(image, oneInk, effort.bilevelScale, effort.speckle)
        : traceTwoTone(image, twoTones!, effort.bilevelScale, effort.speckle);
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
      // Smooth colour (soft wallpapers, glossy icons): its regions become gradient-filled shapes.
      const smooth = planSmoothRegions(image, { photo, opaque: !alpha.transparent });
      if (smooth) {
        // Colours nearly four times as far apart merge in the detail left between gradients (fewer
        // bands, as many edges); outlines are polygons, as for photographs: the gradients' edges are soft or
        // seams, which straight runs follow as closely as curves, in a fifth fewer bytes.
        const smoothConfig = { ...VTRACER_DEFAULTS, mode: PATH_MODE.polygon, filterSpeckle: effort.speckle, layerDifference: 52 };
        shapes = [...soft, ...traceSmooth(smooth, smoothConfig, alpha.transparent)];
        // soft pictures need no tenths of a pixel: whole numbers save a fifth of their bytes
        decimals = 0;
      } else shapes = [...soft, ...vtrace(alpha.transparent ? hardAlpha(image) : image, config)];
    }
  }
  return { svg: writeSvg(shapes, image, size, decimals, background) };
}

/** Consecutive shapes of one fill become one path; numbers are short and relative; gradients go in <defs>. */
function writeSvg(shapes: Shape[], viewBox: { width: number; height: number }, size: { width: number; height: number }, decimals: number, background?: string): string {
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${viewBox.width} ${viewBox.height}" width="${size.width}" height="${size.height}">`];
  // gradients first, each with an id of its own: g0, g1, … gz, g10, …
  const ids = new Map<Paint, string>();
  for (const { paint } of shapes) if (paint && !ids.has(paint)) ids.set(paint, `g${ids.size.toString(36)}`);
  if (ids.size > 0) out.push(`<defs>${[...ids].map(([paint, id]) => gradientMarkup(paint, id, decimals)).join('')}</defs>`);
  const fillOf = (shape: Shape) => (shape.paint ? `url(#${ids.get(shape.paint)})` : compactColour(shape.fill));
  if (background) out.push(`<rect width="${viewBox.width}" height="${viewBox.height}" fill="${background}"/>`);
  for (let i = 0; i < shapes.length; ) {
    const first = shapes[i]!;
    const fill = fillOf(first);
    let j = i;
    while (j < shapes.length && fillOf(shapes[j]!) === fill && shapes[j]!.opacity === first.opacity) j++;
    const d = compactPathPieces(shapes.slice(i, j), decimals);
    const opacity = first.opacity === undefined ? '' : ` fill-opacity="${Math.round(first.opacity * 1000) / 1000}"`;
    out.push(`<path d="${d}" fill="${fill}"${opacity}/>`);
    i = j;
  }
  out.push('</svg>');
  return out.join('');
}

/** A number with at most `decimals` decimals, without needless zeros: 0.50 → ".5", -0.25 → "-.25". */
function shortNumber(value: number, decimals: number): string {
  return String(Number(value.toFixed(decimals))).replace(/^(-?)0\./, '$1.');
}

/** A gradient in the image's own units (positions to `decimals`, as the paths), stops in sRGB as fitted. */
function gradientMarkup(paint: Paint, id: string, decimals: number): string {
  const n = (v: number) => shortNumber(v, decimals);
  // offset 0 is a stop's default
  const stops = paint.stops.map((s) => `<stop${shortNumber(s.offset, 2) === '0' ? '' : ` offset="${shortNumber(s.offset, 2)}"`} stop-color="${hexColour(s.colour)}"/>`).join('');
  return paint.kind === 'linear'
    ? `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${n(paint.x1)}" y1="${n(paint.y1)}" x2="${n(paint.x2)}" y2="${n(paint.y2)}">${stops}</linearGradient>`
    : `<radialGradient id="${id}" gradientUnits="userSpaceOnUse" cx="${n(paint.cx)}" cy="${n(paint.cy)}" r="${n(paint.r)}"${ellipse(paint, decimals)}>${stops}</radialGradient>`;
}

/** A radial gradient's circles drawn as ellipses: a gradientTransform that rotates and squashes them about their centre. */
function ellipse({ cx, cy, ratio, angle }: { cx: number; cy: number; ratio: number; angle: number }, decimals: number): string {
  if (Math.abs(ratio - 1) < 0.01) return '';
  const [a, b, c, d] = [Math.cos(angle), Math.sin(angle), -ratio * Math.sin(angle), ratio * Math.cos(angle)];
  const m = [a, b, c, d, cx - (a * cx + c * cy), cy - (b * cx + d * cy)].map((v, i) => shortNumber(v, i < 4 ? 3 : decimals));
  return ` gradientTransform="matrix(${m.join(' ')})"`;
}
