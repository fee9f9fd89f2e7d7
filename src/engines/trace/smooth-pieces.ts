import { fitGradient } from './gradient-fit.ts';
import { evaluator, type Paint } from './gradient-paint.ts';
import type { Grid } from './smooth-grid.ts';
import { residualShapes, splitByResidual, without, type Scratch } from './smooth-split.ts';

/**
 * From smooth regions to pieces (smooth-regions.ts): a region that is not flat gets a gradient
 * when it leaves a small part of a flat fill's error and wins enough to pay for its bytes; one
 * that no gradient fits is cut along what the fit missed and the parts fitted in turn; what a kept
 * gradient glosses over becomes a piece of its own. Cells left over later join a piece next to them.
 */

/** A region whose colour varies less than this (RMS per channel) is flat: left to the detail trace. */
const FLAT_RMS = 2;
/** A gradient is kept when its squared error is at most this share of a flat fill's. */
const ACCEPT = 0.3;
/** ... and its RMS error per channel at most this (a piece of a split region this flat is a flat fill). */
const MAX_RMS = 8;
/** A smooth region no gradient fits is split in two, at most this many times over. */
const MAX_DEPTH = 2;
const MAX_PIECES = 64; // at most 127: pixels record their piece in an Int8Array
/** Smallest piece of a split region kept, as a share of the grid. */
const MIN_PIECE_SHARE = 0.013;
const MIN_PIECE_CELLS = 24;
/** A left-over cell joins the piece next to it when within this of its fill (per channel). */
const ABSORB_TOLERANCE = 20;
/** Least gain of a gradient over a flat fill, as mean squared error per channel over the whole image. */
const MIN_GAIN = 1;

/** A piece of a smooth region: its cells and its fill, a gradient or a flat `#rrggbb`. */
export interface Piece {
  cells: Int32Array;
  paint: Paint | string;
}

/** The pieces found in the regions, the cells those regions cover, and how many pieces are gradients. */
export interface FoundPieces {
  pieces: Piece[];
  /** Cells of the smooth regions that went to fitting: what a piece may absorb when left over. */
  smooth: Uint8Array;
  gradients: number;
}

/**
 * Fits each region (its cells on the grid): a flat region is left to the detail trace, a gradient
 * that fits is kept with the faint shapes it glosses over as pieces of their own, and a region no
 * gradient fits is split by its residual, at most MAX_DEPTH times over. A gradient must win at
 * least MIN_GAIN over the image's `visibleCells`.
 */
export function findPieces(regions: Int32Array[], grid: Grid, visibleCells: number, scratch: Scratch): FoundPieces {
  const { colour } = grid;
  const total = grid.width * grid.height;
  const leastPiece = Math.max(MIN_PIECE_CELLS, total * MIN_PIECE_SHARE);
  const pieces: Piece[] = [];
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
  return { pieces, smooth, gradients };
}

/** Each grid cell's piece (its index in `pieces`), or -1. */
export function pieceOwners(pieces: Piece[], total: number): Int32Array {
  const owner = new Int32Array(total).fill(-1);
  pieces.forEach((piece, p) => {
    for (const i of piece.cells) owner[i] = p;
  });
  return owner;
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

/**
 * Cells of a smooth region that no piece took (parts too small to keep, or that nothing fitted)
 * join the piece next to them when their colour is close to its fill there; the rest is left to
 * the detail trace. A breadth-first spread from the pieces' edges.
 */
export function absorbLeftovers(grid: Grid, owner: Int32Array, smooth: Uint8Array, paints: (Paint | string)[], queue: Int32Array): void {
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

/** A flat fill, channels rounded, as `#rrggbb`: always six digits, as evaluator() reads it. */
const hex = (c: number[]) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
