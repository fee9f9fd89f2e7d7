import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../src/main.ts';
import { ledgerTotals, PAID_MODELS } from '../helpers/billing.ts';
import { REDIS_URL, SKIP_POSTGRES, SKIP_REDIS, startHarness, type Harness } from '../helpers/harness.ts';

const skip = SKIP_POSTGRES || SKIP_REDIS;

describe('two replicas on one PostgreSQL and one Redis', { skip }, () => {
  let h: Harness;
  let second: RunningServer;
  let urls: string[];
  before(async () => {
    h = await startHarness({
      backend: 'postgres',
      config: {
        catalog: { models: PAID_MODELS },
        limits: { requests: { svg: { limit: 20, window_seconds: 60 } }, redis_prefix: `inkwell-test-${randomBytes(4).toString('hex')}` },
      },
      env: { REDIS_URL: REDIS_URL! },
    });
    second = await startServer({ ...h.config, server: { ...h.config.server, port: 0 } }, { postgresSchema: h.postgresSchema });
    urls = [h.url, second.url];
  });
  after(async () => {
    await second?.close();
    await h?.close();
  });

  const post = (replica: number, key: string, body: object) =>
    fetch(`${urls[replica % 2]}/v1/svgs/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('share the 20 per 60 s window exactly', async () => {
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 25; i++) {
      const response = await post(i, h.keys.live, { model: 'paid-one', prompt: `r${i}` });
      await response.text();
      statuses.push(response.status);
      remaining.push(response.headers.get('x-ratelimit-remaining')!);
    }
    assert.deepEqual(statuses, [...Array(20).fill(200), ...Array(5).fill(429)]);
    assert.deepEqual(remaining.slice(0, 20), Array.from({ length: 20 }, (_, i) => String(19 - i)), 'one count across both replicas');
  });

  it('keep the balance exact under concurrent requests to both', async () => {
    const org = await h.store.organizations.create('Shared', 100 * 1000);
    const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
    await h.store.limitOverrides.set({ organization_id: org.id, rule: 'requests.svg', limit_value: null, window_seconds: null });
    await h.store.limitOverrides.set({ organization_id: org.id, rule: 'outputs', limit_value: null, window_seconds: null });
    const statuses = await Promise.all(
      Array.from({ length: 160 }, async (_, i) => {
        const response = await post(i, key, { model: 'paid-one', prompt: `s${i}`, stream: i % 3 === 0 });
        await response.text();
        return response.status;
      }),
    );
    assert.equal(statuses.filter((s) => s === 200).length, 100);
    assert.equal(statuses.filter((s) => s === 402).length, 60);
    assert.deepEqual(await ledgerTotals(h.store, org.id), { balance: 0, reserved: 0 });
  });

  it('see a key revocation and an organization state change made through the other one at once', async () => {
    const org = await h.store.organizations.create('Seen', 100 * 1000);
    const key = await h.createKey({ kind: 'project', environment: 'live', organizationId: org.id });
    const keyId = (await h.store.apiKeys.listByOrganization(org.id))[0]!.id;
    assert.equal((await fetch(`${second.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 200);

    await h.store.organizations.setStatus(org.id, 'frozen');
    const frozen = await post(1, key, { model: 'paid-one', prompt: 'x' });
    assert.equal(frozen.status, 403);
    assert.equal(((await frozen.json()) as { code: string }).code, 'account_frozen');

    await h.store.apiKeys.revoke(keyId);
    const revoked = await fetch(`${second.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(revoked.status, 401);
    assert.equal(((await revoked.json()) as { code: string }).code, 'invalid_api_key');
  });
});
