import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { upsampleCubic } from '../../src/engines/trace/upsample.ts';

/** What the tracer computed with sharp before: the reference upsampleCubic must equal. */
function sharpCubic(channel: Buffer, width: number, height: number, factor: number): Promise<Buffer> {
  return sharp(channel, { raw: { width, height, channels: 1 } }).resize(width * factor, height * factor, { kernel: 'cubic' }).extractChannel(0).raw().toBuffer();
}

/** A soft-edged disc, like the ink coverage of an antialiased glyph. */
function disc(width: number, height: number): Buffer {
  const channel = Buffer.alloc(width * height);
  const radius = Math.min(width, height) / 3;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const distance = Math.hypot(x + 0.5 - width / 2, y + 0.5 - height / 2);
      channel[y * width + x] = Math.round(255 * Math.max(0, Math.min(1, radius - distance + 0.5)));
    }
  }
  return channel;
}

describe('cubic upsampling of a mask', () => {
  for (const factor of [2, 3]) {
    for (const [width, height] of [[37, 29], [1, 5], [64, 64], [301, 173]] as const) {
      it(`gives sharp's bytes at ${factor}× for ${width}×${height} noise and a soft disc`, async () => {
        for (const channel of [randomBytes(width * height), disc(width, height)]) {
          const ours = upsampleCubic(channel, width, height, factor);
          assert.equal(ours.length, width * height * factor * factor);
          assert.ok(ours.equals(await sharpCubic(channel, width, height, factor)));
        }
      });
    }
  }

  it('keeps the image at factor 1 and refuses a fractional factor', () => {
    const channel = randomBytes(12);
    assert.ok(upsampleCubic(channel, 4, 3, 1).equals(channel));
    assert.throws(() => upsampleCubic(channel, 4, 3, 1.5), RangeError);
  });
});
