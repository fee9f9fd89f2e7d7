import { colourBucket, luma, twoCommonest, type Bilevel, type Palette } from './analyze.ts';
import { fitLoop } from './curve-fit.ts';
import { hexColour } from './path-data.ts';
import type { RgbaImage } from './pixels.ts';

/**
 * The bi-level tracer (line art, one-colour logos): the ink's outline is the half-coverage
 * iso-line of the antialiased pixels (marching squares, linearly interpolated between pixel
 * centres), so every edge lands where the antialiasing says it is, to a fraction of a pixel,
 * without upsampling the image; the outline is then fitted with cubic Béziers, split at corners
 * (curve-fit.ts).
 */

/** A traced outline, as the tracer's SVG writer takes it (absolute M/L/C/Z path data). */
export interface BilevelShape {
  d: string;
  fill: string;
  offsetX: number;
  offsetY: number;
}

/** Holes smaller than this (square pixels) are noise. */
const MIN_HOLE_AREA = 1;

/**
 * Traces a bi-level image as one outline in the ink colour (over a paper rectangle for ink on a
 * colour). Coordinates are in units of 1/`scale` source pixel, as the SVG writer's viewBox is
 * `scale` times the source size; `speckle` is the side of the smallest ink blob kept, in pixels.
 */
export function traceBilevel(image: RgbaImage, kind: Bilevel, scale: number, speckle: number): { shapes: BilevelShape[]; background?: string } {
  const coverage = inkCoverage(image, kind);
  const loops = outlines(coverage, image.width, image.height, speckle * speckle);
  const d = loops.map((loop) => fitLoop(loop, scale)).join('');
  return {
    shapes: d ? [{ d, fill: hexColour(kind.ink), offsetX: 0, offsetY: 0 }] : [],
    background: kind.kind === 'on-colour' ? hexColour(kind.paper) : undefined,
  };
}

/**
 * Two colours on transparency (black-and-white clip art: a black outline round white fills):
 * `under` is the colour along the edge to transparency, drawn as the whole opaque shape; `over`
 * is the other, drawn on top. Pixels between the two are antialiasing.
 */
export interface TwoTone {
  under: [number, number, number];
  over: [number, number, number];
}

/**
 * The image's two tones, or undefined: some transparency (2 % of pixels), two colour buckets
 * holding at least 75 % of the opaque pixels (each at least 2 %), contrast of 64 in luma, and at
 * most 1 % of the opaque pixels off the line between the two (antialiasing lies on it). For an
 * image bilevel() turns down (one ink is not 90 % of the opaque pixels).
 */
export function twoToneOnTransparent(image: RgbaImage, { counts, opaque, clear }: Palette): TwoTone | undefined {
  const { width, height, pixels } = image;
  if (opaque === 0 || clear <= width * height * 0.02) return undefined;
  const [first, second] = twoCommonest(counts);
  if (counts[first]! + counts[second]! < opaque * 0.75 || counts[second]! < opaque * 0.02) return undefined;
  const sums = new Float64Array(8); // r, g, b, n of the first bucket, then of the second
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i + 3]! < 128) continue;
    const key = colourBucket(pixels, i);
    const at = key === first ? 0 : key === second ? 4 : -1;
    if (at < 0) continue;
    sums[at]! += pixels[i]!;
    sums[at + 1]! += pixels[i + 1]!;
    sums[at + 2]! += pixels[i + 2]!;
    sums[at + 3]!++;
  }
  const a: [number, number, number] = [0, 1, 2].map((c) => Math.round(sums[c]! / sums[3]!)) as [number, number, number];
  const b: [number, number, number] = [4, 5, 6].map((c) => Math.round(sums[c]! / sums[7]!)) as [number, number, number];
  if (Math.abs(luma(a) - luma(b)) < 64) return undefined;
  // Opaque pixels off the line from a to b; and which of the two lines the edge to transparency.
  const dr = b[0] - a[0];
  const dg = b[1] - a[1];
  const db = b[2] - a[2];
  const length2 = dr * dr + dg * dg + db * db;
  let off = 0;
  let edgeA = 0;
  let edgeB = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (pixels[i + 3]! < 128) continue;
      const vr = pixels[i]! - a[0];
      const vg = pixels[i + 1]! - a[1];
      const vb = pixels[i + 2]! - a[2];
      const along = (vr * dr + vg * dg + vb * db) / length2;
      const t = along < 0 ? 0 : along > 1 ? 1 : along;
      if ((vr - t * dr) ** 2 + (vg - t * dg) ** 2 + (vb - t * db) ** 2 > 48 * 48) off++;
      const edge =
        x === 0 || y === 0 || x === width - 1 || y === height - 1 || pixels[i - 1]! < 128 || pixels[i + 7]! < 128 || pixels[i - width * 4 + 3]! < 128 || pixels[i + width * 4 + 3]! < 128;
      if (edge) {
        if (t < 0.5) edgeA++;
        else edgeB++;
      }
    }
  }
  if (off > opaque * 0.01) return undefined;
  return edgeA >= edgeB ? { under: a, over: b } : { under: b, over: a };
}

