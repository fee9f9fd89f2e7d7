import type { RgbaImage } from './pixels.ts';

/**
 * The side of the square blocks an image is made of, when it is pixel art scaled up by an
 * integer factor (every k×k block one colour), else 1. Checked from the largest factor down.
 */
export function pixelBlockSize(image: RgbaImage): number {
  const { width, height, pixels } = image;
  const words = new Uint32Array(pixels.buffer, pixels.byteOffset, width * height);
  for (let k = Math.min(32, width, height); k >= 2; k--) {
    if (width % k !== 0 || height % k !== 0) continue;
    if (isBlocky(words, width, height, k)) return k;
  }
  return 1;
}

function isBlocky(words: Uint32Array, width: number, height: number, k: number): boolean {
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const blockRow = (y - (y % k)) * width;
    for (let x = 0; x < width; x++) {
      const a = words[row + x]!;
      const b = words[blockRow + x - (x % k)]!;
      // fully transparent pixels match whatever their colour bits say
      if (a !== b && ((a >>> 24) !== 0 || (b >>> 24) !== 0)) return false;
    }
  }
  return true;
}

/** Keeps every k-th pixel of a blocky image: its native resolution. */
export function downsampleBlocks(image: RgbaImage, k: number): RgbaImage {
  const width = image.width / k;
  const height = image.height / k;
  const pixels = Buffer.allocUnsafe(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) image.pixels.copy(pixels, (y * width + x) * 4, ((y * k) * image.width + x * k) * 4, ((y * k) * image.width + x * k) * 4 + 4);
  }
  return { width, height, pixels };
}

export interface AlphaProfile {
  /** Some pixels are not fully opaque. */
  transparent: boolean;
  /** Share of pixels that are partly transparent away from an opaque edge: shadows, glows, glass. */
  softShare: number;
}

/** How an image uses alpha: none, hard edges (antialiasing only), or soft areas worth layering. */
export function alphaProfile(image: RgbaImage): AlphaProfile {
  const { width, height, pixels } = image;
  const alphaAt = (x: number, y: number) => (x < 0 || y < 0 || x >= width || y >= height ? 0 : pixels[(y * width + x) * 4 + 3]!);
  let transparent = false;
  let soft = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const alpha = pixels[(y * width + x) * 4 + 3]!;
      if (alpha === 255) continue;
      transparent = true;
      if (alpha < 24 || alpha > 232) continue;
      // an antialiased edge pixel has a near-opaque and a near-transparent pixel two steps away
      const a = alphaAt(x - 2, y);
      const b = alphaAt(x + 2, y);
      const c = alphaAt(x, y - 2);
      const d = alphaAt(x, y + 2);
      if (!(Math.max(a, b, c, d) > 232 && Math.min(a, b, c, d) < 24)) soft++;
    }
  }
  return { transparent, softShare: soft / (width * height) };
}

/** Colour of the pixel at byte i quantized to 4 bits per channel, as a number (for counting colours). */
export const colourBucket = (p: Uint8Array, i: number) => ((p[i]! >> 4) << 8) | ((p[i + 1]! >> 4) << 4) | (p[i + 2]! >> 4);

/**
 * Line art and one-colour logos: one ink colour on transparency, or one ink on one paper
 * colour (antialiasing in between). Such images trace far better as a bi-level mask.
 */
export type Bilevel =
  | { kind: 'on-transparent'; ink: [number, number, number] }
  | { kind: 'on-colour'; ink: [number, number, number]; paper: [number, number, number] };

/** The colours an image uses, counted coarsely. */
export interface Palette {
  /** Pixels per colour bucket (4 bits per channel) among the opaque-enough pixels. */
  counts: Uint32Array;
  /** Pixels with alpha of at least half. */
  opaque: number;
  /** Pixels with alpha below half. */
  clear: number;
}

export function palette(image: RgbaImage): Palette {
  const { pixels } = image;
  const counts = new Uint32Array(4096);
  let opaque = 0;
  let clear = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i + 3]! < 128) {
      clear++;
      continue;
    }
    opaque++;
    counts[colourBucket(pixels, i)]!++;
  }
  return { counts, opaque, clear };
}

/** The image's bi-level kind, or undefined when it has more than one ink (or too little contrast). */
export function bilevel(image: RgbaImage, { counts, opaque, clear }: Palette): Bilevel | undefined {
  const { pixels } = image;
  if (opaque === 0) return undefined;
  const [first, second] = twoCommonest(counts);
  const total = pixels.length / 4;
  if (clear > total * 0.02 && counts[first]! >= opaque * 0.9) return { kind: 'on-transparent', ink: meanColour(image, first) };
  if (clear === 0 && counts[first]! + counts[second]! >= opaque * 0.9) {
    const [paper, ink] = [meanColour(image, first), meanColour(image, second)];
    const contrast = Math.abs(luma(paper) - luma(ink));
    if (contrast >= 64 && !hasThirdColour(image, paper, ink)) return { kind: 'on-colour', ink, paper };
  }
  return undefined;
}

export const luma = ([r, g, b]: [number, number, number]) => 0.299 * r + 0.587 * g + 0.114 * b;

function meanColour(image: RgbaImage, key: number): [number, number, number] {
  const { pixels } = image;
  let r = 0;
  let g = 0;
  let b = 0;
  let n = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i + 3]! < 128 || colourBucket(pixels, i) !== key) continue;
    r += pixels[i]!;
    g += pixels[i + 1]!;
    b += pixels[i + 2]!;
    n++;
  }
  return [Math.round(r / n), Math.round(g / n), Math.round(b / n)];
}

/** Pixels between ink and paper are fine (antialiasing); far from the line between them is not. */
function hasThirdColour(image: RgbaImage, paper: [number, number, number], ink: [number, number, number]): boolean {
  const { pixels } = image;
  const d = [ink[0] - paper[0], ink[1] - paper[1], ink[2] - paper[2]];
  const len2 = d[0]! ** 2 + d[1]! ** 2 + d[2]! ** 2;
  let off = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    const v = [pixels[i]! - paper[0], pixels[i + 1]! - paper[1], pixels[i + 2]! - paper[2]];
    const t = Math.max(0, Math.min(1, (v[0]! * d[0]! + v[1]! * d[1]! + v[2]! * d[2]!) / len2));
    const dist = Math.hypot(v[0]! - t * d[0]!, v[1]! - t * d[1]!, v[2]! - t * d[2]!);
    if (dist > 48) off++;
  }
  return off > (pixels.length / 4) * 0.01;
}

/**
 * Share of visible pixels identical to their right-hand neighbour: flat art is mostly flat
 * (0.35 and up in our benchmark set), photographs almost never are (0.27 and below).
 */
export function flatShare(image: RgbaImage): number {
  const { width, height, pixels } = image;
  const words = new Uint32Array(pixels.buffer, pixels.byteOffset, width * height);
  let same = 0;
  let visible = 0;
  for (let i = 0; i < words.length - 1; i++) {
    if (words[i]! >>> 24 < 128) continue;
    visible++;
    if (words[i] === words[i + 1]) same++;
  }
  return visible === 0 ? 1 : same / visible;
}

/** The two colour buckets with the most pixels (the first is the commonest). */
export function twoCommonest(counts: ArrayLike<number>): [number, number] {
  let first = 0;
  let second = -1;
  for (let key = 1; key < 4096; key++) {
    if (counts[key]! > counts[first]!) {
      second = first;
      first = key;
    } else if (second < 0 || counts[key]! > counts[second]!) second = key;
  }
  return [first, second];
}
