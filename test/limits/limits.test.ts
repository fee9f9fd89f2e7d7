import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ledgerTotals, PAID_MODELS } from '../helpers/billing.ts';
import { TINY_PNG_BASE64 } from '../helpers/fixtures.ts';
import { randomBytes } from 'node:crypto';
import { REDIS_URL, SKIP_REDIS, startHarness, type ApiResponse, type Harness } from '../helpers/harness.ts';
import { assertError } from '../helpers/schemas.ts';

const SPEC_RULE = { limit: 20, window_seconds: 60 };

function assertLimitHeaders(response: ApiResponse, expected: { limit: number; remaining: number; scope: string; subject: string; dimension: string }) {
  const header = (name: string) => response.headers.get(name);
  assert.equal(header('x-ratelimit-limit'), String(expected.limit), 'X-RateLimit-Limit');
  assert.equal(header('x-ratelimit-remaining'), String(expected.remaining), 'X-RateLimit-Remaining');
  assert.equal(header('x-ratelimit-scope'), expected.scope, 'X-RateLimit-Scope');
  assert.equal(header('x-ratelimit-subject'), expected.subject, 'X-RateLimit-Subject');
  assert.equal(header('x-ratelimit-dimension'), expected.dimension, 'X-RateLimit-Dimension');
  const reset = Number(header('x-ratelimit-reset'));
  assert.ok(Number.isInteger(reset), 'X-RateLimit-Reset is an integer');
  assert.ok(reset > Date.now() - 1000 && reset <= Date.now() + 3_600_000 * 24 * 8, 'X-RateLimit-Reset is Unix milliseconds');
}

/** The same suites run on in-process counters and, when REDIS_URL is set, on Redis. */
const COUNTERS = [
  { name: 'memory', skip: false as const, env: {} as Record<string, string> },
  { name: 'redis', skip: SKIP_REDIS, env: (REDIS_URL ? { REDIS_URL } : {}) as Record<string, string> },
];
const freshPrefix = () => `inkwell-test-${randomBytes(4).toString('hex')}`;

