import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analysisGrid, floodFill, segment } from '../../../src/engines/trace/smooth-grid.ts';
import { rgbaImage } from './images.ts';

describe('the analysis grid', () => {
  it('is the image itself, cell for pixel, when it is at most 200 pixels a side', () => {
    const grid = analysisGrid(rgbaImage(3, 2, (x, y) => [x * 10, y * 10, 7, 200]));
    assert.deepEqual([grid.k, grid.width, grid.height], [1, 3, 2]);
    assert.deepEqual([...grid.colour.subarray(3 * 4, 3 * 5)], [10, 10, 7]);
    assert.deepEqual([...grid.alpha], [200, 200, 200, 200, 200, 200]);
  });

  it('averages k×k blocks of a larger image, partial blocks at the right and bottom edges included', () => {
    const grid = analysisGrid(rgbaImage(401, 300, (x) => [x >= 399 ? 100 : x % 2 === 0 ? 0 : 30, 0, 0]));
    assert.deepEqual([grid.k, grid.width, grid.height], [3, 134, 100]);
    assert.equal(grid.colour[0], 10); // columns 0, 1, 2: 0, 30, 0
    assert.equal(grid.colour[133 * 3], 100); // the last block: columns 399 and 400 only
  });
});

describe('smooth regions of the grid', () => {
  it('keep a steep but even ramp whole and split at a soft step', () => {
    // a ramp of 8 levels a cell, then a step of about a hundred to a slow ramp
    const grid = analysisGrid(rgbaImage(60, 20, (x) => (x < 30 ? [x * 8, 0, 0] : [100 + x, 40, 0])));
    const regions = segment(grid, 1);
    const regionOf = (x: number, y: number) => regions.findIndex((cells) => cells.includes(y * 60 + x));
    // the steep ramp is one region inside (its two end columns bend: one at the border, one at the step)
    for (let x = 1; x < 29; x++) for (const y of [0, 10, 19]) assert.equal(regionOf(x, y), regionOf(15, 10));
    for (let x = 30; x < 60; x++) assert.equal(regionOf(x, 5), regionOf(45, 10));
    assert.notEqual(regionOf(15, 10), regionOf(45, 10));
  });

  it('leave out cells that are not opaque, and regions smaller than the least size', () => {
    const grid = analysisGrid(rgbaImage(20, 20, (x, y) => (x < 5 ? [0, 0, 0, 0] : y < 3 ? [200, 0, 0] : [0, 0, 200])));
    assert.deepEqual(segment(grid, 1).map((cells) => cells.length), [45, 255]);
    assert.deepEqual(segment(grid, 100).map((cells) => cells.length), [255]);
  });
});

describe('a flood fill over the grid', () => {
  it('takes the four neighbours the caller accepts, breadth first from the seed', () => {
    // a 4×3 grid; the middle column (x = 1) is refused
    const queue = new Int32Array(12);
    const seen = new Uint8Array(12);
    seen[0] = 1;
    const size = floodFill(0, 4, 12, queue, (_i, j) => {
      if (seen[j] || j % 4 === 1) return false;
      seen[j] = 1;
      return true;
    });
    assert.deepEqual([...queue.subarray(0, size)], [0, 4, 8]);
  });
});
