import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { startFakeImagesApi, type FakeImagesApi, type ImagesReply } from '../fakes/images-api.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { partials, picture } from '../helpers/pictures.ts';
import { assertError } from '../helpers/schemas.ts';
import { readStream } from '../helpers/sse.ts';
import { parseSvg } from '../../src/svg/parse.ts';

// The image-trace engine through the whole service, against a scripted Images API answering
// real pictures: what is asked of the image model, what the client gets (SVGs fitted to its
// viewBox, transparent where the picture's background was plain), streams with drafts, failures
// in the API's terms, and the balance to the millicent each time.

const GEN = '/v1/svgs/generations';
/** Pictures of the tracer's benchmark set, flattened on white (test/fixtures/pictures/PROVENANCE.md). */
const PICTURES = join(import.meta.dirname, '..', 'fixtures', 'pictures');
const CREDITS = 5;
const MILLICENTS_PER_CREDIT = 1000;
/** Millicents per million tokens: 1 millicent an input token, 2 an output token. */
const RATES = { input: 1_000_000, cached_input: 1_000_000, cache_write: 1_000_000, output: 2_000_000 };

const entry = (id: string, options: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  engine: 'image-trace',
  operations: ['svg_generate'],
  billing: { kind: 'fixed_credit', credits: { svg_generate: CREDITS } },
  max_references: 0,
  input_modalities: ['text'],
  ...extra,
  options: { model: 'gpt-image-1', timeout_ms: 4000, ...options },
});

