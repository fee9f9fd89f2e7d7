import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mainAxis } from '../../../src/engines/trace/colour-axis.ts';

describe('the main axis of a set of colours', () => {
  it('is the unit direction the colours spread along, whatever their mean', () => {
    // colours along (2, 1, -2)/3 around (100, 120, 140), with a little spread across it
    const n = 50;
    const colours = new Float32Array(n * 3);
    for (let i = 0; i < n; i++) {
      const s = i - n / 2;
      const across = i % 2 === 0 ? 1 : -1;
      colours.set([100 + (2 * s) / 3 + across, 120 + s / 3, 140 - (2 * s) / 3 + across], i * 3);
    }
    const axis = mainAxis(colours, n);
    assert.ok(Math.abs(Math.hypot(...axis) - 1) < 1e-9);
    const along = Math.abs(axis[0]! * 2 + axis[1]! - axis[2]! * 2) / 3;
    assert.ok(along > 0.99, `${axis}`);
  });
});
