// A frozen organization can still read its catalog and balance (to see what it has and resolve
// the freeze), but every SVG operation and Responses is 403 account_frozen on every key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ledgerTotals, PAID_CONFIG } from '../helpers/billing.ts';
import { SQUARE_SVG, TINY_PNG_BASE64 } from '../helpers/fixtures.ts';
import { BACKENDS, startHarness, type Harness } from '../helpers/harness.ts';
import { assertError } from '../helpers/schemas.ts';

const OPERATIONS = [
  ['/v1/svgs/generations', { model: 'paid-fixed', prompt: 'a kite' }],
  ['/v1/svgs/vectorizations', { model: 'paid-fixed', image: { base64: TINY_PNG_BASE64 } }],
  ['/v1/svgs/edits', { model: 'paid-fixed', prompt: 'make it blue', svg: SQUARE_SVG }],
  ['/v1/svgs/animations', { model: 'paid-fixed', svg_source: { base64: Buffer.from(SQUARE_SVG).toString('base64') } }],
] as const;

for (const { backend, skip } of BACKENDS) {
  describe(`a frozen organization on ${backend}`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ backend, config: PAID_CONFIG });
    });
    after(() => h.close());

    it('reads its catalog and balance; every SVG operation and Responses is 403 account_frozen, test keys included', async () => {
      const org = await h.store.organizations.create('Frozen', 25_000);
      const keys = {
        test: await h.createKey({ kind: 'project', environment: 'test', organizationId: org.id }),
        live: await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id }),
        admin: await h.createKey({ kind: 'admin', organizationId: org.id }),
      };
      await h.store.organizations.setStatus(org.id, 'frozen');
      const before = await ledgerTotals(h.store, org.id);

      for (const key of [keys.test, keys.live]) {
        const list = await h.request('GET', '/v1/models', { key });
        assert.equal(list.status, 200, list.text);
        assert.ok(list.json.data.some((m: { id: string }) => m.id === 'paid-fixed'));
        const one = await h.request('GET', '/v1/models/paid-fixed', { key });
        assert.deepEqual([one.status, one.json.id], [200, 'paid-fixed']);
      }
      const balance = await h.request('GET', '/v1/organization/balance', { key: keys.admin });
      assert.deepEqual([balance.status, balance.json.organization_id, balance.json.available_credits], [200, org.id, 25]);

      for (const [path, body] of OPERATIONS) {
        for (const [name, key] of [['test', keys.test], ['live', keys.live]] as const) {
          assertError(await h.request('POST', path, { key, body }), { status: 403, code: 'account_frozen' }, `${path} (${name} key)`);
          assertError(await h.request('POST', path, { key, body: { ...body, stream: true } }), { status: 403, code: 'account_frozen' }, `${path} streamed (${name} key)`);
        }
      }
      const responses = await h.request('POST', '/v1/responses', { key: keys.live, body: { model: 'local-svg-metered', input: 'hello' } });
      assertError(responses, { status: 403, code: 'account_frozen' }, 'responses (live key)');
      assert.deepEqual(await ledgerTotals(h.store, org.id), before, 'nothing reserved or charged');
    });
  });
}
