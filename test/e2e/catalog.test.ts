import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Model, ModelList } from '../../src/contract/models.ts';
import { assertError, assertMatches } from '../helpers/schemas.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

describe('the model catalog', () => {
  describe('default configuration', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness();
    });
    after(() => h.close());

    it('lists at least one model for every operation, each in the exact Model shape', async () => {
      const response = await h.request('GET', '/v1/models');
      assert.equal(response.status, 200);
      assertMatches(ModelList, response.json, 'model list');
      assert.equal(response.json.object, 'list');
      const operations = new Set(response.json.data.flatMap((m: { supported_operations: string[] }) => m.supported_operations));
      for (const op of ['svg_generate', 'svg_vectorize', 'svg_edit', 'svg_animate', 'open_responses']) assert.ok(operations.has(op), op);
      const kinds = new Set(response.json.data.map((m: { billing: { kind: string } }) => m.billing.kind));
      assert.deepEqual(kinds, new Set(['fixed_credit', 'token_usage']));
    });

    it('fixed-credit models carry pricing_credits with its required keys and the deprecated USD pricing', async () => {
      const { json } = await h.request('GET', '/v1/models/local-svg');
      assertMatches(Model, json);
      assert.deepEqual(json.billing, { kind: 'fixed_credit', unit: 'credits_per_output' });
      assert.deepEqual(json.pricing_credits, { svg_generate: 4, svg_vectorize: 0, svg_edit: 6, svg_animate: 8 });
      assert.deepEqual(json.pricing, { svg_generate: '0.04', svg_vectorize: '0.00', svg_edit: '0.06', svg_animate: '0.08' });
      assert.ok(Number.isInteger(json.created) && json.created >= 0);
    });

    it('token-priced models carry the billing union with all four integer rates and no credit pricing', async () => {
      const { json } = await h.request('GET', '/v1/models/local-svg-metered');
      assertMatches(Model, json);
      assert.deepEqual(json.billing, {
        kind: 'token_usage',
        currency: 'USD',
        pricing_model: 'token_usage_v1',
        unit: 'millicents_per_million_tokens',
        rates: { cache_write: 18_750, cached_input: 1_500, input: 15_000, output: 60_000 },
      });
      assert.ok(!('pricing_credits' in json) && !('pricing' in json));
    });

    it('GET /v1/models/{model} of an unknown model is 404 model_not_found', async () => {
      assertError(await h.request('GET', '/v1/models/nope'), { status: 404, code: 'model_not_found' });
    });

    it('appearing in the catalog does not grant access: a key limited to one model still sees all', async () => {
      const key = await h.createKey({ kind: 'project', environment: 'test', models: ['local-svg'] });
      const list = await h.request('GET', '/v1/models', { key });
      assert.ok(list.json.data.length >= 4);
      assert.equal((await h.request('GET', '/v1/models/local-svg-hd', { key })).status, 200);
      assertError(await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'local-svg-hd', prompt: 'x' } }), {
        status: 403,
        code: 'unauthorized',
        param: 'model',
      });
    });
  });

  describe('configured entries', () => {
    let h: Harness;
    let otherOrg: string;
    before(async () => {
      h = await startHarness({
        config: {
          billing: { millicents_per_credit: 1500 },
          catalog: {
            include_builtin: true,
            models: [
              {
                id: 'local-svg',
                engine: 'openai-compatible',
                operations: ['svg_generate'],
                billing: { kind: 'fixed_credit', credits: { svg_generate: 3 } },
                description: 'replaced',
                options: { base_url: 'http://127.0.0.1:9/v1', model: 'replacement' },
              },
              {
                id: 'private-model',
                engine: 'trace',
                operations: ['svg_vectorize'],
                billing: { kind: 'fixed_credit', credits: { svg_vectorize: 7 } },
                organizations: ['org_someone_else'],
              },
            ],
          },
        },
      });
      otherOrg = 'org_someone_else';
    });
    after(() => h.close());

    it('a configured entry replaces the built-in one with the same id; prices follow the credit value', async () => {
      const { json } = await h.request('GET', '/v1/models/local-svg');
      assertMatches(Model, json);
      assert.equal(json.description, 'replaced');
      assert.deepEqual(json.supported_operations, ['svg_generate']);
      assert.deepEqual(json.pricing_credits, { svg_generate: 3, svg_vectorize: 0 });
      assert.deepEqual(json.pricing, { svg_generate: '0.045', svg_vectorize: '0.00' });
      assertError(await h.request('POST', '/v1/svgs/edits', { body: { model: 'local-svg', prompt: 'x', svg: '<svg xmlns="http://www.w3.org/2000/svg"/>' } }), {
        status: 400,
        code: 'invalid_request',
        param: 'model',
      });
    });

    it('an entry limited to other organizations is invisible: 404 in the catalog and on use', async () => {
      const list = await h.request('GET', '/v1/models');
      assert.ok(!list.json.data.some((m: { id: string }) => m.id === 'private-model'));
      assertError(await h.request('GET', '/v1/models/private-model'), { status: 404, code: 'model_not_found' });
      assertError(
        await h.request('POST', '/v1/svgs/vectorizations', { body: { model: 'private-model', image: { url: 'https://x.test/a.png' } } }),
        { status: 404, code: 'model_not_found', param: 'model' },
      );
      assert.ok(otherOrg);
    });
  });

  it('a catalog naming an unknown engine fails at start, not on a request', async () => {
    await assert.rejects(
      startHarness({
        config: { catalog: { models: [{ id: 'x', engine: 'warp-drive', operations: ['svg_generate'], billing: { kind: 'fixed_credit', credits: {} } }] } },
      }),
      /engine "warp-drive"/,
    );
  });
});
