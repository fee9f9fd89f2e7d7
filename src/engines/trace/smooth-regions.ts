import { evaluator, fitGradient, mainAxis, type Fit, type Paint } from './gradient-fit.ts';
import type { RgbaImage } from './pixels.ts';

export type { GradientStop, Paint } from './gradient-fit.ts';

/**
 * Smooth colour (wallpapers, glossy icons, soft illustrations) as gradients.
 *
 * The image is looked at on a small grid (at most ANALYSIS_SIDE cells a side, each the mean of
 * k×k pixels). Opaque cells are joined into regions where neighbours differ by at most STEP per
 * channel, or by at most RAMP_STEP where the colour runs straight through both (a steep but even
 * ramp), so a slow ramp stays one region while a soft but real edge (a wave's rim, a highlight's
 * border, a facet) separates two. A large region that is not flat gets a gradient
 * (gradient-fit.ts) when it leaves a small part of a flat fill's error and wins enough over the
 * whole image to pay for its bytes; one that no gradient fits is cut in two along what the fit
 * missed, and the parts are fitted in turn (a piece of it that is flat becomes a flat fill). What
 * a kept gradient glosses over, if large enough (a faint wave or facet a few levels off), becomes
 * a piece of its own drawn over it. Cells left over join the piece next to them when its fill is
 * close.
 *
 * Nothing is traced here: each gradient piece's pixels are painted with a marker colour of its
 * own (far from every colour of the image), each flat piece's with its colour, and the caller
 * traces that image in colour as usual. Each piece comes out as one shape, stacked in order with
 * the detail around and inside it, and the shapes in a marker's colour get its gradient.
 */

export interface SmoothRegion {
  paint: Paint;
  /** The flat colour its pixels are painted with in `marked`: the colour trace's shapes of this colour get the gradient. */
  marker: [number, number, number];
}

export interface SmoothPlan {
  regions: SmoothRegion[];
  /** The image with each gradient region's pixels painted its marker colour, each flat piece's its colour. */
  marked: RgbaImage;
  /** Share of the visible cells covered by smooth pieces. */
  coverage: number;
  /** The region a shape of the colour trace in this colour belongs to, if any. */
  regionFor(r: number, g: number, b: number): SmoothRegion | undefined;
}

/** Longest side of the analysis grid. */
const ANALYSIS_SIDE = 200;
/** Largest step between neighbouring cells (per channel, 0–255) inside one smooth region. */
const STEP = 3;
/** ... or by at most RAMP_STEP where the second difference at both is at most RAMP_BEND. */
const RAMP_STEP = 16;
const RAMP_BEND = 3;
/** Smallest region considered, as a share of the grid. */
const MIN_REGION_SHARE = 0.01;
const MIN_REGION_CELLS = 48;
/** A region whose colour varies less than this (RMS per channel) is flat: left to the detail trace. */
const FLAT_RMS = 2;
/** A gradient is kept when its squared error is at most this share of a flat fill's. */
const ACCEPT = 0.3;
/** ... and its RMS error per channel at most this (a piece of a split region this flat is a flat fill). */
const MAX_RMS = 8;
/** Residual (along its main colour axis) beyond which cells glossed over by a gradient may form a faint shape. */
const SHAPE_RESIDUAL = 8;
/** A smooth region no gradient fits is split in two, at most this many times over. */
const MAX_DEPTH = 2;
const MAX_PIECES = 64; // at most 127: pixels record their piece in an Int8Array
/** Smallest piece of a split region kept, as a share of the grid. */
const MIN_PIECE_SHARE = 0.013;
const MIN_PIECE_CELLS = 24;
/** A left-over cell joins the piece next to it when within this of its fill (per channel). */
const ABSORB_TOLERANCE = 20;
/** A pixel of (or next to) a piece's cell and within this of its fill there belongs to the piece. */
const PIXEL_TOLERANCE = 24;
/**
 * Least distance (largest channel difference) of a marker colour from the image's colours and other
 * markers: well beyond the colour trace's layerDifference (tracer.ts), or the trace merges a
 * marker's shape into the colour next to it and the gradient is lost.
 */
