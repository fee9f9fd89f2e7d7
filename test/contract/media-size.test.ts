import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  base64DecodedMaxBytes,
  IMAGE_BASE64_MAX_LENGTH,
  IMAGE_MAX_BYTES,
  IMAGE_MAX_PIXELS,
  IMAGE_MAX_SIDE,
  SVG_BASE64_MAX_LENGTH,
  SVG_MAX_BYTES,
} from '../../src/contract/media-size.ts';

describe('the media size caps', () => {
  it("derive the decoded byte caps from the base64 bounds and equal the spec's numbers", () => {
    // The spec: base64 image 1 to 16777216 characters, decoded at most 12582912 bytes,
    // 4096x4096 and 16777216 pixels; base64 SVG 1 to 1066668 characters.
    assert.equal(IMAGE_BASE64_MAX_LENGTH, 16_777_216);
    assert.equal(SVG_BASE64_MAX_LENGTH, 1_066_668);
    assert.equal(IMAGE_MAX_BYTES, 12_582_912);
    assert.equal(SVG_MAX_BYTES, 800_001);
    assert.equal(IMAGE_MAX_SIDE, 4096);
    assert.equal(IMAGE_MAX_PIXELS, 16_777_216);
  });

  it('count the bytes base64 decodes to, padding or not', () => {
    for (const bytes of [0, 1, 2, 3, 4, 5, 800_001]) {
      const padded = Buffer.alloc(bytes).toString('base64');
      assert.equal(base64DecodedMaxBytes(padded.replace(/=+$/, '').length), bytes);
      assert.ok(base64DecodedMaxBytes(padded.length) >= bytes);
    }
  });
});
