import { fitGradient, type Fit } from './gradient-fit.ts';
import { evaluator, type Paint } from './gradient-paint.ts';
import type { Grid } from './smooth-grid.ts';
import { pieceOwners, type Piece } from './smooth-pieces.ts';

/** Largest cost of merging two neighbouring pieces into one gradient, as mean squared error per channel over the whole image. */
const MERGE_PRICE = 6;
/** ... when the merged gradient leaves at most this RMS error per channel over the merged piece. */
const MERGE_RMS = 7;

/**
 * Neighbouring pieces that one gradient fits nearly as well as their own fills (rings of one
 * radial glow, bands of one ramp cut apart at a soft ridge) become one piece: a gradient and an
 * outline fewer, and no seam between them. Greedy, cheapest merge first, while a merge costs at
 * most MERGE_PRICE (mean squared error per channel over the whole image). After a merge, the
 * merged piece's pairs keep their older cost as an estimate, and are fitted again only when that
 * estimate comes first: most never do, and fitting is the time this takes.
 */
export function mergePieces(pieces: Piece[], grid: Grid, visibleCells: number): void {
  const key = (a: number, b: number) => (a < b ? a * 1024 + b : b * 1024 + a);
  const errors = pieces.map((piece) => pieceError(piece.cells, piece.paint, grid));
  const alive = pieces.map(() => true);
  const neighbours = pieceNeighbours(pieces, grid);
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

/** For each piece, the pieces it shares a cell edge with. */
function pieceNeighbours(pieces: Piece[], grid: Grid): Set<number>[] {
  const { width } = grid;
  const total = width * grid.height;
  const owner = pieceOwners(pieces, total);
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
  return neighbours;
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
