import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogModel } from '../../src/config/catalog.ts';
import type { SvgJob } from '../../src/engines/engine.ts';
import { responsesTokenBounds, tokenBounds } from '../../src/operations/token-bounds.ts';
import type { ResponsesRequest } from '../../src/contract/responses.ts';

function model(options: Record<string, unknown>): CatalogModel {
  return {
    entry: { id: 'thinker', engine: 'openai-compatible', max_output_length: 4000, options },
    model: {},
    supports: () => true,
    creditsFor: () => undefined,
  } as unknown as CatalogModel;
}

function generation(catalogModel: CatalogModel): SvgJob {
  return {
    operation: 'svg_generate',
    requestId: 'req_1',
    model: catalogModel,
    seed: 's',
    viewBox: null,
    prompt: 'a fox',
    references: [],
    outputs: 1,
    streaming: false,
    signal: new AbortController().signal,
  };
}

const respond = { model: 'thinker', input: 'hi' } as unknown as ResponsesRequest;

describe('token bounds of a reasoning model', () => {
  it('reserve the engine\'s default reasoning budget when the entry names none', () => {
    const thinker = model({ base_url: 'http://127.0.0.1:1/v1', model: 'm', reasoning: true });
    // The engine sends max_tokens = cap + 8192 here, so the reservation must cover as much.
    assert.equal(tokenBounds(generation(thinker), thinker).outputTokens, 4000 + 8192);
    assert.equal(responsesTokenBounds(respond, thinker, 0).outputTokens, 4000 + 8192);
  });

  it('reserve the entry\'s own budget, and none when reasoning is off', () => {
    const own = model({ reasoning: true, reasoning_budget_tokens: 500 });
    assert.equal(tokenBounds(generation(own), own).outputTokens, 4500);
    const plain = model({ reasoning_budget_tokens: 500 });
    assert.equal(tokenBounds(generation(plain), plain).outputTokens, 4000);
  });
});
