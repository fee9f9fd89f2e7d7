import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../helpers/schemas.ts';
import { ENDPOINT_CASES, PROJECT_CASES, SVG_CASES } from '../helpers/fixtures.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

describe('authentication and authorization on every endpoint', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const call = (c: (typeof ENDPOINT_CASES)[number], key: string | null, headers?: Record<string, string>) =>
    h.request(c.method, c.path, { key, body: 'body' in c ? c.body : undefined, headers });

  for (const c of ENDPOINT_CASES) {
    it(`${c.name}: a missing key is 401 invalid_api_key`, async () => {
      assertError(await call(c, null), { status: 401, code: 'invalid_api_key' });
    });

    it(`${c.name}: malformed, wrong-scheme and unknown keys are 401 invalid_api_key`, async () => {
      for (const authorization of [
        'Bearer nonsense',
        'Bearer ',
        'Basic c2tfdGVzdF86eA==',
        `Bearer sk_live_${'A'.repeat(43)}`,
        `Bearer sk_test_${'A'.repeat(42)}`,
        `Bearer ${h.keys.test}x`,
      ]) {
        assertError(await call(c, null, { authorization }), { status: 401, code: 'invalid_api_key' }, authorization);
      }
    });
  }

  it('a revoked key fails from the very next request', async () => {
    const key = await h.createKey({ kind: 'project', environment: 'test' });
    assert.equal((await h.request('GET', '/v1/models', { key })).status, 200);
    const { hashSecret } = await import('../../src/accounts/keys.ts');
    const record = await h.store.apiKeys.findBySecretHash(hashSecret(key));
    assert.ok(await h.store.apiKeys.revoke(record!.id));
    for (const c of ENDPOINT_CASES) assertError(await call(c, key), { status: 401, code: 'invalid_api_key' }, c.name);
  });

  it('a key whose organization is closed is 401 unauthorized', async () => {
    const org = await h.store.organizations.create('closing');
    const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
    const admin = await h.createKey({ kind: 'admin', organizationId: org.id });
    assert.equal((await h.request('GET', '/v1/models', { key })).status, 200);
    await h.store.organizations.setStatus(org.id, 'closed');
    for (const c of PROJECT_CASES) assertError(await call(c, key), { status: 401, code: 'unauthorized' }, c.name);
    assertError(await h.request('GET', '/v1/organization/balance', { key: admin }), { status: 401, code: 'unauthorized' });
  });

  for (const c of PROJECT_CASES) {
    it(`${c.name}: an organization admin key is 403 unauthorized`, async () => {
      assertError(await call(c, h.keys.admin), { status: 403, code: 'unauthorized' });
    });
  }

  it('project keys, test or live, are 403 unauthorized on organization endpoints', async () => {
    for (const key of [h.keys.test, h.keys.live]) {
      assertError(await h.request('GET', '/v1/organization/balance', { key }), { status: 403, code: 'unauthorized' });
    }
  });

  it('an admin key with billing_read reads the balance', async () => {
    const key = await h.createKey({ kind: 'admin', scopes: ['billing_read'] });
    const response = await h.request('GET', '/v1/organization/balance', { key });
    assert.equal(response.status, 200);
    assert.equal(response.json.organization_id, h.organizationId);
  });

  for (const c of SVG_CASES) {
    it(`${c.name}: a project key without ${c.capability} is 403 unauthorized`, async () => {
      const key = await h.createKey({ kind: 'project', environment: 'test', scopes: ['catalog_read'] });
      assertError(await call(c, key), { status: 403, code: 'unauthorized' });
      const allowed = await h.createKey({ kind: 'project', environment: 'test', scopes: [c.capability] });
      assert.equal((await call(c, allowed)).status, 200);
    });

    it(`${c.name}: a key that does not allow the model is 403 unauthorized with param model`, async () => {
      const key = await h.createKey({ kind: 'project', environment: 'test', models: ['some-other-model'] });
      assertError(await call(c, key), { status: 403, code: 'unauthorized', param: 'model' });
    });
  }

  it('the catalog and Responses need catalog_read', async () => {
    const key = await h.createKey({ kind: 'project', environment: 'live', scopes: ['svg_generate'] });
    assertError(await h.request('GET', '/v1/models', { key }), { status: 403, code: 'unauthorized' });
    assertError(await h.request('GET', '/v1/models/local-svg', { key }), { status: 403, code: 'unauthorized' });
    assertError(await h.request('POST', '/v1/responses', { key, body: { model: 'local-svg', input: 'x' } }), {
      status: 403,
      code: 'unauthorized',
    });
  });

  it('a test key receives 404 on /v1/responses', async () => {
    assertError(await h.request('POST', '/v1/responses', { key: h.keys.test, body: { model: 'local-svg', input: 'x' } }), {
      status: 404,
      code: 'invalid_request',
    });
  });

  it('authenticated responses say their environment; live ones state the data posture', async () => {
    const test = await h.request('GET', '/v1/models', { key: h.keys.test });
    assert.equal(test.headers.get('x-inkwell-environment'), 'test');
    assert.equal(test.headers.get('x-inkwell-data-policy'), null);
    const live = await h.request('GET', '/v1/models', { key: h.keys.live });
    assert.equal(live.headers.get('x-inkwell-environment'), 'live');
    assert.equal(live.headers.get('x-inkwell-payload-capture'), 'none');
    // Nothing the operator did not declare, and no retention the service does not enforce.
    assert.equal(live.headers.get('x-inkwell-zero-data-retention'), null);
    assert.equal(live.headers.get('x-inkwell-metadata-retention-seconds'), null);
    assert.ok(live.headers.get('x-inkwell-data-policy'));
    const unauthenticated = await h.request('GET', '/v1/models', { key: null });
    assert.equal(unauthenticated.headers.get('x-inkwell-environment'), null);
  });

  it('live keys on engines not built yet answer 503 model_unavailable and nothing else changes', async () => {
    const pending = [...SVG_CASES, ENDPOINT_CASES.find((e) => e.name === 'responses')!].filter((c) => c.name !== 'vectorizations');
    for (const c of pending) {
      assertError(await call(c, h.keys.live), { status: 503, code: 'model_unavailable' }, c.name);
    }
    const org = await h.store.organizations.get(h.organizationId);
    assert.equal(org!.balance_millicents, h.config.billing.starter_credits * h.config.billing.millicents_per_credit);
  });

  it('a live key vectorizes with the built-in tracer and pays its one credit', async () => {
    const before = (await h.store.organizations.get(h.organizationId))!.balance_millicents;
    const res = await call(ENDPOINT_CASES.find((e) => e.name === 'vectorizations')!, h.keys.live);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.credits, 1);
    assert.match(res.json.data[0].svg, /^<svg /);
    const after = (await h.store.organizations.get(h.organizationId))!.balance_millicents;
    assert.equal(before - after, h.config.billing.millicents_per_credit);
  });
});

describe('the data-posture headers state what the operator declared, both ways', () => {
  for (const declared of [true, false]) {
    it(`upstream_zero_data_retention: ${declared} → X-Inkwell-Zero-Data-Retention: ${declared}, on live keys only`, async () => {
      const h = await startHarness({ config: { data_posture: { upstream_zero_data_retention: declared } } });
      try {
        const live = await h.request('GET', '/v1/models', { key: h.keys.live });
        assert.equal(live.headers.get('x-inkwell-zero-data-retention'), String(declared));
        const test = await h.request('GET', '/v1/models', { key: h.keys.test });
        assert.equal(test.headers.get('x-inkwell-zero-data-retention'), null);
      } finally {
        await h.close();
      }
    });
  }
});