const MARKER_GAP = 72;
/** How far the colour trace may move a marker's colour and still be matched outright. */
const MARKER_MATCH = 32;
/** The gradient path is taken when smooth pieces cover this share of the visible image... */
const MIN_COVERAGE = 0.5;
/** ... or this share, for an opaque image with few flat pixels (a photograph, unless it is nearly all smooth). */
const PHOTO_COVERAGE = 0.85;
/** Largest cost of merging two neighbouring pieces into one gradient, as mean squared error per channel over the whole image. */
const MERGE_PRICE = 6;
/** ... when the merged gradient leaves at most this RMS error per channel over the merged piece. */
const MERGE_RMS = 7;
/** Piece outlines are smoothed this many times over, each pixel on one taking the majority label within this radius (px). */
const OUTLINE_PASSES = 3;
const OUTLINE_RADIUS = 3;
/** Least gain of a gradient over a flat fill, as mean squared error per channel over the whole image. */
const MIN_GAIN = 1;

interface Grid {
  k: number;
  width: number;
  height: number;
  colour: Float32Array;
  alpha: Float32Array;
}

/** Mean colour and alpha of every k×k block (a partial block at the right and bottom edges). */
function analysisGrid(image: RgbaImage): Grid {
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
function segment(grid: Grid, least: number): Int32Array[] {
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
function floodFill(seed: number, width: number, total: number, queue: Int32Array, take: (i: number, j: number, horizontal: boolean) => boolean): number {
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

/** The cells not in any of the parts. */
function without(cells: Int32Array, parts: Int32Array[], scratch: Scratch): Int32Array {
  const { mark } = scratch;
  const stamp = ++scratch.stamp;
  for (const part of parts) for (const i of part) mark[i] = stamp;
  return cells.filter((i) => mark[i] !== stamp);
}

/** Mean colour and squared error of a flat fill over a piece's cells. */
function flatFit(cells: Int32Array, colour: Float32Array): { mean: [number, number, number]; error: number } {
  const sum = [0, 0, 0];
  const squares = [0, 0, 0];
  for (let m = 0; m < cells.length; m++) {
    const i = cells[m]! * 3;
    for (let c = 0; c < 3; c++) {
      const v = colour[i + c]!;
      sum[c]! += v;
      squares[c]! += v * v;
    }
  }
  const n = cells.length;
  const mean = sum.map((v) => v / n) as [number, number, number];
  return { mean, error: squares.reduce((e, q, c) => e + q - sum[c]! ** 2 / n, 0) };
}

/** The residual of each cell along the residual's main colour axis. */
function residualValues(residual: Float32Array, n: number): Float32Array {
  const axis = mainAxis(residual, n);
  const value = new Float32Array(n);
  for (let m = 0; m < n; m++) value[m] = residual[m * 3]! * axis[0]! + residual[m * 3 + 1]! * axis[1]! + residual[m * 3 + 2]! * axis[2]!;
  return value;
}

/**
 * A piece that no gradient fits, cut in two where its residual changes most (a two-means split of
 * the residual along its main colour axis: what the gradient misses, a wave or a glow, on one
 * side), each side then split into its connected parts.
 */
function splitByResidual(cells: Int32Array, residual: Float32Array, grid: Grid, scratch: Scratch): Int32Array[] {
  const n = cells.length;
  const value = residualValues(residual, n);
  let lo = Infinity;
  let hi = -Infinity;
  for (let m = 0; m < n; m++) {
    if (value[m]! < lo) lo = value[m]!;
    if (value[m]! > hi) hi = value[m]!;
  }
  let threshold = (lo + hi) / 2;
  for (let iteration = 0; iteration < 8; iteration++) {
    let a = 0;
    let na = 0;
    let b = 0;
    let nb = 0;
    for (let m = 0; m < n; m++) {
      if (value[m]! < threshold) (a += value[m]!), na++;
      else (b += value[m]!), nb++;
    }
    if (na === 0 || nb === 0) break;
    threshold = (a / na + b / nb) / 2;
  }
  const side = new Int8Array(n);
  for (let m = 0; m < n; m++) side[m] = value[m]! < threshold ? -1 : 1;
  return connectedParts(cells, side, grid, scratch);
}

/**
 * Faint shapes a gradient glosses over (a soft wave, a translucent facet a few levels lighter):
 * connected cells whose residual is beyond SHAPE_RESIDUAL on one side, each as large as a piece.
 */
function residualShapes(cells: Int32Array, residual: Float32Array, grid: Grid, scratch: Scratch, least: number): Int32Array[] {
  const n = cells.length;
  const value = residualValues(residual, n);
  const side = new Int8Array(n);
  for (let m = 0; m < n; m++) side[m] = value[m]! > SHAPE_RESIDUAL ? 1 : value[m]! < -SHAPE_RESIDUAL ? -1 : 0;
  return connectedParts(cells, side, grid, scratch).filter((part) => part.length >= least);
}

interface Scratch {
  mark: Int32Array;
  stamp: number;
  queue: Int32Array;
}

/** Connected parts of the cells on each side (−1 or 1; 0: in no part). */
function connectedParts(cells: Int32Array, side: Int8Array, grid: Grid, scratch: Scratch): Int32Array[] {
  const n = cells.length;
  // each side is marked with a stamp of its own; a cell taken into a part is marked 0
  const { width } = grid;
  const total = grid.width * grid.height;
  const { mark, queue } = scratch;
  const low = ++scratch.stamp;
  const high = ++scratch.stamp;
  for (let m = 0; m < n; m++) mark[cells[m]!] = side[m]! < 0 ? low : side[m]! > 0 ? high : 0;
  const parts: Int32Array[] = [];
  for (let m = 0; m < n; m++) {
    const seed = cells[m]!;
    const stamp = mark[seed]!;
    if (stamp !== low && stamp !== high) continue; // in no part, or already in one
    mark[seed] = 0;
    const size = floodFill(seed, width, total, queue, (_i, j) => {
      if (mark[j] !== stamp) return false;
      mark[j] = 0;
      return true;
    });
    parts.push(queue.slice(0, size));
  }
  return parts;
}

/** A piece of a smooth region: its cells and its fill, a gradient or a flat `#rrggbb`. */
interface Piece {
  cells: Int32Array;
  paint: Paint | string;
}

/**
 * Finds the regions of smooth colour worth drawing as gradients, or undefined when there are
 * none (flat art, texture): then the image is traced as before.
 */
export function planSmoothRegions(image: RgbaImage, options: { photo: boolean; opaque: boolean }): SmoothPlan | undefined {
  // Flat art on transparency (icons, emoji, logos with some gradients) keeps its flat trace: its
  // bands cost fewer bytes than gradients would. Shading everywhere (few flat pixels) or an
  // opaque picture that is mostly smooth (a wallpaper) takes the gradients.
  if (!options.opaque && !options.photo) return undefined;
  const needed = options.photo && options.opaque ? PHOTO_COVERAGE : MIN_COVERAGE;
  const grid = analysisGrid(image);
  const { k, width, height, colour, alpha } = grid;
  const total = width * height;
  const regions = segment(grid, Math.max(MIN_REGION_CELLS, total * MIN_REGION_SHARE));
  let visibleCells = 0;
  for (let i = 0; i < total; i++) if (alpha[i]! >= 128) visibleCells++;
  // Pieces come from these regions (and what they absorb around them): too little, and no need to fit.
  if (regions.reduce((sum, cells) => sum + cells.length, 0) < visibleCells * needed * 0.8) return undefined;
  const leastPiece = Math.max(MIN_PIECE_CELLS, total * MIN_PIECE_SHARE);
  const scratch: Scratch = { mark: new Int32Array(total), stamp: 0, queue: new Int32Array(total) };
  const pieces: Piece[] = [];
  /** Cells of the smooth regions that went to fitting: what a piece may absorb when left over. */
  const smooth = new Uint8Array(total);
  let gradients = 0;
  const pending = regions.map((cells) => ({ cells, depth: 0 }));
  while (pending.length > 0 && pieces.length < MAX_PIECES) {
    const { cells, depth } = pending.pop()!;
    const n = cells.length;
    const flat = flatFit(cells, colour);
    const flatRms = Math.sqrt(flat.error / (3 * n));
    if (depth === 0 && flatRms < FLAT_RMS) continue; // a flat region: the detail trace draws it as before
    if (depth === 0) for (const i of cells) smooth[i] = 1;
    if (depth > 0 && flatRms <= FLAT_RMS) {
      pieces.push({ cells, paint: hex(flat.mean) });
      continue;
    }
    // What a gradient could win here, as mean squared error over the whole image: a gradient
    // costs a few hundred bytes, so a piece where it wins little stays flat (or is left as it was).
    const worth = (error: number) => (flat.error - error) / (3 * visibleCells) >= (depth === 0 ? MIN_GAIN : MIN_GAIN / 4);
    if (!worth(0)) {
      if (depth > 0) pieces.push({ cells, paint: hex(flat.mean) });
      continue;
    }
    const fit = fitGradient(cells, grid);
    if (fit.error <= flat.error * ACCEPT && fit.error <= MAX_RMS * MAX_RMS * 3 * n) {
      if (worth(fit.error)) {
        // faint shapes the gradient glosses over become pieces of their own, drawn over it
        const shapes = depth < MAX_DEPTH ? residualShapes(cells, fit.residual, grid, scratch, leastPiece) : [];
        for (const shape of shapes) pending.push({ cells: shape, depth: depth + 1 });
        pieces.push({ cells: shapes.length > 0 ? without(cells, shapes, scratch) : cells, paint: fit.paint });
        gradients++;
      } else if (depth > 0) pieces.push({ cells, paint: hex(flat.mean) });
      continue;
    }
    if (depth >= MAX_DEPTH) continue;
    for (const part of splitByResidual(cells, fit.residual, grid, scratch)) if (part.length >= leastPiece) pending.push({ cells: part, depth: depth + 1 });
  }
  if (gradients === 0) return undefined;
  mergePieces(pieces, grid, visibleCells);

  const owner = new Int32Array(total).fill(-1);
  pieces.forEach((piece, p) => {
    for (const i of piece.cells) owner[i] = p;
  });
  const paints = pieces.map((piece) => piece.paint);
  absorbLeftovers(grid, owner, smooth, paints, scratch.queue);
  let covered = 0;
  for (let i = 0; i < total; i++) if (owner[i]! >= 0) covered++;
  const coverage = covered / Math.max(1, visibleCells);
  if (coverage < needed) return undefined;

  // Each pixel of a piece is painted: a flat piece's with its colour, a gradient piece's with a
  // marker colour of its own, far from every other colour of the image and from the other
  // markers, so the colour trace draws each gradient piece as one shape, stacked in order with the
  // detail around and inside it.
  const marked = Buffer.from(image.pixels);
  const pixels = image.pixels;
  const assigned = new Int8Array(image.width * image.height).fill(-1); // a piece index (at most MAX_PIECES), or -1
  assignPixels(image, grid, owner, paints, marked, assigned);
  for (let pass = 0; pass < OUTLINE_PASSES; pass++) smoothOutlines(image, assigned, paints, OUTLINE_RADIUS);
  const used = usedBuckets(marked, assigned);
  const crowded = dilateBuckets(used, Math.ceil(MARKER_GAP / 16));
  const nearUsed = dilateBuckets(used, 1);
  const markers: ([number, number, number] | undefined)[] = paints.map(() => undefined);
  const taken: [number, number, number][] = [];
  paints.forEach((paint, o) => {
    if (typeof paint === 'string') return;
    markers[o] = pickMarker(crowded, taken);
    if (markers[o]) taken.push(markers[o]!);
  });
  paintMarkers(marked, assigned, markers);
  const gradientRegions: SmoothRegion[] = [];
  paints.forEach((paint, p) => {
    if (typeof paint !== 'string' && markers[p]) gradientRegions.push({ paint, marker: markers[p]! });
  });
  return {
    regions: gradientRegions,
    marked: { width: image.width, height: image.height, pixels: marked },
    coverage,
    regionFor: (r, g, b) => {
      // the colour trace averages a cluster's pixels: a marker's shape may come out a little off
      // its colour, or, mixed with a few other pixels, further off but still far from the image's
      let nearest: SmoothRegion | undefined;
      let distance = Infinity;
      for (const region of gradientRegions) {
        const [mr, mg, mb] = region.marker;
        const d = Math.max(Math.abs(mr - r), Math.abs(mg - g), Math.abs(mb - b));
        if (d < distance) [nearest, distance] = [region, d];
      }
      if (distance <= MARKER_MATCH) return nearest;
      // far from every colour the image has elsewhere, the colour can only be a marker's, mixed
      if (distance > MARKER_GAP + MARKER_MATCH || nearUsed[((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4)]) return undefined;
      return nearest;
    },
  };
}

/** Squared error of a piece's fill over its cells. */
function pieceError(cells: Int32Array, paint: Paint | string, grid: Grid): number {
  const { width, k, colour } = grid;
  const at = evaluator(paint);
  const out = [0, 0, 0];
  let error = 0;
  for (const i of cells) {
    const x = i % width;
    at((x + 0.5) * k, ((i - x) / width + 0.5) * k, out);
    for (let c = 0; c < 3; c++) error += (colour[i * 3 + c]! - out[c]!) ** 2;
  }
  return error;
}

/**
 * Neighbouring pieces that one gradient fits nearly as well as their own fills (rings of one
 * radial glow, bands of one ramp cut apart at a soft ridge) become one piece: a gradient and an
 * outline fewer, and no seam between them. Greedy, cheapest merge first, while a merge costs at
 * most MERGE_PRICE (mean squared error per channel over the whole image). After a merge, the
 * merged piece's pairs keep their older cost as an estimate, and are fitted again only when that
 * estimate comes first: most never do, and fitting is the time this takes.
 */
function mergePieces(pieces: Piece[], grid: Grid, visibleCells: number): void {
  const { width } = grid;
  const total = width * grid.height;
  const key = (a: number, b: number) => (a < b ? a * 1024 + b : b * 1024 + a);
  const owner = new Int32Array(total).fill(-1);
  pieces.forEach((piece, p) => {
    for (const i of piece.cells) owner[i] = p;
  });
  const errors = pieces.map((piece) => pieceError(piece.cells, piece.paint, grid));
  const alive = pieces.map(() => true);
  const neighbours = pieces.map(() => new Set<number>());
  for (let i = 0; i < total; i++) {
    const a = owner[i]!;
    if (a < 0) continue;
    for (const j of [i % width < width - 1 ? i + 1 : -1, i + width < total ? i + width : -1]) {
      const b = j < 0 ? -1 : owner[j]!;
      if (b < 0 || b === a) continue;
      neighbours[a]!.add(b);
      neighbours[b]!.add(a);
    }
  }
  const price = MERGE_PRICE * 3 * visibleCells;
  interface Candidate {
    a: number;
    b: number;
    cost: number;
    /** The union's fit, or undefined while `cost` is an estimate. */
    fit?: Fit;
    cells?: Int32Array;
  }
  const candidates = new Map<number, Candidate>();
  const fitPair = (candidate: Candidate) => {
    const { a, b } = candidate;
    const cells = new Int32Array(pieces[a]!.cells.length + pieces[b]!.cells.length);
    cells.set(pieces[a]!.cells);
    cells.set(pieces[b]!.cells, pieces[a]!.cells.length);
    const fit = fitGradient(cells, grid);
    candidate.cells = cells;
    candidate.fit = fit;
    candidate.cost = fit.error <= MERGE_RMS * MERGE_RMS * 3 * cells.length ? fit.error - errors[a]! - errors[b]! : Infinity;
  };
  for (let a = 0; a < pieces.length; a++) {
    for (const b of neighbours[a]!) {
      if (a > b) continue;
      const candidate: Candidate = { a, b, cost: 0 };
      fitPair(candidate);
      candidates.set(key(a, b), candidate);
    }
  }
  for (;;) {
    let best: Candidate | undefined;
    for (const candidate of candidates.values()) if (candidate.cost <= price && (!best || candidate.cost < best.cost)) best = candidate;
    if (!best) break;
    if (!best.fit) {
      fitPair(best);
      continue;
    }
    const { a, b } = best;
    pieces[a] = { cells: best.cells!, paint: best.fit.paint };
    errors[a] = best.fit.error;
    alive[b] = false;
    candidates.delete(key(a, b));
    neighbours[a]!.delete(b);
    neighbours[b]!.delete(a);
    for (const c of new Set([...neighbours[a]!, ...neighbours[b]!])) {
      // the merged piece's own error grew by the merge's cost: a merge with it costs that less
      const estimate = Math.min(candidates.get(key(a, c))?.cost ?? Infinity, candidates.get(key(b, c))?.cost ?? Infinity) - best.cost;
      candidates.delete(key(b, c));
      neighbours[c]!.delete(b);
      neighbours[c]!.add(a);
      neighbours[a]!.add(c);
      candidates.set(key(a, c), { a: Math.min(a, c), b: Math.max(a, c), cost: estimate });
    }
  }
  let kept = 0;
  for (let p = 0; p < pieces.length; p++) if (alive[p]) pieces[kept++] = pieces[p]!;
  pieces.length = kept;
}

/**
 * Cell by cell, the pieces a pixel may join (its cell's, and at a piece's edge its neighbours'),
 * each with its fill at the cell's centre; a pixel joins the nearest if close enough. At an edge
 * this follows the picture to the pixel, not the cells' staircase; inside a piece, a detail
 * smaller than a cell stays out. A flat piece's pixels are painted its colour in `marked`; a
 * gradient piece's are recorded in `assigned` (painted with its marker once markers are chosen).
 */
function assignPixels(image: RgbaImage, grid: Grid, owner: Int32Array, paints: (Paint | string)[], marked: Buffer, assigned: Int8Array): void {
  const { k, width, height } = grid;
  const pixels = image.pixels;
  const evaluators = paints.map(evaluator);
  const gradient = Uint8Array.from(paints, (paint) => (typeof paint === 'string' ? 0 : 1));
  const choice = new Int32Array(5);
  const choiceFill = new Float32Array(15);
  const out = [0, 0, 0];
  for (let cy = 0; cy < height; cy++) {
    const y0 = cy * k;
    const y1 = Math.min(image.height, y0 + k);
    for (let cx = 0; cx < width; cx++) {
      const i = cy * width + cx;
      let count = 0;
      for (let side = 0; side < 5; side++) {
        const j = side === 0 ? i : side === 1 ? (cx > 0 ? i - 1 : -1) : side === 2 ? (cx < width - 1 ? i + 1 : -1) : side === 3 ? (cy > 0 ? i - width : -1) : cy < height - 1 ? i + width : -1;
        if (j < 0) continue;
        const o = owner[j]!;
        if (o < 0) continue;
        let repeated = false;
        for (let e = 0; e < count; e++) if (choice[e] === o) repeated = true;
        if (repeated) continue;
        evaluators[o]!((cx + 0.5) * k, (cy + 0.5) * k, out);
        choice[count] = o;
        choiceFill[count * 3] = out[0]!;
        choiceFill[count * 3 + 1] = out[1]!;
        choiceFill[count * 3 + 2] = out[2]!;
        count++;
      }
      if (count === 0) continue;
      const single = count === 1 && owner[i]! >= 0;
      if (single && k === 1 && gradient[choice[0]!]) {
        // the common case: one gradient piece, cells are pixels
        if (pixels[i * 4 + 3]! >= 128) {
          marked[i * 4 + 3] = 255;
          assigned[i] = choice[0]!;
        }
        continue;
      }
      const x0 = cx * k;
      const x1 = Math.min(image.width, x0 + k);
      for (let y = y0; y < y1; y++) {
        for (let x = x0, p = (y * image.width + x0) * 4; x < x1; x++, p += 4) {
          if (pixels[p + 3]! < 128) continue;
          const r = pixels[p]!;
          const g = pixels[p + 1]!;
          const b = pixels[p + 2]!;
          let fill = -1;
          let best = PIXEL_TOLERANCE + 1;
          for (let c = 0; c < count; c++) {
            const distance = Math.max(Math.abs(r - choiceFill[c * 3]!), Math.abs(g - choiceFill[c * 3 + 1]!), Math.abs(b - choiceFill[c * 3 + 2]!));
            if (distance < best) {
              best = distance;
              fill = c;
            }
          }
          // inside one piece at cell size 1 the pixel is the cell: it belongs, however far
          if (fill < 0 && single && k === 1) fill = 0;
          if (fill < 0) continue;
          const o = choice[fill]!;
          marked[p + 3] = 255;
          if (gradient[o]) {
            assigned[p >> 2] = o;
            continue;
          }
          marked[p] = Math.round(choiceFill[fill * 3]!);
          marked[p + 1] = Math.round(choiceFill[fill * 3 + 1]!);
          marked[p + 2] = Math.round(choiceFill[fill * 3 + 2]!);
        }
      }
    }
  }
}

/**
 * Piece outlines as smooth lines: each visible pixel on an outline (a neighbour in another piece,
 * or in none) takes the label most of the visible pixels within `radius` have, a piece or none;
 * a pixel joins a piece only if its colour is within PIXEL_TOLERANCE of the piece's fill there.
 * Where two pieces meet their fills are close, and where a piece meets the detail its cells'
 * staircase decided: left alone, the outline traces as ragged steps, many bytes of visible jags.
 */
function smoothOutlines(image: RgbaImage, assigned: Int8Array, paints: (Paint | string)[], radius: number): void {
  const { width, height, pixels } = image;
  const seam: number[] = [];
  const onSeam = new Uint8Array(width * height);
  const add = (q: number) => {
    if (!onSeam[q]) (onSeam[q] = 1), seam.push(q);
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0, q = y * width; x < width; x++, q++) {
      if (pixels[q * 4 + 3]! < 128) continue;
      const o = assigned[q]!;
      if (x < width - 1 && assigned[q + 1] !== o && pixels[q * 4 + 7]! >= 128) add(q), add(q + 1);
      if (y < height - 1 && assigned[q + width] !== o && pixels[(q + width) * 4 + 3]! >= 128) add(q), add(q + width);
    }
  }
  const evaluators = paints.map(evaluator);
  const counts = new Int32Array(129);
  const labels = new Int32Array(129);
  const next = new Int8Array(seam.length);
  const out = [0, 0, 0];
  for (let s = 0; s < seam.length; s++) {
    const q = seam[s]!;
    const x = q % width;
    const y = (q - x) / width;
    let found = 0;
    const x0 = Math.max(0, x - radius);
    const x1 = Math.min(width - 1, x + radius);
    for (let yy = Math.max(0, y - radius); yy <= Math.min(height - 1, y + radius); yy++) {
      for (let r = yy * width + x0, end = yy * width + x1; r <= end; r++) {
        if (pixels[r * 4 + 3]! < 128) continue;
        const o = assigned[r]! + 1;
        if (counts[o]!++ === 0) labels[found++] = o;
      }
    }
    const own = assigned[q]! + 1;
    let best = own;
    for (let l = 0; l < found; l++) if (counts[labels[l]!]! > counts[best]!) best = labels[l]!;
    for (let l = 0; l < found; l++) counts[labels[l]!] = 0;
    if (best > 0 && best !== own) {
      evaluators[best - 1]!(x + 0.5, y + 0.5, out);
      const p = q * 4;
      if (Math.max(Math.abs(pixels[p]! - out[0]!), Math.abs(pixels[p + 1]! - out[1]!), Math.abs(pixels[p + 2]! - out[2]!)) > PIXEL_TOLERANCE) best = own;
    }
    next[s] = best - 1;
  }
  for (let s = 0; s < seam.length; s++) assigned[seam[s]!] = next[s]!;
}

/** Colour buckets (4 bits a channel) of the visible pixels that no gradient piece took. */
function usedBuckets(marked: Buffer, assigned: Int8Array): Uint8Array {
  const used = new Uint8Array(4096);
  for (let q = 0, p = 0; q < assigned.length; q++, p += 4) {
    if (assigned[q]! < 0 && marked[p + 3]! >= 128) used[((marked[p]! >> 4) << 8) | ((marked[p + 1]! >> 4) << 4) | (marked[p + 2]! >> 4)] = 1;
  }
  return used;
}

/** Buckets within `reach` buckets (every channel) of a used one: a separable maximum filter. */
function dilateBuckets(used: Uint8Array, reach: number): Uint8Array {
  let current = used;
  for (const shift of [8, 4, 0]) {
    const next = new Uint8Array(4096);
    for (let key = 0; key < 4096; key++) {
      if (!current[key]) continue;
      const level = (key >> shift) & 15;
      for (let d = Math.max(0, level - reach); d <= Math.min(15, level + reach); d++) next[(key & ~(15 << shift)) | (d << shift)] = 1;
    }
    current = next;
  }
  return current;
}

/** Each gradient piece's pixels painted its marker (a piece left without one keeps its pixels). */
function paintMarkers(marked: Buffer, assigned: Int8Array, markers: ([number, number, number] | undefined)[]): void {
  for (let q = 0, p = 0; q < assigned.length; q++, p += 4) {
    const o = assigned[q]!;
    if (o < 0) continue;
    const fill = markers[o];
    if (!fill) continue;
    marked[p] = fill[0];
    marked[p + 1] = fill[1];
    marked[p + 2] = fill[2];
  }
}

/** Marker candidates: a coarse grid over RGB. */
const MARKER_LEVELS = [0, 64, 128, 192, 255, 32, 96, 160, 224];

/** A colour in no crowded bucket and at least MARKER_GAP from every marker taken, if any. */
function pickMarker(crowded: Uint8Array, taken: [number, number, number][]): [number, number, number] | undefined {
  for (const r of MARKER_LEVELS) {
    for (const g of MARKER_LEVELS) {
      for (const b of MARKER_LEVELS) {
        if (crowded[((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4)]) continue;
        if (taken.some((m) => Math.max(Math.abs(m[0] - r), Math.abs(m[1] - g), Math.abs(m[2] - b)) < MARKER_GAP)) continue;
        return [r, g, b];
      }
    }
  }
  return undefined;
}

/**
 * Cells of a smooth region that no piece took (parts too small to keep, or that nothing fitted)
 * join the piece next to them when their colour is close to its fill there; the rest is left to
 * the detail trace. A breadth-first spread from the pieces' edges.
 */
function absorbLeftovers(grid: Grid, owner: Int32Array, smooth: Uint8Array, paints: (Paint | string)[], queue: Int32Array): void {
  const { width, height, colour, k } = grid;
  const total = width * height;
  let tail = 0;
  for (let i = 0; i < total; i++) if (owner[i]! >= 0) queue[tail++] = i;
  const predicted = [0, 0, 0];
  const evaluators = paints.map(evaluator);
  for (let head = 0; head < tail; head++) {
    const i = queue[head]!;
    const o = owner[i]!;
    const x = i % width;
    const y = (i - x) / width;
    for (let side = 0; side < 4; side++) {
      const j = side === 0 ? (x > 0 ? i - 1 : -1) : side === 1 ? (x < width - 1 ? i + 1 : -1) : side === 2 ? (y > 0 ? i - width : -1) : y < height - 1 ? i + width : -1;
      if (j < 0 || owner[j]! >= 0 || !smooth[j]) continue;
      const jx = j % width;
      evaluators[o]!((jx + 0.5) * k, ((j - jx) / width + 0.5) * k, predicted);
      if (Math.abs(colour[j * 3]! - predicted[0]!) > ABSORB_TOLERANCE || Math.abs(colour[j * 3 + 1]! - predicted[1]!) > ABSORB_TOLERANCE || Math.abs(colour[j * 3 + 2]! - predicted[2]!) > ABSORB_TOLERANCE) continue;
      owner[j] = o;
      queue[tail++] = j;
    }
  }
}

const hex = (c: number[]) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
