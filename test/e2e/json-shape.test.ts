import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_JSON_SHAPE, jsonShapeProblem } from '../../src/http/json-body.ts';
import { RESPONSES_JSON_SHAPE } from '../../src/http/body-size.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { assertError } from '../helpers/schemas.ts';

describe('the JSON shape check before parsing', () => {
  it('counts only structure outside strings, escaped quotes included', () => {
    const shape = { maxDepth: 3, maxContainers: 3 };
    assert.equal(jsonShapeProblem('{"a":"{{{[[[\\"]]]{{","b":[1,{"c":"\\\\"}]}', shape), undefined);
    assert.match(jsonShapeProblem('{"a":[[[1]]]}', shape)!, /more than 3 levels/);
    assert.match(jsonShapeProblem('[{},{},{}]', { maxDepth: 3, maxContainers: 3 })!, /more than 3 objects/);
    assert.equal(jsonShapeProblem('{"unterminated', shape), undefined, 'left to JSON.parse');
  });

  it('reads 32 MiB of string and of hostile structure in linear time', { timeout: 5000 }, () => {
    const big = `{"image":{"base64":"${'A'.repeat(32 * 1_048_576)}"}}`;
    let t = performance.now();
    assert.equal(jsonShapeProblem(big, DEFAULT_JSON_SHAPE), undefined);
    const stringMs = performance.now() - t;
    const hostile = `[${'{},'.repeat(11_000_000)}{}]`;
    hostile.indexOf('x'); // flatten the rope built by repeat(), as a received body already is
    t = performance.now();
    assert.match(jsonShapeProblem(hostile, DEFAULT_JSON_SHAPE)!, /more than 1000/);
    const stopMs = performance.now() - t;
    t = performance.now();
    assert.equal(jsonShapeProblem(hostile, { maxDepth: 8, maxContainers: Infinity }), undefined);
    const wholeMs = performance.now() - t;
    // Relative, so a loaded machine slows both alike: stopping early costs a sliver of a full pass.
    assert.ok(stopMs * 20 < wholeMs, `stops at the first container over the limit (${stopMs} ms vs ${wholeMs} ms for the whole text)`);
    assert.ok(stringMs < 1000, `${stringMs} ms for 32 MiB of string`);
  });
});

describe('bodies of many tiny objects are refused before they are parsed', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('answers 32 MiB of {} nested or listed on /v1/responses with a 400 envelope, at once', { timeout: 10_000 }, async () => {
    for (const input of [`${'['.repeat(8_000_000)}${']'.repeat(8_000_000)}`, `[${'{},'.repeat(5_000_000)}{}]`]) {
      const started = performance.now();
      const res = await h.request('POST', '/v1/responses', {
        key: h.keys.live,
        rawBody: `{"model":"local-svg","input":${input}}`,
        headers: { 'content-type': 'application/json' },
      });
      assertError(res, { status: 400, code: 'invalid_request' });
      assert.match(res.json.message, new RegExp(`more than (${RESPONSES_JSON_SHAPE.maxDepth} levels|${RESPONSES_JSON_SHAPE.maxContainers} objects)`));
      assert.ok(performance.now() - started < 3000);
    }
  });

  it('refuses a generation listing thousands of empty references with 400, and still accepts a normal one', async () => {
    const res = await h.request('POST', '/v1/svgs/generations', {
      rawBody: `{"model":"local-svg","prompt":"x","references":[${'{},'.repeat(5000)}{}]}`,
      headers: { 'content-type': 'application/json' },
    });
    assertError(res, { status: 400, code: 'invalid_request' });
    assert.match(res.json.message, /more than 1000 objects and arrays/);
    const ok = await h.request('POST', '/v1/svgs/generations', { body: { model: 'local-svg', prompt: 'x', attributes: { viewBox: { minX: 0, minY: 0, width: 1, height: 1 } } } });
    assert.equal(ok.status, 200, ok.text);
  });
});
