import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { cropRgba, decodeRgba, resizeRgba, subjectBox, UndecodableImageError, withMargin } from '../../../src/engines/trace/raster.ts';
import { rgbaImage } from './images.ts';

describe('decoding', () => {
  it('gives straight RGBA pixels of an image without alpha', async () => {
    const png = await sharp({ create: { width: 3, height: 2, channels: 3, background: { r: 10, g: 20, b: 30 } } }).png().toBuffer();
    const decoded = await decodeRgba(png);
    assert.deepEqual([decoded.width, decoded.height, decoded.pixels.length], [3, 2, 24]);
    assert.deepEqual([...decoded.pixels.subarray(0, 4)], [10, 20, 30, 255]);
  });

  it('refuses bytes that are no image with UndecodableImageError', async () => {
    await assert.rejects(decodeRgba(Buffer.from('not an image at all')), UndecodableImageError);
  });

  it('resizes to the size asked, and returns the image itself at its own size', async () => {
    const source = rgbaImage(8, 4, () => [200, 100, 50]);
    assert.equal(await resizeRgba(source, 8, 4), source);
    const half = await resizeRgba(source, 4, 2);
    assert.deepEqual([half.width, half.height], [4, 2]);
    assert.deepEqual([...half.pixels.subarray(0, 4)], [200, 100, 50, 255]);
  });
});

describe('cropping to the subject', () => {
  it('finds the subject on transparency and on a uniform background within 24 levels', () => {
    assert.deepEqual(subjectBox(rgbaImage(20, 10, (x, y) => (x >= 4 && x < 9 && y >= 2 && y < 5 ? [0, 0, 0, 255] : [0, 0, 0, 0]))), { left: 4, top: 2, width: 5, height: 3 });
    const onWhite = rgbaImage(20, 10, (x, y) => (x === 15 && y === 7 ? [200, 200, 200] : [255, 250 - (x % 2) * 10, 255]));
    assert.deepEqual(subjectBox(onWhite), { left: 15, top: 7, width: 1, height: 1 });
    assert.equal(subjectBox(rgbaImage(5, 5, () => [9, 9, 9])), undefined);
  });

  it('grows the box by a share of its longer side, clipped to the image, and copies it out', () => {
    const box = withMargin({ left: 4, top: 2, width: 10, height: 5 }, 0.2, { width: 16, height: 20 });
    assert.deepEqual(box, { left: 2, top: 0, width: 14, height: 9 });
    const source = rgbaImage(16, 20, (x, y) => [x, y, 0]);
    const crop = cropRgba(source, box);
    assert.deepEqual([crop.width, crop.height], [14, 9]);
    assert.deepEqual([...crop.pixels.subarray(0, 4)], [2, 0, 0, 255]);
    assert.equal(cropRgba(source, { left: 0, top: 0, width: 16, height: 20 }), source);
  });
});
