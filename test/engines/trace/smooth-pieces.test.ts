import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Grid } from '../../../src/engines/trace/smooth-grid.ts';
import { absorbLeftovers, findPieces, pieceOwners } from '../../../src/engines/trace/smooth-pieces.ts';
import type { Scratch } from '../../../src/engines/trace/smooth-split.ts';
import { opaqueGrid } from './images.ts';

const cellsWhere = (g: Grid, inside: (x: number, y: number) => boolean) =>
  Int32Array.from({ length: g.width * g.height }, (_, i) => i).filter((i) => inside(i % g.width, Math.floor(i / g.width)));
const scratch = (g: Grid): Scratch => ({ mark: new Int32Array(g.width * g.height), stamp: 0, queue: new Int32Array(g.width * g.height) });

describe('pieces of the smooth regions', () => {
  it('give a ramp a gradient and leave a flat region to the detail trace', () => {
    const g = opaqueGrid(60, 30, (x) => (x < 30 ? [40 + 6 * x, 90, 200 - 4 * x] : [120, 120, 120]));
    const ramp = cellsWhere(g, (x) => x < 30);
    const flat = cellsWhere(g, (x) => x >= 30);
    const found = findPieces([ramp, flat], g, 60 * 30, scratch(g));
    assert.equal(found.gradients, 1);
    assert.equal(found.pieces.length, 1);
    assert.equal(typeof found.pieces[0]!.paint, 'object');
    assert.deepEqual([...found.pieces[0]!.cells], [...ramp]);
    assert.equal(found.smooth[ramp[0]!], 1);
    assert.equal(found.smooth[flat[0]!], 0);
  });

  it('find no gradient where one would win too little over the whole image', () => {
    // a faint ramp (4 levels end to end) in a small corner of a large image
    const g = opaqueGrid(100, 100, (x, y) => (x < 20 && y < 20 ? [100 + x / 5, 100, 100] : [0, 0, 0]));
    const found = findPieces([cellsWhere(g, (x, y) => x < 20 && y < 20)], g, 100 * 100, scratch(g));
    assert.equal(found.gradients, 0);
    assert.equal(found.pieces.length, 0);
  });

  it('name each cell’s piece, or -1', () => {
    const owner = pieceOwners([{ cells: Int32Array.from([0, 2]), paint: '#000000' }, { cells: Int32Array.from([3]), paint: '#ffffff' }], 5);
    assert.deepEqual([...owner], [0, -1, 0, 1, -1]);
  });

  it('let a piece absorb the smooth cells next to it whose colour is close to its fill there, and spread from them', () => {
    const colours: [number, number, number][] = [[100, 100, 100], [110, 110, 110], [115, 115, 115], [160, 100, 100], [100, 100, 100], [100, 100, 100]];
    const g = opaqueGrid(6, 1, (x) => colours[x]!);
    const owner = Int32Array.from([0, -1, -1, -1, -1, -1]);
    const smooth = Uint8Array.from([1, 1, 1, 1, 1, 0]);
    absorbLeftovers(g, owner, smooth, ['#646464'], new Int32Array(6));
    // cells 1 and 2 are within 20 of the fill (100), cell 3 is 60 off, cells beyond it are cut off
    assert.deepEqual([...owner], [0, 0, 0, -1, -1, -1]);
  });
});
