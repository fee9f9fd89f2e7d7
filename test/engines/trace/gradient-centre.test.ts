import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quadraticCentre, quadraticEllipse, ringPositions } from '../../../src/engines/trace/gradient-centre.ts';

/** Points on a size×size grid of cell centres, each coloured by `colour(x, y)` (grey). */
function grid(size: number, colour: (x: number, y: number) => number) {
  const n = size * size;
  const xs = new Float32Array(n);
  const ys = new Float32Array(n);
  const colours = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const x = (i % size) + 0.5;
    const y = Math.floor(i / size) + 0.5;
    xs[i] = x;
    ys[i] = y;
    const v = colour(x, y);
    colours.set([v, v, v], i * 3);
  }
  return { xs, ys, colours, n };
}

describe('where a radial gradient is centred', () => {
  it('finds the centre of a circular glow', () => {
    const { xs, ys, colours, n } = grid(30, (x, y) => 250 - 0.2 * ((x - 12) ** 2 + (y - 17) ** 2));
    const centre = quadraticCentre(xs, ys, colours, n)!;
    assert.ok(Math.abs(centre.x - 12) < 0.01 && Math.abs(centre.y - 17) < 0.01, JSON.stringify(centre));
  });

  it('finds an elliptical glow’s centre, the direction of its first axis and the ratio of its axes', () => {
    // twice as wide along x as along y: the colour falls 4× as fast along y
    const { xs, ys, colours, n } = grid(40, (x, y) => 250 - 0.05 * ((x - 20) ** 2 + 4 * (y - 18) ** 2));
    const ring = quadraticEllipse(xs, ys, colours, n)!;
    assert.ok(Math.abs(ring.cx - 20) < 0.01 && Math.abs(ring.cy - 18) < 0.01, JSON.stringify(ring));
    // the first axis along x with the second half as long, or along y with it twice as long
    const alongX = Math.abs(Math.sin(ring.angle)) < 0.01 && Math.abs(ring.ratio - 0.5) < 0.01;
    const alongY = Math.abs(Math.cos(ring.angle)) < 0.01 && Math.abs(ring.ratio - 2) < 0.01;
    assert.ok(alongX || alongY, JSON.stringify(ring));
  });

  it('finds none for a plane or a saddle', () => {
    const plane = grid(20, (x, y) => 3 * x + y);
    assert.equal(quadraticEllipse(plane.xs, plane.ys, plane.colours, plane.n), undefined);
    assert.equal(quadraticCentre(plane.xs, plane.ys, plane.colours, plane.n), undefined);
    const saddle = grid(20, (x, y) => 128 + 0.3 * ((x - 10) ** 2 - (y - 10) ** 2));
    assert.equal(quadraticEllipse(saddle.xs, saddle.ys, saddle.colours, saddle.n), undefined);
  });

  it('measures each point’s radius along the first axis of the ring', () => {
    const t = new Float32Array(3);
    // the second axis half as long as the first: an offset along it counts double
    ringPositions({ cx: 10, cy: 10, ratio: 0.5, angle: 0 }, Float32Array.from([14, 10, 13]), Float32Array.from([10, 12, 12]), 3, t);
    assert.deepEqual([...t], [4, 4, 5]);
  });
});
