import type { RgbaImage } from './pixels.ts';

/**
 * The analysis grid of smooth-regions.ts (at most ANALYSIS_SIDE cells a side, each the mean of
 * k×k pixels) and its regions: opaque cells joined where neighbours differ by a step or two, or lie
 * on one even ramp.
 */

/** Longest side of the analysis grid. */
const ANALYSIS_SIDE = 200;
/** Largest step between neighbouring cells (per channel, 0–255) inside one smooth region. */
const STEP = 3;
/** ... or by at most RAMP_STEP where the second difference at both is at most RAMP_BEND. */
const RAMP_STEP = 16;
const RAMP_BEND = 3;

/** The image seen coarsely: `k` pixels a cell side, each cell's mean colour (3 per cell) and alpha. */
export interface Grid {
  k: number;
  width: number;
  height: number;
  colour: Float32Array;
  alpha: Float32Array;
}

/** Mean colour and alpha of every k×k block (a partial block at the right and bottom edges). */
export function analysisGrid(image: RgbaImage): Grid {
  const { width, height, pixels } = image;
  const k = Math.max(1, Math.ceil(Math.max(width, height) / ANALYSIS_SIDE));
  const aw = Math.ceil(width / k);
  const ah = Math.ceil(height / k);
  const colour = new Float32Array(aw * ah * 3);
  const alpha = new Float32Array(aw * ah);
  if (k === 1) {
    for (let i = 0, p = 0; i < aw * ah; i++, p += 4) {
      colour[i * 3] = pixels[p]!;
      colour[i * 3 + 1] = pixels[p + 1]!;
      colour[i * 3 + 2] = pixels[p + 2]!;
      alpha[i] = pixels[p + 3]!;
    }
    return { k, width: aw, height: ah, colour, alpha };
  }
  const count = new Float32Array(aw * ah);
  const column = Int32Array.from({ length: width }, (_, x) => Math.floor(x / k));
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / k) * aw;
    for (let x = 0, p = y * width * 4; x < width; x++, p += 4) {
      const i = row + column[x]!;
      colour[i * 3]! += pixels[p]!;
      colour[i * 3 + 1]! += pixels[p + 1]!;
      colour[i * 3 + 2]! += pixels[p + 2]!;
      alpha[i]! += pixels[p + 3]!;
      count[i]!++;
    }
  }
  for (let i = 0; i < aw * ah; i++) {
    const n = count[i]!;
    colour[i * 3]! /= n;
    colour[i * 3 + 1]! /= n;
    colour[i * 3 + 2]! /= n;
    alpha[i]! /= n;
  }
  return { k, width: aw, height: ah, colour, alpha };
}

/** Largest difference over the channels between two cells. */
function difference(colour: Float32Array, a: number, b: number): number {
  return Math.max(Math.abs(colour[a * 3]! - colour[b * 3]!), Math.abs(colour[a * 3 + 1]! - colour[b * 3 + 1]!), Math.abs(colour[a * 3 + 2]! - colour[b * 3 + 2]!));
}

/**
 * Curvature of every cell along x and along y: the largest second difference over the channels
 * (0 on a linear ramp however steep, large on the shoulders of an edge, soft or hard).
 */
function curvature(grid: Grid): { x: Float32Array; y: Float32Array } {
  const { width, height, colour } = grid;
  const x = new Float32Array(width * height).fill(Infinity);
  const y = new Float32Array(width * height).fill(Infinity);
  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const i = row * width + col;
      if (col > 0 && col < width - 1) {
        let m = 0;
        for (let c = 0; c < 3; c++) m = Math.max(m, Math.abs(colour[(i - 1) * 3 + c]! - 2 * colour[i * 3 + c]! + colour[(i + 1) * 3 + c]!));
        x[i] = m;
      }
      if (row > 0 && row < height - 1) {
        let m = 0;
        for (let c = 0; c < 3; c++) m = Math.max(m, Math.abs(colour[(i - width) * 3 + c]! - 2 * colour[i * 3 + c]! + colour[(i + width) * 3 + c]!));
        y[i] = m;
      }
    }
  }
  return { x, y };
}

/**
 * Connected opaque cells, neighbours joined where they differ by at most STEP per channel, or by
 * at most RAMP_STEP where the colour runs straight through both (a steep but even ramp, as on a
 * glossy icon's shading): each region's cells.
 */
export function segment(grid: Grid, least: number): Int32Array[] {
  const { width, height, colour, alpha } = grid;
  const n = width * height;
  const bend = curvature(grid);
  const seen = new Uint8Array(n);
  const queue = new Int32Array(n);
  const regions: Int32Array[] = [];
  const joins = (i: number, j: number, along: Float32Array) => {
    if (seen[j] || alpha[j]! < 250) return false;
    const d = difference(colour, i, j);
    return d <= STEP || (d <= RAMP_STEP && along[i]! <= RAMP_BEND && along[j]! <= RAMP_BEND);
  };
  const take = (i: number, j: number, horizontal: boolean) => {
    if (!joins(i, j, horizontal ? bend.x : bend.y)) return false;
    seen[j] = 1;
    return true;
  };
  for (let seed = 0; seed < n; seed++) {
    if (seen[seed] || alpha[seed]! < 250) continue;
    seen[seed] = 1;
    const size = floodFill(seed, width, n, queue, take);
    if (size >= least) regions.push(queue.slice(0, size));
  }
  return regions;
}

/**
 * Breadth-first fill over a grid's four neighbours from `seed` (already taken by the caller):
 * `take(i, j, horizontal)` says whether neighbour j of i joins, and marks it taken. The cells end
 * in `queue`, seed first; returns how many.
 */
export function floodFill(seed: number, width: number, total: number, queue: Int32Array, take: (i: number, j: number, horizontal: boolean) => boolean): number {
  let head = 0;
  let tail = 0;
  queue[tail++] = seed;
  while (head < tail) {
    const i = queue[head++]!;
    const x = i % width;
    if (x > 0 && take(i, i - 1, true)) queue[tail++] = i - 1;
    if (x < width - 1 && take(i, i + 1, true)) queue[tail++] = i + 1;
    if (i - width >= 0 && take(i, i - width, false)) queue[tail++] = i - width;
    if (i + width < total && take(i, i + width, false)) queue[tail++] = i + width;
  }
  return tail;
}
