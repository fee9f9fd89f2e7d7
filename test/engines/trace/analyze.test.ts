import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alphaProfile, bilevel, colourBucket, downsampleBlocks, flatShare, palette, pixelBlockSize, twoCommonest } from '../../../src/engines/trace/analyze.ts';
import { rgbaImage } from './images.ts';

describe('pixel art', () => {
  it('is found by its block size and brought back to its native pixels', () => {
    const native = rgbaImage(3, 2, (x, y) => [x * 80, y * 120, 7]);
    const scaled = rgbaImage(12, 8, (x, y) => [Math.floor(x / 4) * 80, Math.floor(y / 4) * 120, 7]);
    assert.equal(pixelBlockSize(scaled), 4);
    assert.deepEqual(downsampleBlocks(scaled, 4), native);
    assert.equal(pixelBlockSize(native), 1);
  });
});

describe('how an image uses alpha', () => {
  it('tells an opaque image, antialiased edges only, and soft areas (a shadow) apart', () => {
    assert.deepEqual(alphaProfile(rgbaImage(10, 10, () => [0, 0, 0])), { transparent: false, softShare: 0 });
    // a hard-edged square on transparency, with one column of half-covered pixels along its edge
    const edged = alphaProfile(rgbaImage(20, 20, (x) => [0, 0, 0, x < 8 ? 0 : x === 8 ? 128 : 255]));
    assert.deepEqual(edged, { transparent: true, softShare: 0 });
    // a wide soft shadow: half alpha over a large area
    const soft = alphaProfile(rgbaImage(20, 20, (x) => [0, 0, 0, x < 10 ? 255 : 100]));
    assert.equal(soft.transparent, true);
    assert.ok(soft.softShare > 0.3, `${soft.softShare}`);
  });
});

describe('the colours an image uses', () => {
  it('are counted in 4-bit buckets over the pixels at least half opaque', () => {
    const pixels: [number, number, number, number][] = [[255, 0, 0, 255], [250, 5, 5, 200], [0, 0, 255, 255], [0, 255, 0, 10]];
    const colours = palette(rgbaImage(4, 1, (x) => pixels[x]!));
    assert.equal(colours.opaque, 3);
    assert.equal(colours.clear, 1);
    assert.equal(colours.counts[colourBucket(Uint8Array.from([255, 0, 0]), 0)], 2);
    assert.deepEqual(twoCommonest(colours.counts), [0xf00, 0x00f]);
  });

  it('make line art bi-level: one ink on transparency, or one ink on one paper colour', () => {
    const onTransparent = rgbaImage(20, 20, (x) => (x < 10 ? [20, 30, 40, 255] : [0, 0, 0, 0]));
    assert.deepEqual(bilevel(onTransparent, palette(onTransparent)), { kind: 'on-transparent', ink: [20, 30, 40] });
    const onPaper = rgbaImage(20, 20, (x) => (x < 6 ? [10, 10, 10] : [250, 250, 240]));
    assert.deepEqual(bilevel(onPaper, palette(onPaper)), { kind: 'on-colour', ink: [10, 10, 10], paper: [250, 250, 240] });
    const threeColours = rgbaImage(30, 20, (x) => (x < 8 ? [10, 10, 10] : x < 14 ? [220, 20, 20] : [250, 250, 240]));
    assert.equal(bilevel(threeColours, palette(threeColours)), undefined);
  });

  it('are flat when neighbours repeat, as in flat art, and not in a photograph', () => {
    assert.equal(flatShare(rgbaImage(10, 10, () => [1, 2, 3])), 1);
    assert.ok(flatShare(rgbaImage(10, 10, (x, y) => [(x * 37 + y * 11) % 256, x, y])) < 0.1);
  });
});
