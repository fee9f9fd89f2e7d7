import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Paint } from '../../../src/engines/trace/gradient-paint.ts';
import { analysisGrid } from '../../../src/engines/trace/smooth-grid.ts';
import { piecePixels } from '../../../src/engines/trace/smooth-pixels.ts';
import { rgbaImage } from './images.ts';

const grey: Paint = { kind: 'linear', x1: 0, y1: 0, x2: 100, y2: 0, stops: [{ offset: 0, colour: [100, 100, 100] }, { offset: 1, colour: [100, 100, 100] }] };

describe('the pixels of smooth pieces', () => {
  it('give a gradient piece its visible pixels, and no transparent ones', () => {
    const source = rgbaImage(20, 10, (x) => (x < 3 ? [100, 100, 100, 0] : [100, 100, 100]));
    const grid = analysisGrid(source);
    const owner = new Int32Array(grid.width * grid.height).fill(0);
    const marked = Buffer.from(source.pixels);
    const assigned = piecePixels(source, grid, owner, [grey], marked);
    assert.equal(assigned[0], -1);
    assert.equal(assigned[5], 0);
    assert.deepEqual([...marked.subarray(5 * 4, 5 * 4 + 4)], [100, 100, 100, 255]); // left for its marker
  });

  it('paint a flat piece’s pixels its colour, and leave out a detail far from it inside a cell', () => {
    // 600 px wide: cells of 3×3 pixels; a dark dot on a pale field
    const source = rgbaImage(600, 30, (x, y) => (x === 301 && y === 13 ? [0, 0, 0] : [200 + (x % 3), 200, 200]));
    const grid = analysisGrid(source);
    assert.equal(grid.k, 3);
    const owner = new Int32Array(grid.width * grid.height).fill(0);
    const marked = Buffer.from(source.pixels);
    const assigned = piecePixels(source, grid, owner, ['#c8c8c8'], marked);
    const at = (x: number, y: number) => (y * 600 + x) * 4;
    assert.deepEqual([...marked.subarray(at(2, 2), at(2, 2) + 4)], [200, 200, 200, 255]); // was 202: now the fill
    assert.equal(assigned[13 * 600 + 301], -1); // flat pieces are painted, not assigned
    assert.deepEqual([...marked.subarray(at(301, 13), at(301, 13) + 4)], [0, 0, 0, 255]); // the dot stays for the detail trace
  });

  it('smooth a piece’s outline: a lone pixel of another piece inside it joins it when its colour fits', () => {
    const source = rgbaImage(15, 15, () => [100, 100, 100]);
    const grid = analysisGrid(source);
    const owner = new Int32Array(15 * 15).fill(0);
    owner[7 * 15 + 7] = 1;
    const marked = Buffer.from(source.pixels);
    const assigned = piecePixels(source, grid, owner, [grey, { ...grey }], marked);
    assert.ok(assigned.every((piece) => piece === 0));
  });
});
