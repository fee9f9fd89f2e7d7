// The pixel limits apply to the canvas an image declares, not only to what a decoder reports for
// its first frame. Every file here is built by hand, byte by byte.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/contract/errors.ts';
import { checkImageBytes } from '../../src/media/image.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { mediaFile, startMediaServer, type MediaServer } from '../helpers/media-server.ts';
import { assertError } from '../helpers/schemas.ts';
import { PNG_SIGNATURE, pngChunk } from '../helpers/png-bytes.ts';

/** A GIF with a `width`×`height` logical screen holding one 1×1 frame (two-colour palette). */
function gif(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen[4] = 0x80; // a global colour table of 2 entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  // Image descriptor at 0,0 of 1×1, LZW minimum code size 2, one sub-block (clear, 0, end), trailer.
  const frame = Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3b]);
  return Buffer.concat([Buffer.from('GIF89a', 'latin1'), screen, palette, frame]);
}

/** A 1×1 lossless VP8L bitstream (the payload of a `VP8L` chunk, as libwebp writes it). */
const VP8L_1X1 = Buffer.from('2f000000000710fd8ffe0722a2ff01', 'hex');

function riffChunk(fourcc: string, data: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(fourcc, 0, 'latin1');
  header.writeUInt32LE(data.length, 4);
  return Buffer.concat([header, data, Buffer.alloc(data.length % 2)]);
}

function riffWebp(chunks: Buffer[]): Buffer {
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), ...chunks]);
  const header = Buffer.alloc(8);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

/** An animated WebP: a VP8X canvas of `width`×`height` and one 1×1 frame at its corner. */
function webpVp8x(width: number, height: number): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x02 | 0x10; // animation, alpha
  vp8x.writeUIntLE(width - 1, 4, 3);
  vp8x.writeUIntLE(height - 1, 7, 3);
  const frame = Buffer.alloc(16); // x, y, width−1, height−1 (all 0), duration 100 ms, flags
  frame.writeUIntLE(100, 12, 3);
  return riffWebp([riffChunk('VP8X', vp8x), riffChunk('ANIM', Buffer.alloc(6)), riffChunk('ANMF', Buffer.concat([frame, riffChunk('VP8L', VP8L_1X1)]))]);
}

/** A PNG signature and IHDR declaring `width`×`height`, and nothing after: the header alone. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr)]);
}

/** SOI, a JFIF APP0 and a baseline SOF0 declaring `width`×`height`, then EOI: the header alone. */
function jpegHeader(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0, 16, ...Buffer.from('JFIF\0', 'latin1'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof0 = Buffer.alloc(19);
  sof0.set([0xff, 0xc0, 0, 17, 8]);
  sof0.writeUInt16BE(height, 5);
  sof0.writeUInt16BE(width, 7);
  sof0.set([3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1], 9);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0, Buffer.from([0xff, 0xd9])]);
}

const HUGE: [string, () => Buffer][] = [
  ['a GIF with a 65535×65535 logical screen and a 1×1 frame', () => gif(65535, 65535)],
  ['a GIF with a 4097×1 logical screen (one side too long)', () => gif(4097, 1)],
  ['an animated WebP with a 65535×65535 VP8X canvas and a 1×1 frame', () => webpVp8x(65535, 65535)],
  ['a PNG header whose IHDR declares 20000×20000', () => pngHeader(20_000, 20_000)],
  ['a JPEG header whose SOF0 declares 60000×60000', () => jpegHeader(60_000, 60_000)],
];

