import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GradientStop } from '../../../src/engines/trace/gradient-paint.ts';
import { essentialStops, evaluate, fitStops, Profile } from '../../../src/engines/trace/gradient-stops.ts';

/** Cells at positions 0…n-1 along a gradient, each with the colour `colour(t)`. */
function cells(n: number, colour: (t: number) => [number, number, number]): { t: Float32Array; colours: Float32Array } {
  const t = Float32Array.from({ length: n }, (_, i) => i);
  const colours = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) colours.set(colour(i), i * 3);
  return { t, colours };
}

const stop = (offset: number, colour: [number, number, number]): GradientStop => ({ offset, colour });

describe('the colour profile along a gradient', () => {
  it('leaves no error within its bins when each bin holds one colour, and some when a bin mixes two', () => {
    const profile = new Profile();
    const even = cells(40, (t) => [t, 2 * t, 255 - t]);
    assert.equal(profile.fill(even.t, even.colours, 40), 0);
    // two cells per unit of position, of different colours: each bin's spread is error
    const t = Float32Array.from([0, 0.5, 1, 1.5]);
    const colours = Float32Array.from([0, 0, 0, 10, 10, 10, 0, 0, 0, 10, 10, 10]);
    assert.equal(profile.fill(t, colours, 4), 2 * 3 * 50);
  });

  it('is fitted with two stops when it is one ramp, and a stop more at each bend', () => {
    const profile = new Profile();
    const ramp = cells(100, (t) => [t, 100, 200 - t]);
    profile.fill(ramp.t, ramp.colours, 100);
    const straight = fitStops(profile.points(3));
    assert.equal(straight.t.length, 2);
    const out = [0, 0, 0];
    for (const t of [5, 50, 95]) {
      evaluate(straight, t, out);
      assert.ok(Math.abs(out[0]! - t) < 1 && Math.abs(out[1]! - 100) < 1 && Math.abs(out[2]! - (200 - t)) < 1, `${out} at ${t}`);
    }
    const bent = cells(100, (t) => (t < 50 ? [t * 4, 0, 0] : [200, (t - 50) * 4, 0]));
    profile.fill(bent.t, bent.colours, 100);
    const knee = fitStops(profile.points(3));
    assert.equal(knee.t.length, 3);
    assert.ok(Math.abs(knee.t[1]! - 50) < 3, `knee at ${knee.t[1]}`);
  });

  it('reads a fitted profile piecewise-linearly between stops and constant beyond its ends', () => {
    const stops = { t: [10, 20, 40], colour: [[0, 0, 0], [100, 50, 0], [100, 50, 200]] };
    const out = [0, 0, 0];
    evaluate(stops, 15, out);
    assert.deepEqual(out, [50, 25, 0]);
    evaluate(stops, 30, out);
    assert.deepEqual(out, [100, 50, 100]);
    evaluate(stops, -5, out);
    assert.deepEqual(out, [0, 0, 0]);
    evaluate(stops, 400, out);
    assert.deepEqual(out, [100, 50, 200]);
  });
});

describe('essential stops', () => {
  it('drops a stop on the straight line between its neighbours', () => {
    const stops = [stop(0, [0, 0, 0]), stop(0.5, [51, 101, 1]), stop(1, [100, 200, 0])];
    assert.deepEqual(essentialStops(stops), [stops[0], stops[2]]);
  });

  it('keeps a stop off the line, and drops end stops that only repeat the end colour', () => {
    const stops = [stop(0, [0, 0, 0]), stop(0.2, [1, 1, 1]), stop(0.5, [200, 0, 0]), stop(0.8, [0, 0, 0]), stop(1, [0, 1, 0])];
    assert.deepEqual(essentialStops(stops), [stops[1], stops[2], stops[3]]);
  });
});