for (const counters of COUNTERS) {
  describe(`request limits on ${counters.name}: 20 per 60 s across generations and vectorizations`, { skip: counters.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({
        config: { catalog: { models: PAID_MODELS }, limits: { requests: { svg: SPEC_RULE }, redis_prefix: freshPrefix() } },
        env: counters.env,
      });
    });
    after(() => h.close());

    const generation = (key: string) => h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-fixed', prompt: 'x' } });
    const vectorization = (key: string) =>
      h.request('POST', '/v1/svgs/vectorizations', { key, body: { model: 'paid-fixed', image: { base64: TINY_PNG_BASE64 } } });

    it('counts both routes in one window, with headers on every response, then 429 with Retry-After; rejections cost nothing', async () => {
      const started = await ledgerTotals(h.store, h.organizationId);
      for (let i = 0; i < 20; i++) {
        const response = await (i % 2 ? vectorization(h.keys.live) : generation(h.keys.live));
        assert.equal(response.status, 200, response.text);
        assertLimitHeaders(response, { limit: 20, remaining: 19 - i, scope: 'organization', subject: h.organizationId, dimension: 'request' });
      }
      const spent = await ledgerTotals(h.store, h.organizationId);
      const rejected = await vectorization(h.keys.live);
      assertError(rejected, { status: 429, code: 'rate_limit_exceeded' });
      assertLimitHeaders(rejected, { limit: 20, remaining: 0, scope: 'organization', subject: h.organizationId, dimension: 'request' });
      const retryAfter = Number(rejected.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(rejected.json.retry_after, retryAfter);
      assert.deepEqual(await ledgerTotals(h.store, h.organizationId), spent, 'a rejected request costs nothing');
      assert.equal(started.balance - spent.balance, (10 * 3 + 10 * 2) * 1000);

      // Even a request that would fail validation is refused first, before its body is read.
      assertError(await h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { nope: 1 } }), { status: 429, code: 'rate_limit_exceeded' });
    });

    it('test keys have their own budget (scope sandbox), and other route families are not affected', async () => {
      const response = await generation(h.keys.test);
      assert.equal(response.status, 200);
      assertLimitHeaders(response, { limit: 20, remaining: 19, scope: 'sandbox', subject: h.organizationId, dimension: 'request' });
      const edit = await h.request('POST', '/v1/svgs/edits', {
        key: h.keys.live,
        body: { model: 'paid-fixed', prompt: 'blue', svg: '<svg xmlns="http://www.w3.org/2000/svg"/>' },
      });
      assert.equal(edit.status, 200);
      assert.ok(edit.headers.get('x-ratelimit-limit'), 'edits carry limit headers too');
    });

    it('a 400 on a limited route still carries the headers and counts', async () => {
      const other = await h.store.organizations.create('Other', 100_000);
      const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: other.id });
      const bad = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-fixed', prompt: 'x', n: 99 } });
      assertError(bad, { status: 400, code: 'invalid_request', param: 'n' });
      assertLimitHeaders(bad, { limit: 20, remaining: 19, scope: 'organization', subject: other.id, dimension: 'request' });
    });

    it('the catalog is limited with its own rule and reports it', async () => {
      const response = await h.request('GET', '/v1/models', { key: h.keys.live });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-ratelimit-dimension'), 'request');
      assert.ok(Number(response.headers.get('x-ratelimit-limit')) > 20);
    });

    it('per-organization overrides replace the configured rule within a second', async () => {
      const org = await h.store.organizations.create('Override', 100_000);
      const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      await h.store.limitOverrides.set({ organization_id: org.id, rule: 'requests.svg', limit_value: 2, window_seconds: 30 });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await generation(key)).headers.get('x-ratelimit-limit'), '2');
      assert.equal((await generation(key)).status, 200);
      assertError(await generation(key), { status: 429, code: 'rate_limit_exceeded' });
      // null switches the rule off for this organization
      await h.store.limitOverrides.set({ organization_id: org.id, rule: 'requests.svg', limit_value: null, window_seconds: null });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const free = await generation(key);
      assert.equal(free.status, 200);
      assert.equal(free.headers.get('x-ratelimit-dimension'), 'operation', 'the outputs rule is now the binding one');
    });
  });

  describe(`operation, weekly and token limits on ${counters.name}`, { skip: counters.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({
        env: counters.env,
        config: {
          catalog: { models: PAID_MODELS },
          limits: {
            redis_prefix: freshPrefix(),
            outputs: { limit: 6, window_seconds: 60 },
            weekly_requests: { limit: 1000, window_seconds: 604_800 },
            input_tokens: { limit: 5000, window_seconds: 60 },
            output_tokens: { limit: 100_000, window_seconds: 60 },
          },
        },
      });
    });
    after(() => h.close());

    it('outputs per window → 429 operation_rate_limit_exceeded with the operation dimension; refused outputs are not counted', async () => {
      const ok = await h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { model: 'paid-fixed', prompt: 'x', n: 4 } });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('x-ratelimit-dimension'), 'operation');
      assert.equal(ok.headers.get('x-ratelimit-remaining'), '2');
      const before = await ledgerTotals(h.store, h.organizationId);
      const refused = await h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { model: 'paid-fixed', prompt: 'x', n: 3 } });
      assertError(refused, { status: 429, code: 'operation_rate_limit_exceeded' });
      assert.equal(refused.headers.get('x-ratelimit-dimension'), 'operation');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.deepEqual(await ledgerTotals(h.store, h.organizationId), before);
      // The refused 3 were given back: 2 still fit.
      assert.equal((await h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { model: 'paid-fixed', prompt: 'x', n: 2 } })).status, 200);
    });

    it('a request refused for credits (402) gives its outputs back to the throughput window', async () => {
      const org = await h.store.organizations.create('Broke', 1000);
      const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      const refused = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-fixed', prompt: 'x', n: 4 } });
      assertError(refused, { status: 402, code: 'insufficient_credits' });
      await h.store.ledger.grant(org.id, 100_000);
      const full = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-fixed', prompt: 'x', n: 6 } });
      assert.equal(full.status, 200, 'all 6 outputs of the window are still free');
      assert.equal(full.headers.get('x-ratelimit-remaining'), '0');
    });

    it('a request larger than the whole window is refused without retry timing', async () => {
      const org = await h.store.organizations.create('Big', 1_000_000);
      const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      const refused = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-fixed', prompt: 'x', n: 7 } });
      assertError(refused, { status: 429, code: 'operation_rate_limit_exceeded' });
      assert.equal(refused.headers.get('retry-after'), null);
      assert.ok(!('retry_after' in refused.json));
    });

    it('input tokens of token-priced models → 429 rate_limit_exceeded with the input-token dimension', async () => {
      const org = await h.store.organizations.create('Tokens', 1_000_000);
      const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      const refused = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-tokens', prompt: 'p'.repeat(20_000) } });
      // The engine's own bound: the sandbox counts 24 + 20 000 / 4 = 5 024 input tokens, over 5 000.
      assertError(refused, { status: 429, code: 'rate_limit_exceeded' });
      assert.equal(refused.headers.get('x-ratelimit-dimension'), 'input-token');
      // A small one fits, and measured usage gives back most of its estimate.
      const ok = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-tokens', prompt: 'small' } });
      assert.equal(ok.status, 200, ok.text);
      const second = await h.request('POST', '/v1/svgs/generations', { key, body: { model: 'paid-tokens', prompt: 'small' } });
      assert.equal(second.status, 200, 'the first estimate was corrected by its measured usage');
    });

    it('weekly requests → 429 weekly_limit_exceeded', async () => {
      const org = await h.store.organizations.create('Weekly', 1_000_000);
      const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
      await h.store.limitOverrides.set({ organization_id: org.id, rule: 'weekly_requests', limit_value: 2, window_seconds: 604_800 });
      const body = { model: 'paid-fixed', prompt: 'x' };
      assert.equal((await h.request('POST', '/v1/svgs/generations', { key, body })).status, 200);
      assert.equal((await h.request('POST', '/v1/svgs/generations', { key, body })).status, 200);
      const refused = await h.request('POST', '/v1/svgs/generations', { key, body });
      assertError(refused, { status: 429, code: 'weekly_limit_exceeded' });
      assert.equal(refused.headers.get('x-ratelimit-dimension'), 'request');
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter > 86_400 - 10 || retryAfter === 86_400, 'capped at the envelope maximum of 86400');
    });
  });
}
