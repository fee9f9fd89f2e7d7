import { mainAxis } from './colour-axis.ts';
import { floodFill, type Grid } from './smooth-grid.ts';

/**
 * A piece cut along what its gradient missed (smooth-pieces.ts): its cells split by their residual
 * colour, into connected parts. Cell lists are indices into the analysis grid.
 */

/** Residual (along its main colour axis) beyond which cells glossed over by a gradient may form a faint shape. */
const SHAPE_RESIDUAL = 8;

/** Buffers the splits share over one plan: a stamp per grid cell, and a queue as long as the grid. */
export interface Scratch {
  mark: Int32Array;
  stamp: number;
  queue: Int32Array;
}

/** The cells not in any of the parts. */
export function without(cells: Int32Array, parts: Int32Array[], scratch: Scratch): Int32Array {
  const { mark } = scratch;
  const stamp = ++scratch.stamp;
  for (const part of parts) for (const i of part) mark[i] = stamp;
  return cells.filter((i) => mark[i] !== stamp);
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
export function splitByResidual(cells: Int32Array, residual: Float32Array, grid: Grid, scratch: Scratch): Int32Array[] {
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
export function residualShapes(cells: Int32Array, residual: Float32Array, grid: Grid, scratch: Scratch, least: number): Int32Array[] {
  const n = cells.length;
  const value = residualValues(residual, n);
  const side = new Int8Array(n);
  for (let m = 0; m < n; m++) side[m] = value[m]! > SHAPE_RESIDUAL ? 1 : value[m]! < -SHAPE_RESIDUAL ? -1 : 0;
  return connectedParts(cells, side, grid, scratch).filter((part) => part.length >= least);
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
