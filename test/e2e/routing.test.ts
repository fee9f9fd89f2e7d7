import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeUpstream, type FakeUpstream, type Reply } from '../fakes/upstream.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { assertError } from '../helpers/schemas.ts';
import { readStream } from '../helpers/sse.ts';

// Several servers behind one model, and fallbacks, through the whole service: a server killed
// under load costs no request, a failing one is taken out and comes back, a model whose servers
// all answer 429 is served by its fallback (billed at the fallback's price), and a key that may
// not use the fallback gets the 503. The balance is checked to the millicent each time.

const GEN = '/v1/svgs/generations';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#bde0fe"/><circle cx="50" cy="50" r="20" fill="#ffb703"/></svg>';
const OK: Reply = { kind: 'stream', content: SVG, firstTokenDelayMs: 30 };
const MILLICENTS_PER_CREDIT = 1000;
/** Millicents per million tokens. */
const RATES = { input: 1_000_000, cached_input: 100_000, cache_write: 1_250_000, output: 4_000_000 };

const entry = (id: string, credits: number, options: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  engine: 'openai-compatible',
  operations: ['svg_generate'],
  billing: { kind: 'fixed_credit', credits: { svg_generate: credits } },
  max_references: 0,
  input_modalities: ['text', 'svg'],
  max_output_length: 2048,
  options: { first_token_timeout_ms: 3000, total_timeout_ms: 8000, ...options },
  ...extra,
});