/**
 * Traces a two-tone image as two outlines: the opaque shape in the under colour, and the over
 * colour's areas on top of it (its coverage: alpha times the share of the over colour). Small
 * areas of the over colour are kept down to a quarter of the speckle area: they are detail (a
 * white glint, the gap between two black strokes), not noise on a transparent background.
 */
export function traceTwoTone(image: RgbaImage, kind: TwoTone, scale: number, speckle: number): { shapes: BilevelShape[] } {
  const { width, height, pixels } = image;
  const alpha = new Uint8Array(width * height);
  const over = new Uint8Array(width * height);
  const [dr, dg, db] = [kind.over[0] - kind.under[0], kind.over[1] - kind.under[1], kind.over[2] - kind.under[2]];
  const length2 = dr * dr + dg * dg + db * db;
  for (let i = 0; i < width * height; i++) {
    const a = pixels[i * 4 + 3]!;
    alpha[i] = a;
    const t = ((pixels[i * 4]! - kind.under[0]) * dr + (pixels[i * 4 + 1]! - kind.under[1]) * dg + (pixels[i * 4 + 2]! - kind.under[2]) * db) / length2;
    over[i] = Math.round(a * (t < 0 ? 0 : t > 1 ? 1 : t));
  }
  const shapes: BilevelShape[] = [];
  for (const [coverage, colour, minArea] of [
    [alpha, kind.under, speckle * speckle],
    [over, kind.over, (speckle * speckle) / 4],
  ] as const) {
    const d = outlines(coverage, width, height, minArea).map((loop) => fitLoop(loop, scale)).join('');
    if (d) shapes.push({ d, fill: hexColour(colour), offsetX: 0, offsetY: 0 });
  }
  return { shapes };
}

/** Each pixel's ink coverage, 0 (paper or transparent) to 255 (ink). */
export function inkCoverage(image: RgbaImage, kind: Bilevel): Uint8Array {
  const { width, height, pixels } = image;
  const coverage = new Uint8Array(width * height);
  if (kind.kind === 'on-transparent') {
    for (let i = 0; i < width * height; i++) coverage[i] = pixels[i * 4 + 3]!;
  } else {
    const paper = luma(kind.paper);
    const span = luma(kind.ink) - paper;
    for (let i = 0; i < width * height; i++) {
      const l = 0.299 * pixels[i * 4]! + 0.587 * pixels[i * 4 + 1]! + 0.114 * pixels[i * 4 + 2]!;
      const c = Math.round(((l - paper) / span) * 255);
      coverage[i] = c < 0 ? 0 : c > 255 ? 255 : c;
    }
  }
  return coverage;
}

/** Sides of a marching-squares cell, clockwise from the top. */
const TOP = 0;
const RIGHT = 1;
const BOTTOM = 2;
const LEFT = 3;

/**
 * The side an outline leaves a cell by, given the cell's corners in (bit 1 top left, 2 top
 * right, 4 bottom right, 8 bottom left) and the side it came in by; for the two saddles, whether
 * the cell's centre is in decides. Outlines run with the ink on the same hand throughout, so
 * outer outlines and holes wind opposite ways.
 */
const EXIT: number[][] = [];
for (let code = 0; code < 16; code++) EXIT.push([-1, -1, -1, -1]);
for (const [code, from, to] of [
  [1, LEFT, TOP], [2, TOP, RIGHT], [3, LEFT, RIGHT], [4, RIGHT, BOTTOM], [6, TOP, BOTTOM], [7, LEFT, BOTTOM], [8, BOTTOM, LEFT],
  [9, BOTTOM, TOP], [11, BOTTOM, RIGHT], [12, RIGHT, LEFT], [13, RIGHT, TOP], [14, TOP, LEFT],
  // the saddles with their centre out (SADDLE_JOINED: with it in)
  [5, LEFT, TOP], [5, RIGHT, BOTTOM], [10, TOP, RIGHT], [10, BOTTOM, LEFT],
] as const) EXIT[code]![from] = to;
const SADDLE_JOINED: Record<number, number[]> = { 5: [-1, TOP, -1, BOTTOM], 10: [LEFT, -1, RIGHT, -1] };

/**
 * Closed outlines of the region where coverage ≥ 128, as flat [x0, y0, x1, y1, …] arrays in
 * pixel units (pixel (i, j) covers [i, i+1]×[j, j+1], its value sits at its centre): marching
 * squares over the pixel centres, each crossing linearly interpolated at 127.5, found by
 * following each outline from a crossing in a row (every outline crosses some row), so only the
 * cells on an outline are visited. Outer outlines have positive area (counter-clockwise on
 * screen), holes negative (clockwise), so the nonzero fill rule draws holes as holes. Blobs
 * smaller than `minArea` square pixels are dropped with their holes, and holes smaller than
 * `minHoleArea`.
 */
