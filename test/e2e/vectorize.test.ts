import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { mediaFile, startMediaServer, type MediaServer } from '../helpers/media-server.ts';
import { assertError } from '../helpers/schemas.ts';
import { readStream } from '../helpers/sse.ts';
import { PNG_SIGNATURE, pngChunk } from '../helpers/png-bytes.ts';

const VEC = '/v1/svgs/vectorizations';

/** A red disc on transparency, `size` px square. */
async function discPng(size = 96): Promise<Buffer> {
  const r = size / 3;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><circle cx="${size / 2}" cy="${size / 2}" r="${r}" fill="#e00000"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/**
 * A valid 1-bit PNG of `width`×`height` black pixels: a few kilobytes that a naive decoder would
 * inflate to width×height×4 bytes of RGBA (a decompression bomb).
 */
function pngBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height); // filter byte 0 and zero bits per row
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(rows, { level: 9 })), pngChunk('IEND', Buffer.alloc(0))]);
}

const b64 = (bytes: Buffer) => bytes.toString('base64');

/** An SVG of a few hundred bytes whose nested <use> elements expand to fanOut^levels nodes. */
function useFanOut(levels: number, fanOut: number): string {
  let defs = '<rect id="u0" width="1" height="1"/>';
  for (let level = 1; level <= levels; level++) {
    defs += `<g id="u${level}">${`<use href="#u${level - 1}"/>`.repeat(fanOut)}</g>`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs>${defs}</defs><use href="#u${levels}"/></svg>`;
}

describe('vectorizations with the built-in tracer (live key)', () => {
  let h: Harness;
  let media: MediaServer;
  let disc: Buffer;

  before(async () => {
    disc = await discPng();
    media = await startMediaServer({
      '/disc.png': mediaFile('image/png', disc),
      '/page.html': mediaFile('text/html', '<html></html>'),
      '/loop': { status: 302, headers: { location: '/loop' } },
      // Announces 20 MB and sends nothing: refused from the header alone.
      '/huge.png': { headers: { 'content-type': 'image/png', 'content-length': String(20_000_000) } },
      '/logo.svg': mediaFile('image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="4" height="4" fill="#00f"/></svg>'),
    });
    h = await startHarness({ config: { media: { allow_loopback_urls: true } } });
  });
  after(async () => {
    await h.close();
    await media.close();
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
  const vectorize = (body: Record<string, unknown>, key = h.keys.live) => h.request('POST', VEC, { key, body: { model: 'inkwell-trace', ...body } });

  it('traces a PNG into a compact SVG of the same size and debits one credit', async () => {
    const start = await balance();
    const res = await vectorize({ image: { base64: b64(disc) } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.credits, 1);
    const svg: string = res.json.data[0].svg;
    assert.match(svg, /^<svg [^>]*width="96" height="96"/);
    assert.match(svg, /<path [^>]*d="m/i);
    assert.match(svg, /#e00000|#e00|#df0000|#e10000/i, 'the disc keeps its colour');
    assert.equal(start - (await balance()), h.config.billing.millicents_per_credit);
  });

  it('streams generating, then content with credits, then [DONE]', async () => {
    const stream = await readStream(`${h.url}${VEC}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'inkwell-trace', image: { base64: b64(disc) }, stream: true }),
    });
    assert.equal(stream.status, 200);
    const types = stream.events.map((e) => (e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data).type));
    assert.deepEqual(types, ['generating', 'content', '[DONE]']);
    assert.equal(JSON.parse(stream.events[1]!.data).credits, 1);
  });

  it('target_size scales the longer side, keeping the aspect ratio', async () => {
    const wide = await sharp({ create: { width: 200, height: 100, channels: 4, background: '#204080' } }).png().toBuffer();
    const res = await vectorize({ image: { base64: b64(wide) }, target_size: 512 });
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data[0].svg, /width="512" height="256"/);
  });

  it('auto_crop trims the transparent background down to the subject and a small margin', async () => {
    const square = await sharp({ create: { width: 40, height: 40, channels: 4, background: '#008800' } }).png().toBuffer();
    const canvas = await sharp({ create: { width: 400, height: 400, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: square, left: 250, top: 100 }])
      .png()
      .toBuffer();
    const res = await vectorize({ image: { base64: b64(canvas) }, auto_crop: true });
    assert.equal(res.status, 200, res.text);
    const [, width, height] = /width="(\d+)" height="(\d+)"/.exec(res.json.data[0].svg)!;
    assert.ok(Number(width) >= 40 && Number(width) <= 48, `width ${width}`);
    assert.ok(Number(height) >= 40 && Number(height) <= 48, `height ${height}`);
  });

  it('refuses undecodable data as a plain 400 even when streaming, before any event', async () => {
    const start = await balance();
    const res = await fetch(`${h.url}${VEC}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'inkwell-trace', image: { base64: b64(disc.subarray(0, disc.length - 40)) }, stream: true }),
    });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = (await res.json()) as { code: string; param: string };
    assert.equal(body.code, 'invalid_request');
    assert.equal(body.param, 'image.base64');
    assert.equal(await balance(), start);
  });

  it('traces a 1x4096 strip (its short side stays one pixel when scaled down)', async () => {
    const strip = await sharp({ create: { width: 1, height: 4096, channels: 4, background: '#336699' } }).png().toBuffer();
    for (const effort of ['low', 'medium']) {
      const res = await vectorize({ image: { base64: b64(strip) }, reasoning_effort: effort });
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.data[0].svg, /width="1" height="4096"/);
    }
  });

  it('auto_crop renders an SVG with a very thin viewBox at one pixel at least', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100000 1"><rect x="50000" width="10" height="1" fill="#f00"/></svg>';
    const res = await vectorize({ image: { base64: b64(Buffer.from(svg)) }, auto_crop: true });
    assert.equal(res.status, 200, res.text);
    assert.doesNotMatch(res.json.data[0].svg, /Infinity|NaN|viewBox="[^"]* 0"/);
  });

  it('honors attributes.viewBox', async () => {
    const res = await vectorize({ image: { base64: b64(disc) }, attributes: { viewBox: { minX: 0, minY: 0, width: 48, height: 48 } } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data[0].svg, /viewBox="0 0 48 48"/);
  });

  it('uses the first frame of an animated GIF', async () => {
    const frame = (colour: string) => sharp({ create: { width: 32, height: 32, channels: 4, background: colour } }).png().toBuffer();
    const gif = await sharp([await frame('#0000ff'), await frame('#ff0000')], { join: { animated: true } }).gif().toBuffer();
    assert.equal((await sharp(gif).metadata()).pages, 2);
    const res = await vectorize({ image: { base64: b64(gif) } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data[0].svg, /#00f|#0000ff/i);
    assert.doesNotMatch(res.json.data[0].svg, /#f00\b|#ff0000/i);
  });

  it('cleans an SVG input instead of tracing it, and crops its viewBox to the subject', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100"><script>alert(1)</script><rect x="60" y="60" width="20" height="20" fill="#123456" onclick="x()"/></svg>';
    const res = await vectorize({ image: { base64: b64(Buffer.from(svg)) }, auto_crop: true, target_size: 200 });
    assert.equal(res.status, 200, res.text);
    const out: string = res.json.data[0].svg;
    assert.match(out, /<rect [^>]*fill="#123456"/, 'the vector content is kept as it was');
    assert.doesNotMatch(out, /script|onclick/);
    const viewBox = /viewBox="([^"]+)"/.exec(out)![1]!.split(' ').map(Number);
    assert.ok(viewBox[0]! > 55 && viewBox[0]! < 60 && viewBox[2]! > 20 && viewBox[2]! < 25, `viewBox ${viewBox}`);
    assert.match(out, /width="200" height="200"/);
  });

  it('fetches an image URL through the guard (loopback allowed by config) and an SVG by URL', async () => {
    const png = await vectorize({ image: { url: `${media.url}/disc.png` } });
    assert.equal(png.status, 200, png.text);
    const svg = await vectorize({ image: { url: `${media.url}/logo.svg` } });
    assert.equal(svg.status, 200, svg.text);
    assert.match(svg.json.data[0].svg, /<rect /);
  });

  const refusals: [string, () => Record<string, unknown>, number, string, string][] = [
    ['bytes that are no image', () => ({ image: { base64: b64(Buffer.from('just some text, not an image')) } }), 400, 'invalid_request', 'image.base64'],
    ['a data: URL whose bytes are no image', () => ({ image: { base64: `data:image/png;base64,${b64(Buffer.from('GIF? no'))}` } }), 400, 'invalid_request', 'image.base64'],
    ['a 20000x20000 PNG of a few kilobytes (a decompression bomb)', () => ({ image: { base64: b64(pngBomb(20_000, 20_000)) } }), 413, 'payload_too_large', 'image.base64'],
    ['a 5000x10 image (one side too long)', () => ({ image: { base64: b64(pngBomb(5000, 10)) } }), 413, 'payload_too_large', 'image.base64'],
    ['a truncated PNG', () => ({ image: { base64: b64(disc.subarray(0, disc.length - 40)) } }), 400, 'invalid_request', 'image.base64'],
    ['an SVG with a DOCTYPE', () => ({ image: { base64: b64(Buffer.from('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>')) } }), 400, 'invalid_request', 'image.base64'],
    ['an SVG whose size overflows (viewBox 0 0 1e308 1e-308)', () => ({ image: { base64: b64(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1e308 1e-308"/>')) } }), 400, 'invalid_request', 'image.base64'],
    ['an SVG 1e-300 px wide', () => ({ image: { base64: b64(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1e-300" height="10"/>')) } }), 400, 'invalid_request', 'image.base64'],
    ['an SVG whose <use> fan-out is too large to render for auto_crop', () => ({ image: { base64: b64(Buffer.from(useFanOut(6, 10))) }, auto_crop: true }), 400, 'invalid_request', 'image.base64'],
    ['a URL that answers HTML', () => ({ image: { url: `${media.url}/page.html` } }), 400, 'invalid_request', 'image.url'],
    ['a redirect loop', () => ({ image: { url: `${media.url}/loop` } }), 400, 'invalid_request', 'image.url'],
    ['a URL that answers 404', () => ({ image: { url: `${media.url}/missing.png` } }), 400, 'invalid_request', 'image.url'],
    ['a body larger than 12582912 bytes', () => ({ image: { url: `${media.url}/huge.png` } }), 413, 'payload_too_large', 'image.url'],
    ['the cloud metadata address', () => ({ image: { url: 'http://169.254.169.254/latest/meta-data/' } }), 400, 'invalid_request', 'image.url'],
    ['a private address', () => ({ image: { url: 'http://10.0.0.1/a.png' } }), 400, 'invalid_request', 'image.url'],
  ];
  for (const [name, body, status, code, param] of refusals) {
    it(`refuses ${name} with ${status} ${code} on '${param}' and charges nothing`, async () => {
      const start = await balance();
      const res = await vectorize(body());
      assertError(res, { status, code, param });
      assert.doesNotMatch(res.json.message, /127\.0\.0\.1|10\.0\.0\.1|169\.254|ECONN/);
      assert.equal(await balance(), start);
    });
  }

  it('a test key never fetches URL inputs: the sandbox answers without touching the network', async () => {
    const res = await vectorize({ image: { url: 'https://images.example/cat.png' } }, h.keys.test);
    assert.equal(res.status, 200, res.text);
  });

  it('a test key still gets base64 inputs checked', async () => {
    assertError(await vectorize({ image: { base64: b64(pngBomb(9000, 9000)) } }, h.keys.test), { status: 413, code: 'payload_too_large', param: 'image.base64' });
  });

  it('image inputs of the other operations are checked by the same module', async () => {
    const bad = b64(Buffer.from('not an image'));
    assertError(await h.request('POST', '/v1/svgs/generations', { key: h.keys.test, body: { model: 'local-svg', prompt: 'x', references: [{ base64: b64(disc) }, { base64: bad }] } }), {
      status: 400,
      code: 'invalid_request',
      param: 'references[1].base64',
    });
    assertError(await h.request('POST', '/v1/svgs/edits', { key: h.keys.test, body: { model: 'local-svg', prompt: 'x', svg: '<svg xmlns="http://www.w3.org/2000/svg"/>', reference_images: [{ base64: b64(pngBomb(5000, 5000)) }] } }), {
      status: 413,
      code: 'payload_too_large',
      param: 'reference_images[0].base64',
    });
  });
});

describe('vectorizations without the loopback exception', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('refuses a loopback URL as a blocked address', async () => {
    const res = await h.request('POST', VEC, { key: h.keys.live, body: { model: 'inkwell-trace', image: { url: 'http://127.0.0.1:9/a.png' } } });
    assertError(res, { status: 400, code: 'invalid_request', param: 'image.url' });
    assert.doesNotMatch(res.json.message, /127\.0\.0\.1/);
  });
});

describe('the tracer queue', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { trace: { workers: 1, queue: 1 } } });
  });
  after(() => h.close());

  it('answers 503 model_unavailable with Retry-After when the queue is full, and charges only the traced', async () => {
    const noise = await sharp(Buffer.from(Array.from({ length: 512 * 512 * 3 }, (_, i) => (i * 2654435761) >>> 24)), {
      raw: { width: 512, height: 512, channels: 3 },
    })
      .png()
      .toBuffer();
    const start = (await h.store.organizations.get(h.organizationId))!.balance_millicents;
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.request('POST', VEC, { key: h.keys.live, body: { model: 'inkwell-trace', image: { base64: b64(noise) }, reasoning_effort: 'low' } }),
      ),
    );
    const busy = results.filter((r) => r.status === 503);
    const ok = results.filter((r) => r.status === 200);
    assert.ok(busy.length >= 1, `statuses ${results.map((r) => r.status)}`);
    assert.equal(ok.length + busy.length, 5, `statuses ${results.map((r) => r.status)}`);
    for (const r of busy) {
      assertError(r, { status: 503, code: 'model_unavailable' });
      assert.ok(r.json.retry_after >= 1);
      assert.equal(r.headers.get('retry-after'), String(r.json.retry_after));
    }
    const spent = start - (await h.store.organizations.get(h.organizationId))!.balance_millicents;
    assert.equal(spent, ok.length * h.config.billing.millicents_per_credit);
  });
});

describe('the tracer deadline', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: { trace: { workers: 1, timeout_ms: 3000 } } });
  });
  after(() => h.close());

  it('answers 504 request_timeout for an SVG that renders for ever, charges nothing, and serves the next request', async () => {
    const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
    const start = await balance();
    const slow = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><filter id="f"><feTurbulence baseFrequency="0.05" numOctaves="1000000000"/></filter><rect width="100" height="100" filter="url(#f)"/></svg>';
    const res = await h.request('POST', VEC, { key: h.keys.live, body: { model: 'inkwell-trace', image: { base64: b64(Buffer.from(slow)) }, auto_crop: true } });
    assertError(res, { status: 504, code: 'request_timeout' });
    assert.equal(await balance(), start);
    const next = await h.request('POST', VEC, { key: h.keys.live, body: { model: 'inkwell-trace', image: { base64: b64(await discPng(32)) } } });
    assert.equal(next.status, 200, next.text);
  });
});
