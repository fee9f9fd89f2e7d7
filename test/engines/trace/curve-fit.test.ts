import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitLoop } from '../../../src/engines/trace/curve-fit.ts';

/** Points every `step` along the closed polygon through `corners`. */
function polygon(corners: [number, number][], step: number): Float64Array {
  const points: number[] = [];
  corners.forEach(([x0, y0], c) => {
    const [x1, y1] = corners[(c + 1) % corners.length]!;
    const n = Math.round(Math.hypot(x1 - x0, y1 - y0) / step);
    for (let k = 0; k < n; k++) points.push(x0 + ((x1 - x0) * k) / n, y0 + ((y1 - y0) * k) / n);
  });
  return Float64Array.from(points);
}

/** Points on a circle, about `step` apart. */
function circle(cx: number, cy: number, r: number, step: number): Float64Array {
  const n = Math.round((2 * Math.PI * r) / step);
  return Float64Array.from({ length: 2 * n }, (_, i) => (i % 2 === 0 ? cx + r * Math.cos((2 * Math.PI * (i >> 1)) / n) : cy + r * Math.sin((2 * Math.PI * (i >> 1)) / n)));
}

/** The end points of the path's commands, as numbers. */
const ends = (d: string) => [...d.matchAll(/[MLC]([^MLCZ]*)/g)].map((m) => m[1]!.trim().split(' ').map(Number).slice(-2) as [number, number]);

describe('an outline fitted with curves', () => {
  it('keeps a polygon’s corners sharp and its sides straight', () => {
    const d = fitLoop(polygon([[2, 2], [30, 4], [12, 25]], 0.5), 1);
    assert.match(d, /^M[^MCZ]*Z$/); // lines only
    assert.equal(ends(d).length, 4); // a move and three sides
    for (const corner of [[2, 2], [30, 4], [12, 25]]) assert.ok(ends(d).some(([x, y]) => Math.hypot(x - corner[0]!, y - corner[1]!) < 0.05), `${corner} in ${d}`);
  });

  it('draws a round outline in a few cubics through its points, scaled', () => {
    const d = fitLoop(circle(20, 20, 15, 0.5), 2);
    assert.match(d, /^M.*C.*Z$/);
    assert.ok((d.match(/[LC]/g) ?? []).length <= 8, d);
    for (const [x, y] of ends(d)) assert.ok(Math.abs(Math.hypot(x / 2 - 20, y / 2 - 20) - 15) < 0.4, `${x},${y}`);
  });
});
