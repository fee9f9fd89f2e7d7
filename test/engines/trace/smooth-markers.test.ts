import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Paint } from '../../../src/engines/trace/gradient-paint.ts';
import { chooseMarkers } from '../../../src/engines/trace/smooth-markers.ts';

const paint = (grey: number): Paint => ({ kind: 'linear', x1: 0, y1: 0, x2: 1, y2: 0, stops: [{ offset: 0, colour: [grey, grey, grey] }, { offset: 1, colour: [grey, grey, grey] }] });
const distance = (a: number[], b: number[]) => Math.max(...a.map((v, c) => Math.abs(v - b[c]!)));

/** 30 pixels: 10 of detail in each of `colours`' colours (no piece), then 10 of each gradient piece, then 10 of a flat piece. */
function scene(colours: [number, number, number][]) {
  const n = colours.length * 10 + 30;
  const marked = Buffer.alloc(n * 4, 255);
  const assigned = new Int8Array(n).fill(-1);
  colours.forEach((colour, c) => {
    for (let q = c * 10; q < c * 10 + 10; q++) marked.set(colour, q * 4);
  });
  const base = colours.length * 10;
  for (let q = base; q < base + 10; q++) assigned[q] = 0;
  for (let q = base + 10; q < base + 20; q++) assigned[q] = 1;
  return { marked, assigned, base };
}

describe('marker colours', () => {
  it('paint each gradient piece a colour of its own, far from the image’s other colours and from each other', () => {
    const detail: [number, number, number][] = [[0, 0, 0], [255, 255, 255], [250, 10, 10]];
    const { marked, assigned, base } = scene(detail);
    const { regions } = chooseMarkers(marked, assigned, [paint(10), paint(20), '#808080']);
    assert.equal(regions.length, 2); // the flat piece gets none
    const [a, b] = regions.map((region) => region.marker);
    for (const marker of [a!, b!]) for (const colour of detail) assert.ok(distance(marker, colour) >= 72, `${marker} near ${colour}`);
    assert.ok(distance(a!, b!) >= 72);
    assert.deepEqual([...marked.subarray(base * 4, base * 4 + 3)], a);
    assert.deepEqual([...marked.subarray((base + 10) * 4, (base + 10) * 4 + 3)], b);
  });

  it('tell which piece a traced colour stands for, a little off its marker included, and none for the image’s own colours', () => {
    const { marked, assigned } = scene([[0, 0, 0], [200, 200, 200]]);
    const { regions, regionFor } = chooseMarkers(marked, assigned, [paint(10), paint(20)]);
    const [m0, m1] = regions.map((region) => region.marker) as [number, number, number][];
    assert.equal(regionFor(...m0!), regions[0]);
    assert.equal(regionFor(...m1!), regions[1]);
    const nudged = m0!.map((v) => (v > 128 ? v - 20 : v + 20)) as [number, number, number];
    assert.equal(regionFor(...nudged), regions[0]);
    assert.equal(regionFor(0, 0, 0), undefined);
    assert.equal(regionFor(200, 200, 200), undefined);
  });
});
