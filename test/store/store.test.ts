// The foundation repositories (organizations, API keys, instance settings, the ledger's grant
// path) and the first-start bootstrap, run against both backends: SQLite always, PostgreSQL when
// DATABASE_URL is set. Every PostgreSQL test works in its own schema, dropped afterwards.
//
// The ledger's reserve/settle side is being redesigned, so it is only touched here through
// organizations.create and ledger.grant / entries / recomputedBalance.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { bootstrapIfFirstStart, type BootstrapResult } from '../../src/accounts/bootstrap.ts';
import { createApiKey, hashSecret, KEY_PATTERN, KeySpecError } from '../../src/accounts/keys.ts';
import type { ApiKeyRecord } from '../../src/store/api-keys.ts';
import { migrate, type DatabaseOptions } from '../../src/store/database.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';
import { ORGANIZATION_STATUSES } from '../../src/store/tables.ts';
import { BACKENDS, createPostgresSchema, POSTGRES_URL, SKIP_POSTGRES, type Backend } from '../helpers/harness.ts';

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MIGRATION_NAMES = Object.keys(MIGRATIONS).sort();
const FOUNDATION_TABLES = ['organizations', 'api_keys', 'ledger_entries', 'instance_settings'] as const;
/** Just under Number.MAX_SAFE_INTEGER (9_007_199_254_740_991) and far beyond 2^31. */
const LARGE_MILLICENTS = 9_007_199_254_740_000;

interface Fixture {
  backend: Backend;
  /** The store opened for the test. */
  store: Store;
  /** Options that open the same database (SQLite file or PostgreSQL schema) again. */
  options: DatabaseOptions;
  /** Opens another store on the same database, closed with the fixture. */
  open(): Promise<Store>;
  /** Closes a store early (the fixture will not close it again). */
  close(store: Store): Promise<void>;
}

/** A fresh database for one test: a temp SQLite file, or a fresh PostgreSQL schema. Always cleaned up. */
async function withStore(backend: Backend, fn: (fixture: Fixture) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-store-test-'));
  const pgSchema = backend === 'postgres' ? await createPostgresSchema() : undefined;
  const options: DatabaseOptions = pgSchema
    ? { databaseUrl: POSTGRES_URL, dataDir, postgresSchema: pgSchema.schema }
    : { databaseUrl: undefined, dataDir };
  const opened = new Set<Store>();
  const open = async () => {
    const store = await openStore(options);
    opened.add(store);
    return store;
  };
  const close = async (store: Store) => {
    opened.delete(store);
    await store.close();
  };
  try {
    const store = await open();
    assert.equal(store.dialect, backend);
    await fn({ backend, store, options, open, close });
  } finally {
    for (const store of opened) await store.close().catch(() => {});
    await pgSchema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function migrationRows(store: Store): Promise<{ name: string; timestamp: string }[]> {
  const { rows } = await sql<{ name: string; timestamp: string }>`select name, timestamp from schema_migrations order by name`.execute(store.db);
  return rows;
}

function keyRecord(organizationId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const id = overrides.id ?? `key_${Math.random().toString(36).slice(2)}`;
  return {
    id,
    organization_id: organizationId,
    kind: 'project',
    environment: 'test',
    secret_hash: createHash('sha256').update(`secret-of-${id}`).digest('hex'),
    hint: 'sk_test_…abcd',
    name: null,
    scopes: '["*"]',
    models: '["*"]',
    created_at: 1_700_000_000_000,
    revoked_at: null,
    ...overrides,
  };
}

/** The whole stored row as text, to check a secret never reaches the database. */
async function storedKeyRowText(store: Store, id: string): Promise<string> {
  const row = await store.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return JSON.stringify(row);
}

/** Runs bootstrapIfFirstStart in a separate Node process on the SQLite file in dataDir, starting at startAt. */
async function bootstrapInChildProcess(dataDir: string, startAt: number): Promise<{ created: boolean; organizationId?: string }> {
  const code = `
    const { openStore } = await import(${JSON.stringify(new URL('../../src/store/index.ts', import.meta.url).href)});
    const { bootstrapIfFirstStart } = await import(${JSON.stringify(new URL('../../src/accounts/bootstrap.ts', import.meta.url).href)});
    const store = await openStore({ dataDir: process.env.INKWELL_TEST_DATA_DIR });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(process.env.INKWELL_TEST_START_AT) - Date.now())));
    try {
      const result = await bootstrapIfFirstStart(store, 1000);
      process.stdout.write(JSON.stringify({ created: !!result, organizationId: result?.organization.id }));
    } finally {
      await store.close();
    }
  `;
  const env: NodeJS.ProcessEnv = { ...process.env, INKWELL_TEST_DATA_DIR: dataDir, INKWELL_TEST_START_AT: String(startAt) };
  delete env.DATABASE_URL;
  const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, env, timeout: 30_000 });
  return JSON.parse(stdout);
}

