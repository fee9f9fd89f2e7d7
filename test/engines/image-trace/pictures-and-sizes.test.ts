import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { nearestSize } from '../../../src/engines/image-trace/options.ts';
import { clearPlainBackground } from '../../../src/engines/trace/background.ts';
import { decodeRgba } from '../../../src/engines/trace/raster.ts';
import type { RgbaImage } from '../../../src/engines/trace/pixels.ts';
import { picture } from '../../helpers/pictures.ts';

const alphaAt = (image: RgbaImage, x: number, y: number) => image.pixels[(y * image.width + x) * 4 + 3]!;
const rgbAt = (image: RgbaImage, x: number, y: number) => [...image.pixels.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 3)];

describe('clearing a plain background before tracing', () => {
  it('makes the border-connected background transparent and keeps the subject, edges unblended from the old colour', async () => {
    const image = await decodeRgba(await picture(256, 256, { background: '#f4f1de' }));
    assert.equal(clearPlainBackground(image), true);
    assert.equal(alphaAt(image, 0, 0), 0);
    assert.equal(alphaAt(image, 255, 128), 0);
    assert.equal(alphaAt(image, 128, 100), 255, 'the sun is opaque');
    assert.deepEqual(rgbAt(image, 128, 100), [0xff, 0xb7, 0x03]);
    // The sun's anti-aliased rim: partly transparent, its colour the sun's, not cream-tinted.
    let rim = 0;
    for (let x = 0; x < 128; x++) {
      const alpha = alphaAt(image, x, 97);
      if (alpha > 0 && alpha < 255) {
        rim++;
        const [r, g, b] = rgbAt(image, x, 97);
        assert.ok(r! > 230 && b! < 60, `rim pixel ${x} keeps the sun's colour: ${[r, g, b]}`);
      }
    }
    assert.ok(rim >= 1, 'the rim is partly transparent');
  });

  it('works on a JPEG\'s noisy white', async () => {
    const image = await decodeRgba(await picture(256, 256, { format: 'jpeg' }));
    assert.equal(clearPlainBackground(image), true);
    assert.equal(alphaAt(image, 3, 3), 0);
    assert.equal(alphaAt(image, 252, 252), 0);
  });

  it('keeps a hole of the background colour that does not touch the border', async () => {
    const ring = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#fff"/><circle cx="32" cy="32" r="24" fill="none" stroke="#000" stroke-width="8"/></svg>');
    const image = await decodeRgba(await sharp(ring).png().toBuffer());
    clearPlainBackground(image);
    assert.equal(alphaAt(image, 0, 0), 0);
    assert.equal(alphaAt(image, 32, 32), 255, 'the white inside the ring stays');
  });

  it('leaves pictures without a plain background as they are: transparent already, or a border of many colours', async () => {
    const transparent = await decodeRgba(await picture(128, 128, { background: null }));
    const before = Buffer.from(transparent.pixels);
    assert.equal(clearPlainBackground(transparent), false);
    assert.ok(before.equals(transparent.pixels));
    const noise = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
    const busy = await decodeRgba(noise);
    assert.equal(clearPlainBackground(busy), false);
    assert.equal(alphaAt(busy, 0, 0), 255);
  });
});

describe('the picture size a request asks for', () => {
  const sizes = ['1024x1024', '1536x1024', '1024x1536'];
  it('is the listed size nearest the viewBox\'s shape, and a square without one', () => {
    assert.equal(nearestSize(sizes, null).size, '1024x1024');
    assert.equal(nearestSize(sizes, { width: 1920, height: 1080 }).size, '1536x1024');
    assert.equal(nearestSize(sizes, { width: 9, height: 16 }).size, '1024x1536');
    assert.equal(nearestSize(sizes, { width: 11, height: 10 }).size, '1024x1024');
    assert.equal(nearestSize(['1792x1024', '1024x1024'], null).size, '1024x1024');
    assert.equal(nearestSize(['1536x1024'], { width: 1, height: 3 }).size, '1536x1024', 'the only size, whatever the shape');
  });
});
