import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluator, type Paint } from '../../../src/engines/trace/gradient-paint.ts';

const at = (paint: Paint | string, x: number, y: number) => {
  const out = [0, 0, 0];
  evaluator(paint)(x, y, out);
  return out.map((v) => Math.round(v * 1000) / 1000);
};

describe('the colour of a fill at a point', () => {
  it('is the colour itself for a flat #rrggbb fill, anywhere', () => {
    assert.deepEqual(at('#0a80ff', 0, 0), [10, 128, 255]);
    assert.deepEqual(at('#0a80ff', 1e6, -3), [10, 128, 255]);
  });

  it('runs along a linear gradient between its stops, padded with the end colours beyond them', () => {
    const paint: Paint = {
      kind: 'linear',
      x1: 10,
      y1: 0,
      x2: 30,
      y2: 0,
      stops: [
        { offset: 0, colour: [0, 0, 0] },
        { offset: 0.5, colour: [200, 100, 0] },
        { offset: 1, colour: [200, 100, 200] },
      ],
    };
    assert.deepEqual(at(paint, 15, 7), [100, 50, 0]); // halfway to the middle stop, whatever y
    assert.deepEqual(at(paint, 25, -4), [200, 100, 100]);
    assert.deepEqual(at(paint, 0, 0), [0, 0, 0]);
    assert.deepEqual(at(paint, 99, 0), [200, 100, 200]);
  });

  it('depends on the elliptical radius around a radial gradient’s centre, along its rotated axes', () => {
    const stops = [
      { offset: 0, colour: [255, 255, 255] as [number, number, number] },
      { offset: 1, colour: [0, 0, 0] as [number, number, number] },
    ];
    const circle: Paint = { kind: 'radial', cx: 50, cy: 50, r: 20, ratio: 1, angle: 0, stops };
    assert.deepEqual(at(circle, 50, 50), [255, 255, 255]);
    assert.deepEqual(at(circle, 60, 50), at(circle, 50, 40)); // same radius, same colour
    assert.deepEqual(at(circle, 80, 50), [0, 0, 0]);
    // an ellipse twice as long along its first axis, turned a quarter: long along y
    const ellipse: Paint = { kind: 'radial', cx: 50, cy: 50, r: 20, ratio: 0.5, angle: Math.PI / 2, stops };
    assert.deepEqual(at(ellipse, 50, 60), [127.5, 127.5, 127.5]);
    assert.deepEqual(at(ellipse, 55, 50), [127.5, 127.5, 127.5]);
  });
});
