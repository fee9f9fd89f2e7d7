import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitGradient } from '../../../src/engines/trace/gradient-fit.ts';
import type { Grid } from '../../../src/engines/trace/smooth-grid.ts';
import { mergePieces } from '../../../src/engines/trace/smooth-merge.ts';
import type { Piece } from '../../../src/engines/trace/smooth-pieces.ts';
import { opaqueGrid } from './images.ts';

/** The left and right halves of the grid, each with its own fitted gradient. */
function halves(g: Grid): Piece[] {
  return [(x: number) => x < g.width / 2, (x: number) => x >= g.width / 2].map((inside) => {
    const cells = Int32Array.from({ length: g.width * g.height }, (_, i) => i).filter((i) => inside(i % g.width));
    return { cells, paint: fitGradient(cells, g).paint };
  });
}

describe('merging neighbouring pieces', () => {
  it('makes one piece of two that one gradient fits as well (a ramp cut in two)', () => {
    const g = opaqueGrid(60, 20, (x) => [30 + 3 * x, 60, 220 - 2 * x]);
    const pieces = halves(g);
    mergePieces(pieces, g, 60 * 20);
    assert.equal(pieces.length, 1);
    assert.equal(pieces[0]!.cells.length, 60 * 20);
    assert.equal(typeof pieces[0]!.paint, 'object');
  });

  it('keeps two pieces apart when one gradient over both would cost too much (a ridge between two ramps)', () => {
    const g = opaqueGrid(60, 20, (x) => (x < 30 ? [30 + 5 * x, 60, 60] : [180 - 5 * (x - 30), 60, 200]));
    const pieces = halves(g);
    const before = pieces.map((piece) => piece.paint);
    mergePieces(pieces, g, 60 * 20);
    assert.equal(pieces.length, 2);
    assert.deepEqual(pieces.map((piece) => piece.paint), before);
  });
});