function assertBootstrapResult(result: BootstrapResult | undefined, starter: number): asserts result is BootstrapResult {
  assert.ok(result, 'the first bootstrap creates the organization');
  assert.match(result.organization.id, /^org_/);
  assert.equal(result.organization.status, 'active');
  assert.equal(result.organization.balance_millicents, starter);
  const byKind = result.keys.map((k) => [k.record.kind, k.record.environment, k.secret.slice(0, k.secret.lastIndexOf('_') + 1)]);
  assert.deepEqual(byKind, [
    ['project', 'test', 'sk_test_'],
    ['project', 'live', 'sk_live_'],
    ['admin', null, 'sk_admin_'],
  ]);
  for (const key of result.keys) {
    assert.match(key.secret, KEY_PATTERN);
    assert.equal(key.record.secret_hash, hashSecret(key.secret));
    assert.equal(key.record.organization_id, result.organization.id);
  }
}

for (const { backend, skip } of BACKENDS) {
  describe(`store on ${backend}`, { skip }, () => {
    describe('migrations', () => {
      it('run on open: every migration is recorded once and the foundation tables exist', () =>
        withStore(backend, async ({ store }) => {
          const rows = await migrationRows(store);
          assert.deepEqual(
            rows.map((r) => r.name),
            MIGRATION_NAMES,
          );
          for (const table of FOUNDATION_TABLES) {
            const row = await store.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow();
            assert.equal(Number(row.n), 0, `${table} starts empty`);
          }
        }));

      it('are idempotent: the same database opens again (also while open) with one row per migration and its data kept', () =>
        withStore(backend, async ({ store, open, close }) => {
          const before = await migrationRows(store);
          const organization = await store.organizations.create('Survivor', 1234);
          await close(store);

          const reopened = await open();
          assert.deepEqual(await migrationRows(reopened), before, 'reopening applies nothing and rewrites nothing');
          assert.deepEqual(await reopened.organizations.get(organization.id), organization);

          const alongside = await open();
          assert.deepEqual(await migrationRows(alongside), before);
          await migrate(alongside.db, alongside.dialect);
          await migrate(alongside.db, alongside.dialect);
          assert.deepEqual(await migrationRows(reopened), before, 'running migrate again is a no-op');
          assert.equal((await alongside.organizations.list()).length, 1);
          assert.equal(await alongside.ledger.recomputedBalance(organization.id), 1234);
        }));

      it(
        'several stores opening a fresh database at once all succeed and migrate it once',
        () =>
          withStore(backend, async ({ store, options, open, close }) => {
            // Start from a database with no schema at all: drop what the fixture's open created.
            await close(store);
            if (backend === 'sqlite') {
              rmSync(options.dataDir, { recursive: true, force: true });
            } else {
              const admin = await open();
              await sql`drop schema ${sql.id(options.postgresSchema!)} cascade`.execute(admin.db);
              await sql`create schema ${sql.id(options.postgresSchema!)}`.execute(admin.db);
              await close(admin);
            }
            // allSettled, so every store that did open is tracked (and closed) before asserting.
            const settled = await Promise.allSettled([open(), open(), open()]);
            for (const result of settled) {
              if (result.status === 'rejected') throw result.reason;
              assert.deepEqual((await migrationRows(result.value)).map((r) => r.name), MIGRATION_NAMES);
            }
          }),
      );
    });

    describe('organizations', () => {
      it('create without starting credits: active, zero balance, no ledger entry; get returns the same row', () =>
        withStore(backend, async ({ store }) => {
          const now = 1_700_000_000_123;
          const organization = await store.organizations.create('Acme', 0, now);
          assert.match(organization.id, /^org_[0-9A-Z]{26}$/);
          assert.equal(organization.name, 'Acme');
          assert.equal(organization.status, 'active');
          assert.equal(organization.balance_millicents, 0);
          assert.equal(organization.created_at, now);
          assert.deepEqual(await store.organizations.get(organization.id), organization);
          assert.deepEqual(await store.ledger.entries(organization.id), []);
          assert.equal(await store.ledger.recomputedBalance(organization.id), 0);
        }));

      it('create with starting credits writes one grant entry, and the balance always equals the sum of the entries', () =>
        withStore(backend, async ({ store }) => {
          const organization = await store.organizations.create('Funded', 50_000);
          assert.equal(organization.balance_millicents, 50_000);
          const [entry, ...rest] = await store.ledger.entries(organization.id);
          assert.deepEqual(rest, []);
          assert.equal(entry!.kind, 'grant');
          assert.equal(entry!.organization_id, organization.id);
          assert.equal(entry!.amount_millicents, 50_000);
          assert.equal(entry!.balance_after_millicents, 50_000);
          assert.equal(entry!.note, 'starting credits');
          assert.match(entry!.id, /^led_/);
          assert.equal((await store.organizations.get(organization.id))!.balance_millicents, 50_000);
          assert.equal(await store.ledger.recomputedBalance(organization.id), 50_000);

          const grant = await store.ledger.grant(organization.id, 2_500, 'top-up');
          assert.equal(grant.balance_after_millicents, 52_500);
          const entries = await store.ledger.entries(organization.id);
          assert.equal(entries.length, 2);
          const sum = entries.reduce((total, e) => total + e.amount_millicents, 0);
          assert.equal(sum, 52_500);
          assert.equal(await store.ledger.recomputedBalance(organization.id), sum);
          assert.equal((await store.organizations.get(organization.id))!.balance_millicents, sum);
        }));

      it('ledger.grant rejects non-positive or fractional amounts and unknown organizations without writing', () =>
        withStore(backend, async ({ store }) => {
          const organization = await store.organizations.create('Strict', 100);
          for (const amount of [0, -5, 1.5, Number.NaN]) {
            await assert.rejects(store.ledger.grant(organization.id, amount), RangeError, `grant of ${amount}`);
          }
          await assert.rejects(store.ledger.grant('org_00000000000000000000000000', 10), /does not exist/);
          assert.equal((await store.ledger.entries(organization.id)).length, 1);
          assert.equal((await store.organizations.get(organization.id))!.balance_millicents, 100);
          assert.equal(await store.ledger.recomputedBalance('org_00000000000000000000000000'), 0);
        }));

      it('list orders by creation time, then id; get of an unknown id is undefined', () =>
        withStore(backend, async ({ store }) => {
          assert.deepEqual(await store.organizations.list(), []);
          const t = 1_700_000_000_000;
          const third = await store.organizations.create('third', 0, t + 2);
          const first = await store.organizations.create('first', 0, t);
          const second = await store.organizations.create('second', 0, t + 1);
          const tiedA = await store.organizations.create('tied a', 0, t + 3);
          const tiedB = await store.organizations.create('tied b', 0, t + 3);
          const tied = [tiedA, tiedB].sort((a, b) => (a.id < b.id ? -1 : 1));
          assert.deepEqual(
            (await store.organizations.list()).map((o) => o.id),
            [first, second, third, ...tied].map((o) => o.id),
          );
          assert.equal(await store.organizations.get('org_00000000000000000000000000'), undefined);
          assert.equal(await store.organizations.get(''), undefined);
        }));

      it('setStatus accepts every organization status and reports unknown ids', () =>
        withStore(backend, async ({ store }) => {
          const organization = await store.organizations.create('Moody');
          const other = await store.organizations.create('Bystander');
          for (const status of ORGANIZATION_STATUSES) {
            assert.equal(await store.organizations.setStatus(organization.id, status), true, status);
            assert.equal((await store.organizations.get(organization.id))!.status, status);
          }
          assert.equal((await store.organizations.get(other.id))!.status, 'active', 'only the one organization changes');
          assert.equal(await store.organizations.setStatus('org_00000000000000000000000000', 'frozen'), false);
        }));

      it('store.transaction commits everything or nothing', () =>
        withStore(backend, async ({ store }) => {
          await assert.rejects(
            store.transaction(async (tx) => {
              await tx.organizations.create('Rolled back', 500);
              throw new Error('abort');
            }),
            /abort/,
          );
          assert.deepEqual(await store.organizations.list(), []);
          assert.equal(await store.ledger.recomputedBalance('anything'), 0);
          const created = await store.transaction((tx) => tx.organizations.create('Committed', 500));
          assert.deepEqual(await store.organizations.get(created.id), created);
          assert.equal(await store.ledger.recomputedBalance(created.id), 500);
        }));
    });

    describe('api keys', () => {
      it('insert, get and findBySecretHash return the record with its organization status', () =>
        withStore(backend, async ({ store }) => {
          const organization = await store.organizations.create('Keyed');
          const record = keyRecord(organization.id, { name: 'ci', scopes: '["svg_generate"]', models: '["m1","m2"]' });
          await store.apiKeys.insert(record);
          assert.deepEqual(await store.apiKeys.get(record.id), record);
          assert.deepEqual(await store.apiKeys.findBySecretHash(record.secret_hash), { ...record, organization_status: 'active' });

          await store.organizations.setStatus(organization.id, 'frozen');
          assert.equal((await store.apiKeys.findBySecretHash(record.secret_hash))!.organization_status, 'frozen');

          assert.equal(await store.apiKeys.findBySecretHash(hashSecret('sk_test_unknown')), undefined);
          assert.equal(await store.apiKeys.get('key_unknown'), undefined);
        }));

      it('listByOrganization lists only that organization, by creation time then id, revoked keys included', () =>
        withStore(backend, async ({ store }) => {
          const mine = await store.organizations.create('Mine');
          const theirs = await store.organizations.create('Theirs');
          const late = keyRecord(mine.id, { id: 'key_c', created_at: 3_000 });
          const early = keyRecord(mine.id, { id: 'key_b', created_at: 1_000 });
          const tieB = keyRecord(mine.id, { id: 'key_e', created_at: 2_000 });
          const tieA = keyRecord(mine.id, { id: 'key_d', created_at: 2_000 });
          const foreign = keyRecord(theirs.id, { id: 'key_a', created_at: 500 });
          for (const r of [late, early, tieB, foreign, tieA]) await store.apiKeys.insert(r);
          assert.equal(await store.apiKeys.revoke(late.id, 4_000), true);
          assert.deepEqual(
            (await store.apiKeys.listByOrganization(mine.id)).map((r) => r.id),
            ['key_b', 'key_d', 'key_e', 'key_c'],
          );
          assert.deepEqual(await store.apiKeys.listByOrganization(theirs.id), [foreign]);
          assert.deepEqual(await store.apiKeys.listByOrganization('org_none'), []);
        }));

      it('revoke succeeds once, then reports false; unknown ids report false', () =>
        withStore(backend, async ({ store }) => {
          const organization = await store.organizations.create('Revoker');
          const record = keyRecord(organization.id);
          await store.apiKeys.insert(record);
          assert.equal(await store.apiKeys.revoke(record.id, 1_700_000_001_000), true);
          assert.equal((await store.apiKeys.get(record.id))!.revoked_at, 1_700_000_001_000);
          assert.equal(await store.apiKeys.revoke(record.id, 1_700_000_002_000), false);
          assert.equal((await store.apiKeys.get(record.id))!.revoked_at, 1_700_000_001_000, 'the first revocation time is kept');
          assert.equal((await store.apiKeys.findBySecretHash(record.secret_hash))!.revoked_at, 1_700_000_001_000);
          assert.equal(await store.apiKeys.revoke('key_unknown'), false);
        }));

      it('secret_hash is unique, and keys must belong to an existing organization', () =>
        withStore(backend, async ({ store }) => {
          const organization = await store.organizations.create('Unique');
          const record = keyRecord(organization.id, { id: 'key_one' });
          await store.apiKeys.insert(record);
          await assert.rejects(store.apiKeys.insert(keyRecord(organization.id, { id: 'key_two', secret_hash: record.secret_hash })));
          await assert.rejects(store.apiKeys.insert(keyRecord('org_missing', { id: 'key_three' })));
          assert.deepEqual(
            (await store.apiKeys.listByOrganization(organization.id)).map((r) => r.id),
            ['key_one'],
          );
          assert.equal(await store.apiKeys.get('key_three'), undefined);
        }));

      it('createApiKey returns the secret once and stores only its SHA-256 hash', () =>
        withStore(backend, async ({ store }) => {
          const organization = await store.organizations.create('Minted');
          const specs = [
            { kind: 'project', environment: 'test', prefix: 'sk_test_', scopes: ['svg_generate', 'svg_generate'], models: ['b', 'a', 'b'] },
            { kind: 'project', environment: 'live', prefix: 'sk_live_', scopes: ['*', 'svg_generate'], models: ['*'] },
            { kind: 'admin', environment: null, prefix: 'sk_admin_', scopes: ['*'], models: [] },
          ] as const;
          const secrets = new Set<string>();
          for (const spec of specs) {
            const now = 1_700_000_000_000 + secrets.size;
            const { record, secret } = await createApiKey(
              store,
              { organizationId: organization.id, kind: spec.kind, environment: spec.environment, scopes: [...spec.scopes], models: [...spec.models], name: `${spec.prefix}key` },
              now,
            );
            secrets.add(secret);
            assert.match(secret, KEY_PATTERN);
            assert.ok(secret.startsWith(spec.prefix), secret);
            assert.equal(record.secret_hash, createHash('sha256').update(secret).digest('hex'));
            assert.equal(record.hint, `${spec.prefix}…${secret.slice(-4)}`);
            assert.equal(record.created_at, now);
            assert.equal(record.revoked_at, null);

            const stored = await store.apiKeys.get(record.id);
            assert.deepEqual(stored, record);
            const rowText = await storedKeyRowText(store, record.id);
            assert.ok(!rowText.includes(secret.slice(spec.prefix.length)), 'the secret is never stored');
            assert.deepEqual(await store.apiKeys.findBySecretHash(hashSecret(secret)), { ...record, organization_status: 'active' });
          }
          assert.equal(secrets.size, 3);
          const [test, live, admin] = await store.apiKeys.listByOrganization(organization.id);
          assert.deepEqual([JSON.parse(test!.scopes), JSON.parse(test!.models)], [['svg_generate'], ['a', 'b']]);
          assert.deepEqual([JSON.parse(live!.scopes), JSON.parse(live!.models)], [['*'], ['*']]);
          assert.deepEqual([JSON.parse(admin!.scopes), JSON.parse(admin!.models)], [['*'], []]);
          assert.doesNotMatch('sk_test_short', KEY_PATTERN);
          assert.doesNotMatch(`sk_prod_${'a'.repeat(43)}`, KEY_PATTERN);
        }));

      it('createApiKey refuses unknown organizations and invalid specs without writing', () =>
        withStore(backend, async ({ store }) => {
          const organization = await store.organizations.create('Careful');
          await assert.rejects(
            createApiKey(store, { organizationId: 'org_missing', kind: 'project', environment: 'test', scopes: ['*'], models: ['*'] }),
            KeySpecError,
          );
          await assert.rejects(
            createApiKey(store, { organizationId: organization.id, kind: 'project', environment: null, scopes: ['*'], models: ['*'] }),
            KeySpecError,
          );
          await assert.rejects(
            createApiKey(store, { organizationId: organization.id, kind: 'admin', environment: 'live', scopes: ['*'], models: [] }),
            KeySpecError,
          );
          await assert.rejects(
            createApiKey(store, { organizationId: organization.id, kind: 'project', environment: 'test', scopes: ['no_such_capability'], models: ['*'] }),
            KeySpecError,
          );
          assert.deepEqual(await store.apiKeys.listByOrganization(organization.id), []);
          assert.deepEqual(await store.apiKeys.listByOrganization('org_missing'), []);
        }));
    });

    describe('instance settings', () => {
      it('claim sets a key only once', () =>
        withStore(backend, async ({ store }) => {
          assert.equal(await store.settings.get('bootstrapped_at'), undefined);
          assert.equal(await store.settings.claim('bootstrapped_at', 'first', 1_000), true);
          assert.equal(await store.settings.claim('bootstrapped_at', 'second', 2_000), false);
          assert.equal(await store.settings.get('bootstrapped_at'), 'first');
          assert.equal(await store.settings.claim('other_key', 'x'), true, 'keys are independent');
        }));

      it('exactly one of several concurrent claims (from one store and from a second store) wins', () =>
        withStore(backend, async ({ store, open }) => {
          const second = await open();
          const contenders = Array.from({ length: 8 }, (_, i) => ({ value: `claimant-${i}`, store: i % 2 ? second : store }));
          const results = await Promise.all(contenders.map((c) => c.store.settings.claim('race', c.value)));
          assert.equal(results.filter(Boolean).length, 1, `exactly one claim wins: ${results}`);
          const winner = contenders[results.indexOf(true)]!;
          assert.equal(await store.settings.get('race'), winner.value);
          assert.equal(await second.settings.get('race'), winner.value);
        }));
    });

    describe('bootstrapIfFirstStart', () => {
      it('on an empty database creates one organization with starter credits and test, live and admin keys, once', () =>
        withStore(backend, async ({ store }) => {
          const result = await bootstrapIfFirstStart(store, 25_000);
          assertBootstrapResult(result, 25_000);
          assert.deepEqual(await store.organizations.list(), [result.organization]);
          // The three keys share a millisecond, and ids are random within one, so compare by id.
          const byId = (a: ApiKeyRecord, b: ApiKeyRecord) => (a.id < b.id ? -1 : 1);
          assert.deepEqual(
            (await store.apiKeys.listByOrganization(result.organization.id)).sort(byId),
            result.keys.map((k) => k.record).sort(byId),
          );
          for (const key of result.keys) {
            const found = await store.apiKeys.findBySecretHash(hashSecret(key.secret));
            assert.equal(found?.id, key.record.id);
            assert.equal(found?.organization_status, 'active');
            assert.ok(!(await storedKeyRowText(store, key.record.id)).includes(key.secret.slice(-43)));
          }
          const entries = await store.ledger.entries(result.organization.id);
          assert.deepEqual(entries.map((e) => [e.kind, e.amount_millicents]), [['grant', 25_000]]);
          assert.equal(await store.ledger.recomputedBalance(result.organization.id), 25_000);
          assert.ok(await store.settings.get('bootstrapped_at'));

          assert.equal(await bootstrapIfFirstStart(store, 25_000), undefined, 'the second start creates nothing and reveals no secret');
          assert.equal((await store.organizations.list()).length, 1);
          assert.equal((await store.apiKeys.listByOrganization(result.organization.id)).length, 3);
        }));

      it('does nothing on a database that already has organizations', () =>
        withStore(backend, async ({ store }) => {
          const existing = await store.organizations.create('Created by the CLI');
          assert.equal(await bootstrapIfFirstStart(store, 25_000), undefined);
          assert.deepEqual(await store.organizations.list(), [existing]);
          assert.deepEqual(await store.apiKeys.listByOrganization(existing.id), []);
        }));

      it('two concurrent calls on one store create exactly one organization', () =>
        withStore(backend, async ({ store }) => {
          const results = await Promise.all([bootstrapIfFirstStart(store, 1_000), bootstrapIfFirstStart(store, 1_000)]);
          const created = results.filter((r) => r !== undefined);
          assert.equal(created.length, 1);
          assertBootstrapResult(created[0], 1_000);
          const organizations = await store.organizations.list();
          assert.deepEqual(organizations.map((o) => o.id), [created[0].organization.id]);
          assert.equal((await store.apiKeys.listByOrganization(created[0].organization.id)).length, 3);
        }));

      it('replicas starting together on one database create exactly one organization', { timeout: 60_000 }, () =>
        withStore(backend, async ({ store, options, open }) => {
          let createdIds: string[];
          if (backend === 'postgres') {
            // Separate stores are separate connection pools, as separate replicas would have.
            const replicas = await Promise.all([open(), open(), open()]);
            const results = await Promise.all(replicas.map((r) => bootstrapIfFirstStart(r, 1_000)));
            createdIds = results.flatMap((r) => (r ? [r.organization.id] : []));
          } else {
            // A SQLite file is shared between processes (one process' connections would block its
            // own event loop on the file lock), so each replica is its own Node process.
            const startAt = Date.now() + 3_000;
            const results = await Promise.all([1, 2].map(() => bootstrapInChildProcess(options.dataDir, startAt)));
            createdIds = results.flatMap((r) => (r.created ? [r.organizationId!] : []));
          }
          assert.equal(createdIds.length, 1, 'exactly one replica bootstraps');
          assert.deepEqual((await store.organizations.list()).map((o) => o.id), createdIds);
          assert.equal((await store.apiKeys.listByOrganization(createdIds[0]!)).length, 3);
          assert.equal(await store.ledger.recomputedBalance(createdIds[0]!), 1_000);
        }));
    });

    describe('bigint columns', () => {
      it('round-trip as JavaScript numbers, including balances near Number.MAX_SAFE_INTEGER', () =>
        withStore(backend, async ({ store }) => {
          const now = 1_760_000_000_000;
          const organization = await store.organizations.create('Whale', LARGE_MILLICENTS, now);
          const stored = (await store.organizations.get(organization.id))!;
          assert.deepEqual(stored, organization);
          assert.equal(typeof stored.balance_millicents, 'number');
          assert.equal(stored.balance_millicents, LARGE_MILLICENTS);
          assert.equal(typeof stored.created_at, 'number');
          assert.equal(stored.created_at, now);
          assert.equal(typeof stored.reserved_millicents, 'number');
          assert.equal(typeof stored.token_remainder, 'number');

          const [listed] = await store.organizations.list();
          assert.strictEqual(listed!.balance_millicents, LARGE_MILLICENTS);

          const [entry] = await store.ledger.entries(organization.id);
          assert.strictEqual(entry!.amount_millicents, LARGE_MILLICENTS);
          assert.strictEqual(entry!.balance_after_millicents, LARGE_MILLICENTS);
          assert.strictEqual(entry!.created_at, now);
          assert.strictEqual(await store.ledger.recomputedBalance(organization.id), LARGE_MILLICENTS);

          const record = keyRecord(organization.id, { created_at: now });
          await store.apiKeys.insert(record);
          await store.apiKeys.revoke(record.id, now + 1);
          const key = (await store.apiKeys.findBySecretHash(record.secret_hash))!;
          assert.strictEqual(key.created_at, now);
          assert.strictEqual(key.revoked_at, now + 1);

          await store.settings.claim('big', 'v', now);
          const setting = await store.db.selectFrom('instance_settings').selectAll().where('key', '=', 'big').executeTakeFirstOrThrow();
          assert.strictEqual(setting.updated_at, now);
        }));
    });
  });
}

