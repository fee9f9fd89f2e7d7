import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CatalogModel } from '../../../src/config/catalog.ts';
import type { CatalogEntry } from '../../../src/config/schema.ts';
import type { ResponsesRequest } from '../../../src/contract/responses.ts';
import type { SvgJob } from '../../../src/engines/engine.ts';
import { outputBudget, responsesOutputBudget } from '../../../src/engines/openai-compatible/budget.ts';
import { responsesTokenBounds, svgTokenBounds } from '../../../src/engines/openai-compatible/cost.ts';
import { parseOptions } from '../../../src/engines/openai-compatible/options.ts';

// What a job may cost is what the engine's own calls may use: the reservation and the call's cap
// come from one rule (budget.ts), so they cannot disagree.

function entryOf(options: Record<string, unknown>, extra: Record<string, unknown> = {}): CatalogEntry {
  return { id: 'thinker', engine: 'openai-compatible', max_output_length: 4000, ...extra, options: { base_url: 'http://127.0.0.1:1/v1', model: 'm', ...options } } as unknown as CatalogEntry;
}

function generation(entry: CatalogEntry, extra: Partial<SvgJob> = {}): SvgJob {
  return {
    operation: 'svg_generate',
    requestId: 'req_1',
    model: { entry } as unknown as CatalogModel,
    seed: 's',
    viewBox: null,
    prompt: 'a fox',
    references: [],
    outputs: 1,
    streaming: false,
    signal: new AbortController().signal,
    ...extra,
  } as SvgJob;
}

const respond = { model: 'thinker', input: 'hi' } as unknown as ResponsesRequest;
const bounds = (entry: CatalogEntry, job = generation(entry)) => svgTokenBounds(job, entry, parseOptions(entry));

describe('what a job on the openai-compatible engine may cost', () => {
  it('reserves the default reasoning budget of a reasoning model when the entry names none, as the call sends it', () => {
    const thinker = entryOf({ reasoning: true });
    assert.equal(bounds(thinker).outputTokens, 4000 + 8192);
    assert.equal(bounds(thinker).outputTokens, outputBudget(thinker, parseOptions(thinker), undefined));
    assert.equal(responsesTokenBounds(respond, 0, thinker, parseOptions(thinker)).outputTokens, 4000 + 8192);
  });

  it('reserves the entry\'s own reasoning budget, and none when reasoning is off', () => {
    assert.equal(bounds(entryOf({ reasoning: true, reasoning_budget_tokens: 500 })).outputTokens, 4500);
    assert.equal(bounds(entryOf({ reasoning_budget_tokens: 500 })).outputTokens, 4000);
  });

  it('reserves the output the call asks for when the entry names no max_output_length (8192), not the API\'s largest', () => {
    const plain = entryOf({}, { max_output_length: undefined });
    assert.equal(bounds(plain).outputTokens, 8192);
    assert.equal(responsesTokenBounds(respond, 0, plain, parseOptions(plain)).outputTokens, responsesOutputBudget(plain, parseOptions(plain), undefined));
    assert.equal(bounds(plain, generation(plain, { maxOutputTokens: 300, outputs: 3 } as Partial<SvgJob>)).outputTokens, 900, 'a request cap per output');
  });

  it('counts the prompt template, the text inputs in bytes and each image at the entry\'s allowance', () => {
    const entry = entryOf({ prompt_overhead_tokens: 100, image_input_tokens: 10 });
    const job = generation(entry, { prompt: 'é'.repeat(10), references: [{ url: 'http://x/a.png', param: 'references[0]' }, { url: 'http://x/b.png', param: 'references[1]' }] } as Partial<SvgJob>);
    assert.equal(bounds(entry, job).inputTokens, 100 + 20 + 2 * 10);
  });

  it('counts an edit\'s review rounds only on a model that can review (vision)', () => {
    const edit = (entry: CatalogEntry) =>
      ({ ...generation(entry), operation: 'svg_edit', source: { markup: '<svg/>' }, referenceImages: [], maxReviewSteps: 2, settings: {} }) as unknown as SvgJob;
    const blind = entryOf({});
    const seeing = entryOf({ vision: true });
    assert.equal(bounds(blind, edit(blind)).outputTokens, 4000, 'no reviews are run, none are reserved');
    assert.ok(bounds(seeing, edit(seeing)).outputTokens > 4000 * 2, 'reviews and redos are reserved');
  });

  it('refuses a Responses max_output_tokens past what the model can write', () => {
    const entry = entryOf({ reasoning: true, reasoning_budget_tokens: 100 });
    assert.throws(
      () => responsesTokenBounds({ ...respond, max_output_tokens: 4101 } as ResponsesRequest, 0, entry, parseOptions(entry)),
      (error: { code: string; param: string }) => error.code === 'invalid_request' && error.param === 'max_output_tokens',
    );
    assert.equal(responsesTokenBounds({ ...respond, max_output_tokens: 4100 } as ResponsesRequest, 0, entry, parseOptions(entry)).outputTokens, 4100);
  });
});
