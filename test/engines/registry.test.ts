import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startHarness } from '../helpers/harness.ts';

const RATES = { input: 1_000, cached_input: 100, cache_write: 1_250, output: 4_000 };

describe('the engine registry refuses, at start, a catalog it could not bill', () => {
  it('a token-priced entry on an engine that measures no tokens stops the start', async () => {
    const entry = { id: 'trace-tokens', engine: 'trace', operations: ['svg_vectorize'], billing: { kind: 'token_usage', rates: RATES } };
    await assert.rejects(startHarness({ config: { catalog: { models: [entry] } } }), /trace-tokens is billed token_usage, but its engine "trace" measures no tokens/);
  });

  it('the same entry priced per output starts', async () => {
    const entry = { id: 'trace-fixed', engine: 'trace', operations: ['svg_vectorize'], billing: { kind: 'fixed_credit', credits: { svg_generate: 0, svg_vectorize: 1 } } };
    const harness = await startHarness({ config: { catalog: { models: [entry] } } });
    await harness.close();
  });
});
