// Ids minted in the same millisecond sort in the order they were minted, so `key list` and the
// ledger (ordered by created_at, then id) read in creation order.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createApiKey } from '../../src/accounts/keys.ts';
import { ID_PREFIX, newId, type IdKind } from '../../src/contract/ids.ts';
import { recordLedgerEntry } from '../../src/store/ledger.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { BACKENDS, createPostgresSchema, POSTGRES_URL, type Backend } from '../helpers/harness.ts';

const BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const body = (id: string) => id.slice(id.indexOf('_') + 1);

function assertStrictlyIncreasing(values: string[], what: string): void {
  for (let i = 1; i < values.length; i++) {
    assert.ok(values[i - 1]! < values[i]!, `${what}: #${i} ${values[i]} does not sort after ${values[i - 1]}`);
  }
}

describe('ids', () => {
  it('10 000 ids minted in a tight loop sort in minting order, for one kind', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('ledgerEntry'));
    for (const id of ids) assert.match(id, /^led_[0-9A-HJKMNP-TV-Z]{26}$/);
    assertStrictlyIncreasing(ids, 'ledger entry ids');
  });

  it('and across kinds, by their bodies', () => {
    const kinds = Object.keys(ID_PREFIX) as IdKind[];
    const ids = Array.from({ length: 10_000 }, (_, i) => newId(kinds[i % kinds.length]!));
    ids.forEach((id, i) => assert.ok(id.startsWith(`${ID_PREFIX[kinds[i % kinds.length]!]}_`) && BODY.test(body(id)), id));
    assertStrictlyIncreasing(ids.map(body), 'id bodies');
  });

  it('a given time, even one earlier than the last id, still mints ids that sort after it', () => {
    const now = Date.now();
    const ids = [newId('apiKey', now), newId('apiKey', now), newId('apiKey', now - 60_000), newId('apiKey', 1_700_000_000_000), newId('apiKey')];
    assertStrictlyIncreasing(ids, 'ids with given times');
  });
});

async function withStore(backend: Backend, fn: (store: Store) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-id-order-'));
  const pgSchema = backend === 'postgres' ? await createPostgresSchema() : undefined;
  const store = await openStore({ dataDir, databaseUrl: pgSchema ? POSTGRES_URL : undefined, postgresSchema: pgSchema?.schema });
  try {
    await fn(store);
  } finally {
    await store.close();
    await pgSchema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const { backend, skip } of BACKENDS) {
  describe(`creation order on ${backend}`, { skip }, () => {
    it('key list reads keys created in the same millisecond in creation order', () =>
      withStore(backend, async (store) => {
        const organization = await store.organizations.create('Same instant');
        const now = Date.now();
        const created: string[] = [];
        for (let i = 0; i < 30; i++) {
          const { record } = await createApiKey(store, { organizationId: organization.id, kind: 'project', environment: 'test', scopes: ['*'], models: ['*'], name: `key ${i}` }, now);
          created.push(record.id);
        }
        const listed = await store.apiKeys.listByOrganization(organization.id);
        assert.deepEqual(listed.map((k) => k.name), created.map((_, i) => `key ${i}`));
        assert.deepEqual(listed.map((k) => k.id), created);
      }));

    it('the ledger reads entries written in the same millisecond newest first, in creation order', () =>
      withStore(backend, async (store) => {
        const organization = await store.organizations.create('Same instant');
        const now = Date.now();
        for (let i = 1; i <= 30; i++) {
          await store.db.transaction().execute((trx) => recordLedgerEntry(trx, { organizationId: organization.id, kind: 'grant', amountMillicents: i, now }));
        }
        const entries = await store.ledger.entries(organization.id);
        assert.deepEqual(entries.map((e) => e.amount_millicents), Array.from({ length: 30 }, (_, i) => 30 - i));
        // Read in that order, each balance follows from the one before it.
        assert.deepEqual(entries.map((e) => e.balance_after_millicents), Array.from({ length: 30 }, (_, i) => ((30 - i) * (31 - i)) / 2));
      }));
  });
}
