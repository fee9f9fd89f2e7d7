import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Grid } from '../../../src/engines/trace/smooth-grid.ts';
import { residualShapes, splitByResidual, without, type Scratch } from '../../../src/engines/trace/smooth-split.ts';

const WIDTH = 20;
const HEIGHT = 10;
const grid: Grid = { k: 1, width: WIDTH, height: HEIGHT, colour: new Float32Array(WIDTH * HEIGHT * 3), alpha: new Float32Array(WIDTH * HEIGHT) };
const scratch = (): Scratch => ({ mark: new Int32Array(WIDTH * HEIGHT), stamp: 0, queue: new Int32Array(WIDTH * HEIGHT) });
const allCells = Int32Array.from({ length: WIDTH * HEIGHT }, (_, i) => i);

/** A residual per cell (3 channels), the same grey offset on each: `value(x, y)`. */
function residual(value: (x: number, y: number) => number): Float32Array {
  const out = new Float32Array(WIDTH * HEIGHT * 3);
  for (let i = 0; i < WIDTH * HEIGHT; i++) out.fill(value(i % WIDTH, Math.floor(i / WIDTH)), i * 3, i * 3 + 3);
  return out;
}

const sorted = (parts: Int32Array[]) => parts.map((part) => [...part].sort((a, b) => a - b)).sort((a, b) => a[0]! - b[0]!);

describe('a piece cut along what its gradient missed', () => {
  it('splits where the residual changes most, each side in its connected parts', () => {
    // lighter than the fit in two separate bands (x < 5 and x >= 15), darker between
    const parts = splitByResidual(allCells, residual((x) => (x < 5 || x >= 15 ? 10 : -10) + (x % 2)), grid, scratch());
    assert.equal(parts.length, 3);
    assert.deepEqual(sorted(parts).map((part) => part.length), [50, 100, 50]);
    for (const part of parts) {
      const columns = new Set([...part].map((i) => i % WIDTH));
      assert.ok([...columns].every((x) => x < 5) || [...columns].every((x) => x >= 5 && x < 15) || [...columns].every((x) => x >= 15));
    }
  });

  it('finds the faint shapes a gradient glosses over: connected cells beyond 8 along the colour axis, as large as asked', () => {
    // grey offsets, so √3 times as far along the axis: a blob 7 levels lighter (4×4), a dot 7
    // levels darker (1 cell), and noise of ±4 elsewhere
    const value = (x: number, y: number) => (x >= 2 && x < 6 && y >= 3 && y < 7 ? 7 : x === 15 && y === 5 ? -7 : (x + y) % 2 ? 4 : -4);
    const shapes = residualShapes(allCells, residual(value), grid, scratch(), 4);
    assert.equal(shapes.length, 1);
    assert.deepEqual(sorted(shapes)[0], [62, 63, 64, 65, 82, 83, 84, 85, 102, 103, 104, 105, 122, 123, 124, 125]);
    assert.equal(residualShapes(allCells, residual(value), grid, scratch(), 1).length, 2);
  });

  it('takes the parts out of a piece, keeping the order of the rest', () => {
    const cells = Int32Array.from([5, 1, 9, 3, 7]);
    assert.deepEqual([...without(cells, [Int32Array.from([9]), Int32Array.from([1, 7])], scratch())], [5, 3]);
  });
});