describe('store on postgres: schema isolation', { skip: SKIP_POSTGRES }, () => {
  it(
    'a store in one schema migrates while another schema already holds Inkwell tables',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-store-test-'));
      const first = await createPostgresSchema();
      const second = await createPostgresSchema();
      const stores: Store[] = [];
      try {
        stores.push(await openStore({ databaseUrl: POSTGRES_URL, dataDir, postgresSchema: first.schema }));
        stores.push(await openStore({ databaseUrl: POSTGRES_URL, dataDir, postgresSchema: second.schema }));
        for (const store of stores) assert.deepEqual((await migrationRows(store)).map((r) => r.name), MIGRATION_NAMES);
      } finally {
        for (const store of stores) await store.close();
        await first.drop();
        await second.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});

describe('PostgreSQL with the schema chosen by the URL (search_path)', { skip: SKIP_POSTGRES }, () => {
  it('migrates into that schema even when another schema of the database already has its tables', async () => {
    const other = await createPostgresSchema();
    const ours = await createPostgresSchema();
    const urlFor = (schema: string) => {
      const url = new URL(POSTGRES_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return url.toString();
    };
    const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-search-path-'));
    try {
      const first = await openStore({ dataDir, databaseUrl: urlFor(other.schema) });
      await first.close();
      const store = await openStore({ dataDir, databaseUrl: urlFor(ours.schema) });
      try {
        const organization = await store.organizations.create('In its own schema', 10);
        const { rows } = await sql<{ schema: string }>`select table_schema as schema from information_schema.tables where table_name = 'organizations'`.execute(store.db);
        assert.ok(rows.some((row) => row.schema === ours.schema), 'the tables were created in the schema of the URL');
        assert.equal(await store.ledger.recomputedBalance(organization.id), 10);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await other.drop();
      await ours.drop();
    }
  });
});