async function refusal(bytes: Buffer, param: string): Promise<ApiError> {
  const error = await checkImageBytes(bytes, param).then(
    () => assert.fail('the image was accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApiError, String(error));
  return error;
}

describe('declared image canvases', () => {
  for (const [name, make] of HUGE) {
    it(`refuses ${name} with 413 payload_too_large naming the field`, async () => {
      const error = await refusal(make(), 'image.base64');
      assert.deepEqual([error.status, error.code, error.param], [413, 'payload_too_large', 'image.base64']);
      assert.match(error.message, /^The image in 'image\.base64' is too large: /);
    });
  }

  it('accepts the same files when their canvas is within 4096×4096', async () => {
    const gifImage = await checkImageBytes(gif(4096, 4096), 'image.base64');
    assert.deepEqual([gifImage.format, 'width' in gifImage && gifImage.width], ['gif', 1], 'a GIF frame inside an allowed screen');
    const webpImage = await checkImageBytes(webpVp8x(2, 3), 'image.base64');
    assert.deepEqual([webpImage.format, 'width' in webpImage && webpImage.width, 'height' in webpImage && webpImage.height], ['webp', 2, 3]);
  });

  // image-size walks JPEG markers on the event loop, ~2 s over 12 MB of crafted segments; the
  // check reads a bounded prefix. The bound is generous: the regression is seconds, not ms.
  it('sizes a crafted 12 MB JPEG without holding the event loop', async () => {
    const crafted = Buffer.alloc(12_000_000);
    crafted.set([0xff, 0xd8]);
    for (let at = 2; at + 4 <= crafted.length; at += 4) crafted.set([0xff, 0xe1, 0, 2], at); // empty APP1 segments, no SOF
    const started = performance.now();
    const pending = checkImageBytes(crafted, 'image.base64');
    const blockedMs = performance.now() - started;
    const error = await pending.then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ApiError && error.status === 400, 'no SOF: damaged');
    assert.ok(blockedMs < 300, `held the event loop ${blockedMs.toFixed(0)} ms`);
  });

  it('refuses a header that cannot be read with 400 invalid_request (damaged), naming the field', async () => {
    const cases: [string, Buffer][] = [
      ['a GIF cut inside its logical screen descriptor', gif(1, 1).subarray(0, 8)],
      ['a PNG whose first chunk is not IHDR', Buffer.concat([PNG_SIGNATURE, pngChunk('tEXt', Buffer.from('a\0b'))])],
      ['a WebP whose first chunk is no VP8 bitstream', riffWebp([riffChunk('ABCD', Buffer.alloc(10))])],
      ['a PNG whose IHDR declares 0×0', pngHeader(0, 0)],
    ];
    for (const [name, bytes] of cases) {
      const error = await refusal(bytes, 'references[1].base64');
      assert.deepEqual([error.status, error.code, error.param], [400, 'invalid_request', 'references[1].base64'], name);
    }
  });
});

describe('declared image canvases, end to end', () => {
  let h: Harness;
  let media: MediaServer;
  before(async () => {
    media = await startMediaServer({ '/screen.gif': mediaFile('image/gif', gif(65535, 65535)) });
    h = await startHarness({ config: { media: { allow_loopback_urls: true } } });
  });
  after(async () => {
    await h.close();
    await media.close();
  });

  for (const [name, make] of HUGE) {
    it(`POST /v1/svgs/vectorizations: ${name} → 413 payload_too_large on image.base64`, async () => {
      const res = await h.request('POST', '/v1/svgs/vectorizations', {
        body: { model: 'inkwell-trace', image: { base64: make().toString('base64') } },
      });
      assertError(res, { status: 413, code: 'payload_too_large', param: 'image.base64' });
    });
  }

  it('a GIF screen too large by URL (live key) → 413 on image.url, and nothing charged', async () => {
    const before = (await h.store.organizations.get(h.organizationId))!;
    const res = await h.request('POST', '/v1/svgs/vectorizations', {
      key: h.keys.live,
      body: { model: 'inkwell-trace', image: { url: `${media.url}/screen.gif` } },
    });
    assertError(res, { status: 413, code: 'payload_too_large', param: 'image.url' });
    const after = (await h.store.organizations.get(h.organizationId))!;
    assert.deepEqual([after.balance_millicents, after.reserved_millicents], [before.balance_millicents, 0]);
  });

  it('the same check guards generation references', async () => {
    const res = await h.request('POST', '/v1/svgs/generations', {
      body: { model: 'local-svg', prompt: 'a fox', references: [{ base64: gif(65535, 65535).toString('base64') }] },
    });
    assertError(res, { status: 413, code: 'payload_too_large', param: 'references[0].base64' });
  });
});
