import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitGradient } from '../../../src/engines/trace/gradient-fit.ts';

/** An analysis grid of `width`×`height` cells of `k` pixels, coloured by `colour(x, y)` at cell centres, and all its cells. */
function piece(width: number, height: number, k: number, colour: (x: number, y: number) => [number, number, number]) {
  const values = new Float32Array(width * height * 3);
  for (let i = 0; i < width * height; i++) values.set(colour((i % width) + 0.5, Math.floor(i / width) + 0.5), i * 3);
  const cells = Int32Array.from({ length: width * height }, (_, i) => i);
  return { cells, grid: { width, colour: values, k } };
}

describe('a gradient fitted to a piece', () => {
  it('is linear along a ramp, in traced pixels, leaving an error of a level or two', () => {
    const { cells, grid } = piece(40, 30, 2, (x) => [50 + 4 * x, 100, 200 - 3 * x]);
    const fit = fitGradient(cells, grid);
    assert.equal(fit.paint.kind, 'linear');
    if (fit.paint.kind !== 'linear') return;
    assert.ok(Math.abs(fit.paint.y1 - fit.paint.y2) < 1, JSON.stringify(fit.paint)); // runs along x
    assert.ok(Math.abs(fit.paint.x2 - fit.paint.x1) > 60); // 40 cells of 2 pixels
    assert.equal(fit.residual.length, cells.length * 3);
    assert.ok(fit.error / (3 * cells.length) < 4, `mean squared error ${fit.error / (3 * cells.length)}`);
  });

  it('is radial round a glow, centred on it', () => {
    const { cells, grid } = piece(50, 50, 3, (x, y) => {
      const v = Math.max(0, 240 - 6 * Math.hypot(x - 22, y - 27));
      return [v, v * 0.8, 40];
    });
    const fit = fitGradient(cells, grid);
    assert.equal(fit.paint.kind, 'radial');
    if (fit.paint.kind !== 'radial') return;
    assert.ok(Math.hypot(fit.paint.cx - 22 * 3, fit.paint.cy - 27 * 3) < 3, JSON.stringify(fit.paint));
    assert.ok(Math.abs(fit.paint.ratio - 1) < 0.1);
  });

  it('gives each cell its residual: what the gradient leaves of its colour', () => {
    const { cells, grid } = piece(30, 30, 1, (x, y) => [3 * x + (x > 10 && x < 14 && y > 10 && y < 14 ? 40 : 0), 80, 80]);
    const fit = fitGradient(cells, grid);
    const inside = 12 * 30 + 12;
    const outside = 25 * 30 + 3;
    assert.ok(fit.residual[inside * 3]! > 30, `${fit.residual[inside * 3]}`);
    assert.ok(Math.abs(fit.residual[outside * 3]!) < 5, `${fit.residual[outside * 3]}`);
  });
});
