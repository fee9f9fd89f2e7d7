import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { parseSse } from '../../helpers/sse.ts';
import { HEART, LINE_ART } from './drawings.ts';

describe('inkwell-motion over HTTP', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('is in the default catalog: svg_animate only, fixed credits', async () => {
    const { status, json } = await h.request('GET', '/v1/models/inkwell-motion');
    assert.equal(status, 200);
    assert.deepEqual(json.supported_operations, ['svg_animate']);
    assert.deepEqual(json.billing, { kind: 'fixed_credit', unit: 'credits_per_output' });
    assert.deepEqual(json.pricing_credits, { svg_generate: 0, svg_vectorize: 0, svg_animate: 2 });
  });

  it('animates a supplied SVG with a live key: 200, 2 credits debited, an animated SVG with its timing', async () => {
    const before = (await h.request('GET', '/v1/organization/balance', { key: h.keys.admin })).json.available_credits;
    const response = await h.request('POST', '/v1/svgs/animations', {
      key: h.keys.live,
      body: { model: 'inkwell-motion', prompt: 'draw the outline, then pulse the heart', svg_source: { base64: Buffer.from(HEART).toString('base64') } },
    });
    assert.equal(response.status, 200, response.text);
    const { json } = response;
    assert.equal(json.credits, 2);
    assert.equal(json.data.length, 1);
    const document = json.data[0];
    assert.equal(document.mime_type, 'image/svg+xml');
    assert.match(document.svg, /<style data-inkwell-motion="iwm">/);
    assert.match(document.svg, /@keyframes/);
    assert.match(document.svg, /@media \(prefers-reduced-motion:reduce\)\{\.iwm\{animation:none!important\}\}/);
    assert.doesNotMatch(document.svg, /<script|<animate/);
    assert.equal(document.opening_animation_ms, 1500);
    assert.equal(document.loop_period_ms, 1600);
    assert.ok('svg_score' in json);
    const after = (await h.request('GET', '/v1/organization/balance', { key: h.keys.admin })).json.available_credits;
    assert.equal(Math.round((before - after) * 1000), 2000);
  });

  it('streams generating, then content with the timing and credits', async () => {
    const response = await h.request('POST', '/v1/svgs/animations', {
      key: h.keys.live,
      body: { model: 'inkwell-motion', svg_source: { base64: Buffer.from(LINE_ART).toString('base64') }, stream: true },
    });
    assert.equal(response.status, 200, response.text);
    const events = parseSse(response.text);
    assert.deepEqual(events.map((e) => e.event ?? e.data), ['generating', 'content', '[DONE]']);
    const content = JSON.parse(events[1]!.data) as Record<string, unknown>;
    assert.equal(content.credits, 2);
    assert.equal(content.loop_period_ms, null);
    assert.equal(content.opening_animation_ms, 1900);
    assert.match(String(content.svg), /pathLength="1"/);
  });

  it('refuses an SVG that draws nothing with a 400 on svg_source, and charges nothing', async () => {
    const empty = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>nothing</title></svg>';
    const response = await h.request('POST', '/v1/svgs/animations', {
      key: h.keys.live,
      body: { model: 'inkwell-motion', svg_source: { base64: Buffer.from(empty).toString('base64') } },
    });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.json.code, 'invalid_request');
    assert.equal(response.json.param, 'svg_source.base64');
  });

  it('does not generate, edit or vectorize', async () => {
    const response = await h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { model: 'inkwell-motion', prompt: 'a fox' } });
    assert.equal(response.status, 400);
    assert.equal(response.json.param, 'model');
  });
});
