import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { maxTokenCostMillicents } from '../../../../src/billing/pricing.ts';
import { ledgerTotals } from '../../../helpers/billing.ts';
import { startHarness } from '../../../helpers/harness.ts';
import { assertError } from '../../../helpers/schemas.ts';
import { RATES, responsesEntry, startResponses, type ResponsesSetup } from './setup.ts';

const USAGE = { prompt_tokens: 120, completion_tokens: 80, prompt_tokens_details: { cached_tokens: 20 } };
const post = (s: ResponsesSetup, body: Record<string, unknown>, key = s.h.keys.live) => s.h.request('POST', '/v1/responses', { key, body });

/** Token-priced billing (spec rule 6), limits and keys on POST /v1/responses. */
describe('Responses billing, limits and keys', () => {
  let s: ResponsesSetup;
  before(async () => {
    s = await startResponses(undefined, {
      config: { limits: { requests: { responses: { limit: 1_000_000, window_seconds: 60 } }, input_tokens: { limit: 50_000, window_seconds: 60 } } },
    });
  });
  after(() => s.close());
  beforeEach(() => {
    s.upstream.requests.length = 0;
    s.upstream.reply = () => ({ kind: 'stream', content: 'ok', usage: USAGE });
  });

  /** The newest reserve entry's held amount. */
  const lastReserved = async () => {
    const rows = await s.h.store.ledger.entries(s.h.organizationId, 1000);
    const reserve = rows.find((row) => row.kind === 'reserve');
    assert.ok(reserve, 'a reserve entry');
    assert.equal(reserve.operation, 'open_responses');
    return reserve.reserved_delta_millicents;
  };

  it('reserves the most the request can cost from its own bounds, then settles the measured usage (cached tokens cheaper)', async () => {
    const body = { model: 'chat', input: [{ type: 'message', role: 'user', content: 'Héllo, sheep' }], instructions: 'Be brief.', max_output_tokens: 100 };
    const before = await ledgerTotals(s.h.store, s.h.organizationId);
    const response = await post(s, body);
    assert.equal(response.status, 200, response.text);
    const text = JSON.stringify({ instructions: body.instructions, input: body.input });
    const bounds = { inputTokens: 2048 + Buffer.byteLength(text), outputTokens: 100 };
    assert.equal(await lastReserved(), maxTokenCostMillicents(bounds, RATES));
    const after = await ledgerTotals(s.h.store, s.h.organizationId);
    // 100 uncached at 1, 20 cached at 0.1, 80 output at 2 millicents.
    assert.equal(before.balance - after.balance, 100 + 2 + 160);
    assert.equal(after.reserved, 0);
    assert.deepEqual(response.json.usage.input_tokens_details, { cached_tokens: 20 });
  });

  it('402 insufficient_credits before any model work when the bound cannot be covered; a smaller bound fits', async () => {
    // 2048 + ~10 input tokens at 1 millicent and 4096 output tokens at 2: about 10 200 millicents.
    const { id } = await s.h.store.organizations.create('poor', 5_000);
    const key = await s.h.createKey({ kind: 'project', environment: 'live', organizationId: id });
    assertError(await post(s, { model: 'chat', input: 'x' }, key), { status: 402, code: 'insufficient_credits' });
    assert.equal(s.upstream.requests.length, 0);
    const small = await post(s, { model: 'chat', input: 'x', max_output_tokens: 1000 }, key);
    assert.equal(small.status, 200, small.text);
    const totals = await ledgerTotals(s.h.store, id);
    assert.deepEqual(totals, { balance: 5_000 - (100 + 2 + 160), reserved: 0 });
  });

  it('max_output_tokens above what the model writes is 400; within it, the bound follows it', async () => {
    assertError(await post(s, { model: 'chat', input: 'x', max_output_tokens: 4097 }), { status: 400, code: 'invalid_request', param: 'max_output_tokens' });
    assert.equal((await post(s, { model: 'thinker', input: 'x', max_output_tokens: 4196 })).status, 200, 'a reasoning model adds its budget');
    assert.equal(s.upstream.requests.at(-1)!.body.max_tokens, 4196);
  });

  it('token limits: a request whose input bound exceeds input_tokens is 429 with the rate-limit headers', async () => {
    const response = await post(s, { model: 'chat', input: 'x'.repeat(60_000) });
    assertError(response, { status: 429, code: 'rate_limit_exceeded' });
    assert.equal(response.headers.get('x-ratelimit-dimension'), 'input-token');
    assert.equal(response.headers.get('x-ratelimit-scope'), 'organization');
    assert.equal(s.upstream.requests.length, 0);
    const ok = await post(s, { model: 'chat', input: 'small' });
    assert.equal(ok.status, 200);
    assert.ok(ok.headers.get('x-ratelimit-limit'), 'a limited route reports its binding limit');
  });

  it('test keys get 404; a key without catalog_read 403; a key not allowing the model 403 on model', async () => {
    assertError(await post(s, { model: 'chat', input: 'x' }, s.h.keys.test), { status: 404, code: 'invalid_request' });
    const svgOnly = await s.h.createKey({ kind: 'project', environment: 'live', scopes: ['svg_generate'] });
    assertError(await post(s, { model: 'chat', input: 'x' }, svgOnly), { status: 403, code: 'unauthorized' });
    const otherModel = await s.h.createKey({ kind: 'project', environment: 'live', scopes: ['catalog_read'], models: ['native'] });
    assertError(await post(s, { model: 'chat', input: 'x' }, otherModel), { status: 403, code: 'unauthorized', param: 'model' });
    assert.equal((await post(s, { model: 'native', input: 'x' }, otherModel)).status, 502, 'catalog_read alone runs Responses (the fake answers chat here)');
    assert.equal(s.upstream.requests.length, 1, 'only the allowed call reached the upstream');
  });

  it('the built-in catalog: fixed-credit local-svg no longer lists open_responses, the metered entry does', async () => {
    const models = (await s.h.request('GET', '/v1/models', { key: s.h.keys.test })).json.data as { id: string; supported_operations: string[]; billing: { kind: string } }[];
    for (const model of models.filter((m) => m.supported_operations.includes('open_responses'))) assert.equal(model.billing.kind, 'token_usage', model.id);
    assert.ok(!models.find((m) => m.id === 'local-svg')!.supported_operations.includes('open_responses'));
    assert.ok(models.find((m) => m.id === 'local-svg-metered')!.supported_operations.includes('open_responses'));
    assertError(await post(s, { model: 'local-svg', input: 'x' }), { status: 400, code: 'invalid_request', param: 'model' });
  });
});

