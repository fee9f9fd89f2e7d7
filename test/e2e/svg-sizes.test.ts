// An SVG input whose size is written but meaningless (NaN, 1e400, a broken viewBox) is a 400 on
// its field for every operation, test and live keys alike, and nothing is billed; it used to be
// answered 200 with a default 300×150 size.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ledgerTotals, PAID_CONFIG } from '../helpers/billing.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { assertError } from '../helpers/schemas.ts';

const svg = (attributes: string) => `<svg xmlns="http://www.w3.org/2000/svg" ${attributes}><rect width="4" height="4" fill="#c00"/></svg>`;
const b64 = (text: string) => Buffer.from(text).toString('base64');

const MALFORMED = ['viewBox="0 0 1e400 1e400"', 'viewBox="0 0 NaN NaN"', 'width="1e400" height="10"', 'viewBox="0 0 10 10" height="-2"'];

/** Each operation's SVG input fields, the body that carries the SVG there, and the param a refusal names. */
const FIELDS = [
  { path: '/v1/svgs/vectorizations', param: 'image.base64', body: (markup: string, model: string) => ({ model, image: { base64: b64(markup) } }) },
  { path: '/v1/svgs/edits', param: 'svg', body: (markup: string, model: string) => ({ model, prompt: 'make it blue', svg: markup }) },
  { path: '/v1/svgs/edits', param: 'svg_source.base64', body: (markup: string, model: string) => ({ model, prompt: 'make it blue', svg_source: { base64: b64(markup) } }) },
  { path: '/v1/svgs/animations', param: 'svg_source.base64', body: (markup: string, model: string) => ({ model, svg_source: { base64: b64(markup) } }) },
];

describe('SVG inputs with a malformed size', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ config: PAID_CONFIG });
  });
  after(() => h.close());

  for (const field of FIELDS) {
    it(`${field.path} refuses them on '${field.param}' with 400 invalid_request (test key)`, async () => {
      const model = field.path.endsWith('vectorizations') ? 'inkwell-trace' : 'local-svg';
      for (const attributes of MALFORMED) {
        const res = await h.request('POST', field.path, { body: field.body(svg(attributes), model) });
        assertError(res, { status: 400, code: 'invalid_request', param: field.param }, attributes);
        assert.match(res.json.message, /the root (viewBox|width|height) must be /);
      }
    });

    it(`${field.path} on '${field.param}' with a live key: 400 and nothing billed`, async () => {
      const before = await ledgerTotals(h.store, h.organizationId);
      const res = await h.request('POST', field.path, { key: h.keys.live, body: field.body(svg('viewBox="0 0 NaN NaN"'), 'paid-fixed') });
      assertError(res, { status: 400, code: 'invalid_request', param: field.param });
      assert.deepEqual(await ledgerTotals(h.store, h.organizationId), before);
    });
  }

  it('a huge but finite viewBox stays a 400 for vectorizations only (the 0.001..1e9 range rule)', async () => {
    const huge = svg('viewBox="0 0 1e12 1e12"');
    const vectorized = await h.request('POST', '/v1/svgs/vectorizations', { body: { model: 'inkwell-trace', image: { base64: b64(huge) } } });
    assertError(vectorized, { status: 400, code: 'invalid_request', param: 'image.base64' });
    assert.match(vectorized.json.message, /outside 0\.001 to 1000000000 units/);
    const edited = await h.request('POST', '/v1/svgs/edits', { body: { model: 'local-svg', prompt: 'make it blue', svg: huge } });
    assert.equal(edited.status, 200, edited.text);
  });

  it('percentages, auto and font-relative sizes are no intrinsic size, not an error', async () => {
    const relative = svg('width="50%" height="auto" viewBox="0 0 8 8"');
    const vectorized = await h.request('POST', '/v1/svgs/vectorizations', { body: { model: 'inkwell-trace', image: { base64: b64(relative) } } });
    assert.equal(vectorized.status, 200, vectorized.text);
    const animated = await h.request('POST', '/v1/svgs/animations', { body: { model: 'local-svg', svg_source: { base64: b64(svg('width="3em" height="2em"')) } } });
    assert.equal(animated.status, 200, animated.text);
  });
});