describe('image-trace: text → picture → SVG', () => {
  let api: FakeImagesApi;
  let other: FakeImagesApi;
  let h: Harness;
  let white: Buffer;
  let clear: Buffer;
  let wide: Buffer;
  const ok = (): ImagesReply => ({ kind: 'pictures', pictures: (n) => Array<Buffer>(n).fill(white) });

  before(async () => {
    [white, clear, wide] = await Promise.all([picture(256, 256), picture(256, 256, { background: null }), picture(384, 256)]);
    [api, other] = await Promise.all([startFakeImagesApi(ok), startFakeImagesApi(ok)]);
    const sizes = ['256x256', '384x256', '256x384'];
    h = await startHarness({
      config: {
        billing: { millicents_per_credit: MILLICENTS_PER_CREDIT },
        catalog: {
          models: [
            entry('draw', { base_url: api.url, sizes, quality: 'low', output_format: 'png' }),
            entry('draw-batched', { base_url: api.url, sizes, images_per_call: 4 }),
            entry('draw-clear', { base_url: api.url, sizes, background: 'transparent' }),
            entry('draw-keep', { base_url: api.url, sizes, background: 'keep', style_prompt: '' }),
            entry('draw-partials', { base_url: api.url, sizes, partial_images: 2 }),
            entry('draw-refs', { base_url: api.url, sizes, vision: true }, { max_references: 2, input_modalities: ['text', 'image'] }),
            entry('draw-metered', { base_url: api.url, sizes, output_tokens_per_image: 2000, prompt_overhead_tokens: 10 }, { billing: { kind: 'token_usage', rates: RATES } }),
            entry('draw-pooled', { sizes, upstreams: [{ name: 'down', base_url: 'http://127.0.0.1:9/v1' }, { name: 'up', base_url: other.url }] }),
            entry('draw-primary', { base_url: api.url, sizes, max_attempts: 1 }, { fallbacks: ['draw-backup'] }),
            entry('draw-backup', { base_url: other.url, sizes }),
          ],
        },
      },
    });
  });
  after(async () => {
    await h.close();
    await Promise.all([api.close(), other.close()]);
  });
  beforeEach(() => {
    for (const server of [api, other]) {
      server.reply = ok;
      server.requests.length = 0;
    }
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
  const generate = (body: Record<string, unknown>, key = h.keys.live) => h.request('POST', GEN, { key, body: { prompt: 'a sun over a hill', ...body } });
  const stream = (body: Record<string, unknown>) =>
    readStream(h.url + GEN, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a sun over a hill', stream: true, ...body }),
    });
  /** The SVG rendered at its own size: RGBA of the pixel at (x, y). */
  const pixelAt = (svg: string, x: number, y: number) => {
    const image = new Resvg(svg).render();
    const i = (y * image.width + x) * 4;
    return [...image.pixels.subarray(i, i + 4)];
  };

  it('asks the Images API for a picture with the prompt, the instructions and the style wording, and delivers its trace', async () => {
    const start = await balance();
    const res = await generate({ model: 'draw', instructions: 'bold colours' });
    assert.equal(res.status, 200, res.text);
    assert.equal(api.requests.length, 1);
    const call = api.requests[0]!;
    assert.equal(call.path, '/v1/images/generations');
    assert.equal(call.fields.model, 'gpt-image-1');
    assert.match(String(call.fields.prompt), /^a sun over a hill\n\nbold colours\n\nFlat vector illustration/);
    assert.deepEqual([call.fields.n, call.fields.size, call.fields.quality, call.fields.output_format], [1, '256x256', 'low', 'png']);
    assert.equal(call.fields.background, undefined, 'background: remove asks for nothing');
    const svg: string = res.json.data[0].svg;
    assert.match(svg, /^<svg [^>]*viewBox="0 0 256 256"/);
    assert.ok((svg.match(/<path /g) ?? []).length >= 3, 'the sun, the hill and the door are shapes');
    assert.equal(res.json.credits, CREDITS);
    assert.equal(start - (await balance()), CREDITS * MILLICENTS_PER_CREDIT);
  });

  for (const name of ['noto-fox', 'rubber-duck', 'flat-color-icons-idea']) {
    it(`delivers an SVG that looks like the picture (${name}, from the tracer's benchmark set), its plain background gone`, async () => {
      const png = readFileSync(join(PICTURES, `${name}.png`));
      const { width, height } = await sharp(png).metadata();
      api.reply = () => ({ kind: 'pictures', pictures: [png] });
      const res = await generate({ model: 'draw', attributes: { viewBox: { minX: 0, minY: 0, width, height } } });
      assert.equal(res.status, 200, res.text);
      const svg: string = res.json.data[0].svg;
      assert.equal(pixelAt(svg, 1, 1)[3], 0, 'the corner is transparent');
      // On white, the SVG and the picture differ by a level or two on average (anti-aliased edges, flattened shading).
      const picture = await sharp(png).ensureAlpha().raw().toBuffer();
      const rendered = new Resvg(svg, { background: '#ffffff' }).render().pixels;
      let difference = 0;
      for (let i = 0; i < picture.length; i += 4) for (let c = 0; c < 3; c++) difference += Math.abs(picture[i + c]! - rendered[i + c]!);
      const mean = difference / ((picture.length / 4) * 3);
      assert.ok(mean < 4, `mean difference ${mean.toFixed(2)} levels of 255`);
    });
  }

  it('removes a plain background connected to the border, so an icon is not a square; background: keep traces it', async () => {
    const removed = (await generate({ model: 'draw' })).json.data[0].svg;
    assert.equal(pixelAt(removed, 2, 2)[3], 0, 'the corner is transparent');
    assert.equal(pixelAt(removed, 128, 128)[3], 255, 'the subject is opaque');
    const kept = await generate({ model: 'draw-keep' });
    assert.equal(api.requests.at(-1)!.fields.prompt, 'a sun over a hill', 'an empty style_prompt adds nothing');
    const corner = pixelAt(kept.json.data[0].svg, 2, 2);
    assert.ok(corner.every((value) => value >= 250), `kept: the white corner is drawn (${corner})`);
  });

  it('asks for a transparent background where the entry says the API offers it, and traces the picture it gets', async () => {
    api.reply = () => ({ kind: 'pictures', pictures: [clear] });
    const res = await generate({ model: 'draw-clear' });
    assert.equal(res.status, 200, res.text);
    assert.equal(api.requests[0]!.fields.background, 'transparent');
    assert.equal(pixelAt(res.json.data[0].svg, 2, 2)[3], 0);
  });

  it('maps n to the API\'s n where the entry says the server takes it, and to calls in parallel otherwise', async () => {
    const batched = await generate({ model: 'draw-batched', n: 3 });
    assert.equal(batched.status, 200, batched.text);
    assert.deepEqual(api.requests.map((r) => r.fields.n), [3]);
    assert.equal(batched.json.data.length, 3);
    api.requests.length = 0;
    const parallel = await generate({ model: 'draw', n: 3 });
    assert.equal(parallel.json.data.length, 3);
    assert.deepEqual(api.requests.map((r) => r.fields.n), [1, 1, 1]);
  });

  it('picks the listed size nearest the viewBox\'s shape and fits the whole picture into the viewBox', async () => {
    api.reply = () => ({ kind: 'pictures', pictures: [wide] });
    const viewBox = { minX: 0, minY: 0, width: 160, height: 90 };
    const res = await generate({ model: 'draw', attributes: { viewBox } });
    assert.equal(res.status, 200, res.text);
    assert.equal(api.requests[0]!.fields.size, '384x256', '16:9 is nearest 3:2');
    const svg: string = res.json.data[0].svg;
    assert.match(svg, /viewBox="0 0 160 90"/);
    // 384×256 into 160×90: scaled by 90/256, centred with 12.5 units either side.
    assert.match(svg, /<g transform="translate\(12\.5 0\) scale\(0\.351563\)">/);
    const tall = await generate({ model: 'draw', attributes: { viewBox: { minX: 0, minY: 0, width: 10, height: 16 } } });
    assert.equal(api.requests[1]!.fields.size, '256x384');
    assert.equal(tall.status, 200);
  });

  it('fetches a picture given as a URL from the model server\'s own host, and refuses one elsewhere as the model\'s failure', async () => {
    api.reply = () => ({ kind: 'pictures', pictures: [white], as: 'url' });
    const fetched = api.fileFetches;
    const res = await generate({ model: 'draw' });
    assert.equal(res.status, 200, res.text);
    assert.equal(api.fileFetches, fetched + 1);
    const start = await balance();
    api.reply = () => ({ kind: 'pictures', pictures: [white], as: 'url', urlBase: other.url });
    const elsewhere = await generate({ model: 'draw' });
    assertError(elsewhere, { status: 502, code: 'model_error' });
    assert.match(elsewhere.json.message, /not on the model server's own host/);
    assert.equal(other.fileFetches, 0, 'nothing was fetched from the other host');
    assert.equal(await balance(), start, 'nothing charged');
  });

  it('sends references to /images/edits as files for a model that takes pictures; a model that does not refuses them', async () => {
    const reference = { base64: (await picture(64, 64)).toString('base64') };
    const res = await generate({ model: 'draw-refs', references: [reference, reference] });
    assert.equal(res.status, 200, res.text);
    const call = api.requests[0]!;
    assert.equal(call.path, '/v1/images/edits');
    assert.equal(call.fields.model, 'gpt-image-1');
    assert.equal(call.fields.n, '1');
    assert.deepEqual(call.files.map((f) => [f.field, f.type]), [['image[]', 'image/png'], ['image[]', 'image/png']]);
    const refused = await generate({ model: 'draw', references: [reference] });
    assertError(refused, { status: 400, code: 'invalid_request', param: 'references' });
  });

  it('streams generating, low-detail drafts from partial pictures, then the content; every draft is a whole SVG', async () => {
    const final = await sharp(white).png().toBuffer();
    api.reply = async () => ({ kind: 'stream', partials: await partials(final, 2), picture: final, eventDelayMs: 150 });
    const s = await stream({ model: 'draw-partials' });
    assert.equal(s.status, 200);
    assert.equal(api.requests[0]!.fields.stream, true);
    assert.equal(api.requests[0]!.fields.partial_images, 2);
    const types = s.events.map((e) => e.event);
    assert.equal(types[0], 'generating');
    assert.equal(types.at(-2), 'content');
    const drafts = s.events.filter((e) => e.event === 'draft');
    assert.ok(drafts.length >= 1 && drafts.length <= 2, `one draft per partial picture at most (${types.join(',')})`);
    for (const draft of drafts) assert.equal(parseSvg(JSON.parse(draft.data).svg).name, 'svg');
    assert.ok(types.indexOf('content') > types.lastIndexOf('draft'), 'no draft after the content');
  });

  it('without partial pictures, a stream gets one quick low-detail draft of the final picture before its full trace', async () => {
    const s = await stream({ model: 'draw' });
    assert.deepEqual(s.events.map((e) => e.event).slice(0, 3), ['generating', 'draft', 'content']);
    assert.equal(api.requests[0]!.fields.stream, undefined, 'no stream asked of the API');
    const draft = JSON.parse(s.events[1]!.data).svg as string;
    const content = JSON.parse(s.events[2]!.data).svg as string;
    assert.equal(parseSvg(draft).name, 'svg');
    assert.ok(draft.length <= content.length, 'the draft is the lighter trace');
  });

  it('bills token-priced entries from the Images API\'s usage, split over the pictures of a call', async () => {
    api.reply = () => ({ kind: 'pictures', pictures: [white], usage: { input_tokens: 37, output_tokens: 1056 } });
    const start = await balance();
    const res = await generate({ model: 'draw-metered' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.usage, { input_tokens: 37, output_tokens: 1056, total_tokens: 1093 });
    assert.equal(start - (await balance()), 37 + 2 * 1056);
  });

  it('bills a server that reports no usage the bounds it was held for: the prompt\'s bytes and overhead, output_tokens_per_image', async () => {
    api.reply = () => ({ kind: 'pictures', pictures: [white], usage: null });
    const start = await balance();
    const res = await generate({ model: 'draw-metered', prompt: 'a sun' });
    assert.equal(res.status, 200, res.text);
    const input = 10 + Buffer.byteLength(String(api.requests[0]!.fields.prompt));
    assert.deepEqual(res.json.usage, { input_tokens: input, output_tokens: 2000, total_tokens: input + 2000 });
    assert.equal(start - (await balance()), input + 2 * 2000);
  });

  it('a partial batch pays for what it delivered: a picture that does not decode fails its output alone', async () => {
    api.reply = () => ({ kind: 'pictures', pictures: [white, Buffer.from('not a picture at all'), white] });
    const start = await balance();
    const res = await generate({ model: 'draw-batched', n: 3 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.length, 2);
    assert.equal(start - (await balance()), 2 * CREDITS * MILLICENTS_PER_CREDIT);
  });

  const failures: [string, () => ImagesReply, number, string, RegExp][] = [
    ['a 429', () => ({ kind: 'error', status: 429, headers: { 'retry-after': '7' } }), 503, 'model_unavailable', /busy/],
    ['a 500, twice', () => ({ kind: 'error', status: 500 }), 502, 'model_error', /HTTP 500/],
    ['the safety system', () => ({ kind: 'error', status: 400, body: { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', code: 'moderation_blocked' } } }), 403, 'content_policy_violation', /content policy/],
    ['an HTML page with a 200', () => ({ kind: 'raw', contentType: 'text/html', body: '<html><body>Bad gateway</body></html>' }), 502, 'model_error', /not an OpenAI-compatible/],
    ['a connection cut before any answer, twice', () => ({ kind: 'drop' }), 503, 'model_unavailable', /not reachable/],
    ['an answer without pictures', () => ({ kind: 'raw', contentType: 'application/json', body: '{"created":1,"data":[]}' }), 502, 'model_error', /not an OpenAI-compatible/],
  ];
  for (const [what, reply, status, code, message] of failures) {
    it(`answers ${what} as ${status} ${code}, charging nothing`, async () => {
      api.reply = reply;
      const start = await balance();
      const res = await generate({ model: 'draw' });
      assertError(res, { status, code });
      assert.match(res.json.message, message);
      if (what === 'a 429') assert.equal(res.headers.get('retry-after'), '7');
      assert.equal(await balance(), start);
    });
  }

  it('a server that stalls past timeout_ms is a 504, and its connection is closed', async () => {
    api.reply = () => ({ kind: 'hang' });
    const res = await generate({ model: 'draw' });
    assertError(res, { status: 504, code: 'request_timeout' });
    await sleep(50);
    assert.ok(api.requests.every((r) => r.aborted), 'the call was abandoned');
  });

  it('a client that leaves while the picture is drawn closes the call and is charged nothing', async () => {
    api.reply = () => ({ kind: 'pictures', pictures: [white], delayMs: 1500 });
    const start = await balance();
    const controller = new AbortController();
    const response = fetch(h.url + GEN, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'draw', prompt: 'a sun' }),
      signal: controller.signal,
    });
    for (let i = 0; i < 100 && api.requests.length === 0; i++) await sleep(10);
    controller.abort();
    await assert.rejects(response, { name: 'AbortError' });
    for (let i = 0; i < 100 && !api.requests[0]!.aborted; i++) await sleep(10);
    assert.equal(api.requests[0]!.aborted, true, 'the upstream call was closed');
    await sleep(200);
    assert.equal(await balance(), start);
  });

  it('a stream cut after a partial picture ends with an error event, and its draft is not charged', async () => {
    api.reply = async () => ({ kind: 'stream', partials: await partials(white, 2), picture: white, dropAfter: 1, eventDelayMs: 100 });
    const start = await balance();
    const s = await stream({ model: 'draw-partials' });
    assert.equal(s.status, 200);
    const last = s.events.filter((e) => e.data !== '[DONE]').at(-1)!;
    assert.equal(last.event, 'error', s.raw.slice(0, 300));
    assert.equal(JSON.parse(last.data).code, 'model_error');
    assert.equal(api.requests.length, 1, 'not retried: a draft of it may have gone out');
    assert.equal(await balance(), start);
  });

  it('routes over several servers and falls back to another entry, as the chat engine does', async () => {
    const pooled = await generate({ model: 'draw-pooled' });
    assert.equal(pooled.status, 200, pooled.text);
    assert.equal(other.requests.length, 1, 'the server that refuses connections was passed over');
    api.reply = () => ({ kind: 'error', status: 503 });
    const start = await balance();
    const fell = await generate({ model: 'draw-primary' });
    assert.equal(fell.status, 200, fell.text);
    assert.equal(fell.headers.get('x-inkwell-model'), 'draw-backup');
    assert.equal(start - (await balance()), CREDITS * MILLICENTS_PER_CREDIT);
  });

  it('a test key never calls the image model', async () => {
    const res = await generate({ model: 'draw' }, h.keys.test);
    assert.equal(res.status, 200, res.text);
    assert.equal(api.requests.length, 0);
  });
});