describe('Responses request limits', () => {
  let s: ResponsesSetup;
  before(async () => {
    s = await startResponses(undefined, { config: { limits: { requests: { responses: { limit: 2, window_seconds: 60 } } } } });
    s.upstream.reply = () => ({ kind: 'stream', content: 'ok', usage: USAGE });
  });
  after(() => s.close());

  it('requests.responses: the third request in the window is 429 with Retry-After and the headers', async () => {
    assert.equal((await post(s, { model: 'chat', input: 'x' })).status, 200);
    assert.equal((await post(s, { model: 'chat', input: 'x', stream: true })).status, 200);
    const refused = await post(s, { model: 'chat', input: 'x' });
    assertError(refused, { status: 429, code: 'rate_limit_exceeded' });
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal(refused.headers.get('x-ratelimit-dimension'), 'request');
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  });
});

describe('the catalog refuses, at start, an entry that lists open_responses without token pricing', () => {
  it('a fixed-credit entry with open_responses stops the start', async () => {
    const entry = { ...responsesEntry('fixed-resp', 'http://127.0.0.1:9/v1'), billing: { kind: 'fixed_credit', credits: { svg_generate: 1, svg_vectorize: 0 } } };
    await assert.rejects(startHarness({ config: { catalog: { models: [entry] } } }), /fixed-resp lists open_responses but is billed fixed_credit/);
  });

  it('an engine that does not run Responses cannot list it', async () => {
    const entry = { id: 'sandbox-resp', engine: 'sandbox', operations: ['open_responses'], billing: { kind: 'token_usage', rates: RATES } };
    await assert.rejects(startHarness({ config: { catalog: { models: [entry] } } }), /sandbox-resp lists open_responses, but its engine "sandbox" does not run Responses/);
  });
});
