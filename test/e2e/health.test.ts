import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createLogger } from '../../src/main.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';
import { startFakeRedis, type FakeRedis } from '../fakes/redis.ts';
import { BACKENDS, REDIS_URL, SKIP_REDIS, startHarness, type Harness } from '../helpers/harness.ts';

const NEWEST_MIGRATION = Object.keys(MIGRATIONS).sort().at(-1)!;

/** The built-in catalog's three openai-compatible entries, each on the one configured server. */
const BUILTIN_UPSTREAMS = { in_service: 3, trial: 0, out: 0 };

describe('GET /healthz and GET /readyz', () => {
  for (const { backend, skip } of BACKENDS) {
    describe(`on ${backend}`, { skip }, () => {
      let h: Harness;
      before(async () => {
        h = await startHarness({ backend });
      });
      after(() => h.close());

      it('/healthz answers 200 {"status":"ok"} without a key', async () => {
        const response = await h.request('GET', '/healthz', { key: null });
        assert.equal(response.status, 200);
        assert.deepEqual(response.json, { status: 'ok' });
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      });

      it('/readyz answers 200 when the database answers with every migration applied', async () => {
        const response = await h.request('GET', '/readyz', { key: null });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.json, { status: 'ok', checks: { database: 'ok', migrations: 'ok' }, upstreams: BUILTIN_UPSTREAMS });
      });

      it('/readyz answers 503 naming the migrations while the newest one is not applied', async () => {
        const { rows } = await sql<{ name: string; timestamp: string }>`select name, timestamp from schema_migrations where name = ${NEWEST_MIGRATION}`.execute(h.store.db);
        assert.equal(rows.length, 1, 'the newest migration is recorded');
        await sql`delete from schema_migrations where name = ${NEWEST_MIGRATION}`.execute(h.store.db);
        try {
          const response = await h.request('GET', '/readyz', { key: null });
          assert.equal(response.status, 503);
          assert.deepEqual(response.json, { status: 'unavailable', checks: { database: 'ok', migrations: 'pending' }, upstreams: BUILTIN_UPSTREAMS });
        } finally {
          await sql`insert into schema_migrations (name, timestamp) values (${rows[0]!.name}, ${rows[0]!.timestamp})`.execute(h.store.db);
        }
        assert.equal((await h.request('GET', '/readyz', { key: null })).status, 200);
      });

      it('need no key, ignore a bad one, and are never rate limited', async () => {
        const answers = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            h.request('GET', i % 2 ? '/healthz' : '/readyz', { headers: { authorization: 'Bearer not-a-key' } }),
          ),
        );
        assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]));
        assert.ok(answers.every((a) => a.headers.get('x-ratelimit-limit') === null));
      });
    });
  }

  describe('with the database closed', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness();
      await h.store.close();
    });
    // The lease and the store cannot close cleanly any more; that is what this test is about.
    after(() => h.close().catch(() => undefined));

    it('/readyz answers 503 naming the database, and /healthz still 200', async () => {
      const ready = await h.request('GET', '/readyz', { key: null });
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.json, { status: 'unavailable', checks: { database: 'unreachable', migrations: 'unknown' }, upstreams: BUILTIN_UPSTREAMS });
      assert.equal((await h.request('GET', '/healthz', { key: null })).status, 200);
    });
  });

  describe('with Redis configured', () => {
    let redis: FakeRedis;
    let h: Harness;
    before(async () => {
      redis = await startFakeRedis();
      h = await startHarness({ env: { REDIS_URL: redis.url } });
    });
    after(async () => {
      await h.close();
      await redis.stop();
    });

    it('/readyz checks Redis: 200 while it answers, 503 naming it once it is gone', async () => {
      const up = await h.request('GET', '/readyz', { key: null });
      assert.equal(up.status, 200, up.text);
      assert.deepEqual(up.json, { status: 'ok', checks: { database: 'ok', migrations: 'ok', redis: 'ok' }, upstreams: BUILTIN_UPSTREAMS });

      await redis.stop();
      const down = await h.request('GET', '/readyz', { key: null });
      assert.equal(down.status, 503);
      assert.deepEqual(down.json, { status: 'unavailable', checks: { database: 'ok', migrations: 'ok', redis: 'unreachable' }, upstreams: BUILTIN_UPSTREAMS });
      assert.equal((await h.request('GET', '/healthz', { key: null })).status, 200, 'the process is still alive');
    });
  });

  describe('with a real Redis (REDIS_URL)', { skip: SKIP_REDIS }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ env: { REDIS_URL: REDIS_URL! } });
    });
    after(() => h.close());

    it('/readyz answers 200 with Redis ok', async () => {
      const response = await h.request('GET', '/readyz', { key: null });
      assert.deepEqual(response.json, { status: 'ok', checks: { database: 'ok', migrations: 'ok', redis: 'ok' }, upstreams: BUILTIN_UPSTREAMS });
    });
  });

  describe('logs', () => {
    const lines: { msg: string; request_id?: string; level: number; checks?: unknown }[] = [];
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(...String(chunk).split('\n').filter(Boolean).map((line) => JSON.parse(line)));
        callback();
      },
    });
    let h: Harness;
    before(async () => {
      h = await startHarness({ logger: createLogger({ log: { level: 'info' } }, sink) });
    });
    after(() => h.close());

    it('probes are not logged; an API request is', async () => {
      const probes = [await h.request('GET', '/healthz', { key: null }), await h.request('GET', '/readyz', { key: null })];
      const api = await h.request('GET', '/v1/models');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const ids = probes.map((p) => p.headers.get('x-request-id')!);
      assert.deepEqual(lines.filter((line) => ids.includes(line.request_id!)), []);
      assert.ok(lines.some((line) => line.request_id === api.headers.get('x-request-id') && line.msg === 'request completed'));
    });

    it('a failed readiness check is logged at warn, with what failed', async () => {
      await sql`delete from schema_migrations where name = ${NEWEST_MIGRATION}`.execute(h.store.db);
      const response = await h.request('GET', '/readyz', { key: null });
      assert.equal(response.status, 503);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const logged = lines.find((line) => line.request_id === response.headers.get('x-request-id'));
      assert.equal(logged?.msg, 'not ready');
      assert.equal(logged?.level, 40);
      assert.deepEqual(logged?.checks, { database: 'ok', migrations: 'pending' });
    });
  });
});