describe('several servers behind one model, and fallbacks', () => {
  let a: FakeUpstream;
  let b: FakeUpstream;
  let primary: FakeUpstream;
  let hosted: FakeUpstream;
  let h: Harness;

  before(async () => {
    [a, b, primary, hosted] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
    const health = { failure_threshold: 2, ejection_ms: 1500, max_ejection_ms: 4000 };
    h = await startHarness({
      config: {
        metrics: { port: 0 },
        billing: { millicents_per_credit: MILLICENTS_PER_CREDIT },
        catalog: {
          models: [
            entry('pooled', 3, {
              model: 'fake-model',
              health,
              upstreams: [
                { name: 'a', base_url: a.url, max_concurrency: 32 },
                { name: 'b', base_url: b.url, max_concurrency: 32 },
              ],
            }),
            entry('primary', 3, { model: 'fake-model', base_url: primary.url, health }, { fallbacks: ['hosted'] }),
            entry('hosted', 5, { model: 'hosted-model', base_url: hosted.url }),
            entry('primary-metered', 0, { model: 'fake-model', base_url: primary.url }, { operations: ['open_responses'], billing: { kind: 'token_usage', rates: RATES }, fallbacks: ['hosted-metered'] }),
            entry('hosted-metered', 0, { model: 'hosted-model', base_url: hosted.url }, { operations: ['open_responses'], billing: { kind: 'token_usage', rates: { ...RATES, output: 2 * RATES.output } } }),
          ],
        },
      },
    });
  });
  after(async () => {
    await h.close();
    await Promise.all([a, b, primary, hosted].map((upstream) => upstream.close().catch(() => undefined)));
  });
  beforeEach(() => {
    for (const upstream of [a, b, primary, hosted]) {
      upstream.reply = () => OK;
      upstream.requests.length = 0;
    }
  });

  const balance = async () => (await h.store.organizations.get(h.organizationId))!.balance_millicents;
  const generate = (model: string, key = h.keys.live) => h.request('POST', GEN, { key, body: { model, prompt: 'a sun' } });
  const metric = async (name: string, upstream: string) => {
    const text = await (await fetch(h.server.metricsUrl!)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`upstream="${upstream}"`) && l.includes('model="pooled"'));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  const ready = async () => (await h.request('GET', '/readyz', { key: null })).json;

  it('shares calls between the servers and names the model that served', async () => {
    const start = await balance();
    for (let i = 0; i < 6; i++) {
      const res = await generate('pooled');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('x-inkwell-model'), 'pooled');
    }
    assert.deepEqual([a.requests.length, b.requests.length], [3, 3]);
    assert.equal(start - (await balance()), 6 * 3 * MILLICENTS_PER_CREDIT);
  });

  it('a server that starts answering 500 is taken out after failure_threshold failures, costs no request, and takes calls again once it recovers', async () => {
    b.reply = () => ({ kind: 'error', status: 500 });
    const start = await balance();
    for (let i = 0; i < 8; i++) assert.equal((await generate('pooled')).status, 200, 'every request served (failed over to a)');
    assert.equal(b.requests.length, 2, 'two failures took b out; no more calls went to it');
    assert.equal(await metric('inkwell_upstream_up', 'b'), 0);
    assert.equal(await metric('inkwell_upstream_ejections_total', 'b'), 1);
    assert.deepEqual((await ready()).upstreams, { in_service: 8, trial: 0, out: 1 }, 'the three built-in entries and the five of this test in service but b');
    assert.equal((await h.request('GET', '/readyz', { key: null })).status, 200, 'still ready');

    b.reply = () => OK;
    await sleep(1600);
    for (let i = 0; i < 6; i++) assert.equal((await generate('pooled')).status, 200);
    assert.ok(b.requests.length >= 4, `b takes calls again (${b.requests.length - 2} since it came back)`);
    assert.equal(await metric('inkwell_upstream_up', 'b'), 1);
    assert.equal(start - (await balance()), 14 * 3 * MILLICENTS_PER_CREDIT, 'billed once per request');
  });

  it('a server killed during 200 concurrent requests fails none of them, and each is billed once', async () => {
    // Slow answers, so that many calls are on b when it dies.
    for (const upstream of [a, b]) upstream.reply = () => ({ ...OK, firstTokenDelayMs: 400 });
    const start = await balance();
    const requests = Array.from({ length: 200 }, () => generate('pooled'));
    for (let i = 0; i < 300 && b.active < 8; i++) await sleep(10);
    const inFlightOnB = b.active;
    await b.close();
    const responses = await Promise.all(requests);
    const failed = responses.filter((res) => res.status !== 200);
    assert.deepEqual(failed.map((res) => `${res.status} ${res.text.slice(0, 120)}`), []);
    assert.ok(inFlightOnB > 0, `b was answering when it was killed (a ${a.requests.length}, b ${b.requests.length})`);
    assert.equal(start - (await balance()), 200 * 3 * MILLICENTS_PER_CREDIT);
    assert.ok((await metric('inkwell_upstream_ejections_total', 'b'))! >= 2, 'b was taken out again (and again after each failed trial)');
    assert.notEqual(await metric('inkwell_upstream_up', 'b'), 1, 'b is out, or waiting for its trial call');
  });

  it('a model whose server answers 429 is served by its fallback, at the fallback\'s price, and named in X-Inkwell-Model', async () => {
    primary.reply = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
    const start = await balance();
    const res = await generate('primary');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-inkwell-model'), 'hosted');
    assert.equal(res.json.credits, 5);
    assert.equal(hosted.requests[0]!.body.model, 'hosted-model');
    assert.equal(start - (await balance()), 5 * MILLICENTS_PER_CREDIT, 'the fallback\'s price, once');

    // The 429 took primary out for its Retry-After: the next request goes to the fallback without calling it.
    const stream = await readStream(`${h.url}${GEN}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'primary', prompt: 'a sun', stream: true }),
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('x-inkwell-model'), 'hosted');
    assert.equal(JSON.parse(stream.events.at(-2)!.data).type, 'content');
    assert.equal(primary.requests.length, 1, 'primary was called once, then skipped while out');
    assert.equal(start - (await balance()), 10 * MILLICENTS_PER_CREDIT);
  });

  it('a Responses request is served by the fallback too, and billed by its usage at the fallback\'s rates', async () => {
    primary.reply = () => ({ kind: 'error', status: 503 });
    hosted.reply = () => ({ kind: 'stream', content: 'A sun.', usage: { prompt_tokens: 1000, completion_tokens: 500 } });
    const start = await balance();
    const res = await h.request('POST', '/v1/responses', { key: h.keys.live, body: { model: 'primary-metered', input: 'Describe a sun' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('x-inkwell-model'), 'hosted-metered');
    assert.equal(res.json.model, 'hosted-metered');
    // 1000 input tokens at 1 000 000 and 500 output at 8 000 000 millicents per million.
    assert.equal(start - (await balance()), 1000 + 4000);
  });

  it('a fallback the organization cannot afford is passed over: the answer is the 503, and nothing is charged', async () => {
    primary.reply = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
    // Enough for primary (3 credits), not for hosted (5).
    const org = await h.store.organizations.create('Short', 4 * MILLICENTS_PER_CREDIT);
    const key = await h.createKey({ kind: 'project', organizationId: org.id, environment: 'live', scopes: ['*'], models: ['*'] });
    const res = await generate('primary', key);
    assertError(res, { status: 503, code: 'model_unavailable' });
    assert.equal(hosted.requests.length, 0);
    assert.equal((await h.store.organizations.get(org.id))!.balance_millicents, 4 * MILLICENTS_PER_CREDIT);
  });

  it('a key that may not use the fallback gets the 503, not the fallback, and pays nothing', async () => {
    primary.reply = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '30' } });
    const key = await h.createKey({ kind: 'project', environment: 'live', scopes: ['*'], models: ['primary'] });
    const start = await balance();
    const res = await generate('primary', key);
    assertError(res, { status: 503, code: 'model_unavailable' });
    assert.equal(hosted.requests.length, 0);
    assert.equal(await balance(), start);
  });
});