export function outlines(coverage: Uint8Array, width: number, height: number, minArea: number, minHoleArea = MIN_HOLE_AREA): Float64Array[] {
  // The grid of pixel centres with a border of empty pixels, so every outline closes. Node
  // (i, j) is pixel (i − 1, j − 1), at (i − 0.5, j − 0.5); cell (i, j) has node (i, j) top left.
  const gw = width + 2;
  const gh = height + 2;
  const grid = new Uint8Array(gw * gh);
  for (let y = 0; y < height; y++) grid.set(coverage.subarray(y * width, (y + 1) * width), (y + 1) * gw + 1);
  // The outline (numbered from 1) each horizontal edge's crossing is on, 0 for none yet.
  const edgeLoop = new Int32Array(gw * gh);
  // Per outline: its points, and the outer outline of its blob (itself for an outer one).
  const loops: Float64Array[] = [];
  const blobOf: number[] = [0];
  const areas: number[] = [0];
  const scratch: number[] = [];
  for (let j = 1; j + 1 < gh; j++) {
    // The outline of the last crossing passed in this row: a new hole's blob is that outline's.
    let last = 0;
    for (let k = j * gw, end = k + gw - 1; k < end; k++) {
      if (grid[k]! >= 128 === grid[k + 1]! >= 128) continue;
      if (edgeLoop[k]) {
        last = edgeLoop[k]!;
        continue;
      }
      const id = loops.length + 1;
      const points = followOutline(grid, gw, k, id, edgeLoop, scratch);
      loops.push(points);
      areas.push(signedArea(points));
      // Ink left of this crossing: a hole, in the blob of the outline just passed (the ink
      // between them is one run). Else the first crossing met of a new blob: its outer outline.
      blobOf.push(grid[k]! >= 128 ? blobOf[last]! : id);
      last = id;
    }
  }
  const kept: Float64Array[] = [];
  for (let id = 1; id <= loops.length; id++) {
    const area = areas[id]!;
    if (areas[blobOf[id]!]! < minArea || (area < 0 && -area < minHoleArea)) continue;
    kept.push(loops[id - 1]!);
  }
  return kept;
}

/**
 * Follows one outline from the crossing on the horizontal edge between nodes k and k + 1 of the
 * bordered grid (`gw` nodes a row) once round, marking each horizontal edge it crosses with `id`
 * in `edgeLoop`: its points, as outlines() gives them. `scratch` is a buffer reused between calls.
 */
function followOutline(grid: Uint8Array, gw: number, k: number, id: number, edgeLoop: Int32Array, scratch: number[]): Float64Array {
  // Start in the cell this crossing leads into: below when its right node is in, else above.
  let cell = grid[k + 1]! >= 128 ? k : k - gw;
  let side = grid[k + 1]! >= 128 ? TOP : BOTTOM;
  scratch.length = 0;
  for (;;) {
    // The crossing on the side we came in by.
    let a: number;
    let b: number;
    if (side === TOP || side === BOTTOM) {
      a = side === TOP ? cell : cell + gw;
      b = a + 1;
      edgeLoop[a] = id;
    } else {
      a = side === LEFT ? cell : cell + 1;
      b = a + gw;
    }
    const va = grid[a]!;
    const t = (va - 127.5) / (va - grid[b]!);
    const i = a % gw;
    const y = (a - i) / gw - 0.5;
    if (b === a + 1) scratch.push(i - 0.5 + t, y);
    else scratch.push(i - 0.5, y + t);
    const tl = grid[cell]!;
    const tr = grid[cell + 1]!;
    const br = grid[cell + gw + 1]!;
    const bl = grid[cell + gw]!;
    const code = (tl >= 128 ? 1 : 0) | (tr >= 128 ? 2 : 0) | (br >= 128 ? 4 : 0) | (bl >= 128 ? 8 : 0);
    const exit = (code === 5 || code === 10) && tl + tr + br + bl >= 510 ? SADDLE_JOINED[code]![side]! : EXIT[code]![side]!;
    if (exit < 0) throw new Error('outlines: lost the outline'); // cannot happen: each exit is the next cell's entry
    if (exit === TOP) {
      cell -= gw;
      side = BOTTOM;
    } else if (exit === RIGHT) {
      cell += 1;
      side = LEFT;
    } else if (exit === BOTTOM) {
      cell += gw;
      side = TOP;
    } else {
      cell -= 1;
      side = RIGHT;
    }
    if ((side === TOP && cell === k) || (side === BOTTOM && cell + gw === k)) break;
  }
  return Float64Array.from(scratch);
}

/** Shoelace area of a closed outline: positive for an outer one. */
function signedArea(points: Float64Array): number {
  let area = 0;
  for (let p = 0, q = points.length - 2; p < points.length; q = p, p += 2) area += points[p]! * points[q + 1]! - points[q]! * points[p + 1]!;
  return area / 2;
}
