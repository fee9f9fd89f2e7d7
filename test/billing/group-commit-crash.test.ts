// The ledger's group commit killed mid-batch: a child process hammers reserve and settle for one
// organization (many requests per transaction) and is killed with SIGKILL while batches are
// committing. Reopened, the store must hold whole requests only: every ledger invariant holds,
// and recovery then closes what was left open without charging anything twice.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { recoverOrphanedReservations } from '../../src/billing/recovery.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { ledgerTotals } from '../helpers/billing.ts';
import { BACKENDS, createPostgresSchema, POSTGRES_URL } from '../helpers/harness.ts';

const HAMMER = join(import.meta.dirname, '../helpers/ledger-hammer.ts');
const BALANCE = 5_000_000; // millicents: room for thousands of cycles, and refusals near the end of a long run

/** Every reservation's entries are exactly those of a whole request in its state. */
async function assertWholeRequests(store: Store, organizationId: string): Promise<void> {
  const entries = await store.ledger.entries(organizationId, 1_000_000);
  const byReservation = new Map<string, string[]>();
  for (const entry of entries) {
    if (entry.reservation_id === null) continue;
    byReservation.set(entry.reservation_id, [...(byReservation.get(entry.reservation_id) ?? []), entry.kind]);
  }
  const reservations = await store.db.selectFrom('reservations').selectAll().where('organization_id', '=', organizationId).execute();
  assert.equal(byReservation.size, reservations.length, 'every reservation has entries, and every entry a reservation');
  let openHeld = 0;
  for (const reservation of reservations) {
    const kinds = (byReservation.get(reservation.id) ?? []).sort().join(',');
    const charged = reservation.settled_millicents ?? 0;
    if (reservation.status === 'open') {
      assert.equal(kinds, 'reserve', `open ${reservation.id}: only its reserve entry`);
      openHeld += reservation.amount_millicents;
    } else if (reservation.status === 'released') {
      assert.equal(kinds, 'release,reserve', `released ${reservation.id}`);
    } else {
      const partial = charged < reservation.amount_millicents;
      assert.equal(kinds, partial ? 'release,reserve,settle' : 'reserve,settle', `settled ${reservation.id}`);
    }
  }
  const totals = await ledgerTotals(store, organizationId);
  assert.equal(totals.reserved, openHeld, 'reserved equals the sum of open reservations');
  const charged = reservations.reduce((sum, r) => sum + (r.settled_millicents ?? 0), 0);
  assert.equal(totals.balance, BALANCE - charged, 'the balance is the start less every settled charge');
}

/** Starts the hammer and resolves once it has finished `cycles` cycles, so batches are committing when it is killed. */
function hammer(args: string[], cycles: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', HAMMER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const busy = new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`the hammer exited (${code ?? signal}) before ${cycles} cycles`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (Number(line) >= cycles) resolve();
    });
  });
  return { child, exited, busy };
}

for (const { backend, skip } of BACKENDS) {
  describe(`the ledger's group commit killed mid-batch, on ${backend}`, { skip }, () => {
    it('leaves whole requests only, and recovery closes the rest exactly once', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-batch-crash-'));
      const pgSchema = backend === 'postgres' ? await createPostgresSchema() : undefined;
      const databaseUrl = pgSchema ? POSTGRES_URL : undefined;
      let store: Store | undefined = await openStore({ dataDir, databaseUrl, postgresSchema: pgSchema?.schema });
      const organization = await store.organizations.create('Hammered', BALANCE);
      // The child opens the store itself; this one is closed so it holds no connection meanwhile.
      await store.close();
      store = undefined;
      const run = hammer([dataDir, organization.id, ...(pgSchema ? [POSTGRES_URL!, pgSchema.schema] : [])], 1500);
      try {
        await run.busy;
        run.child.kill('SIGKILL');
        await run.exited;

        store = await openStore({ dataDir, databaseUrl, postgresSchema: pgSchema?.schema });
        await assertWholeRequests(store, organization.id);
        // Requests in flight hold open reservations (unless the kill fell between their batches).
        const open = await store.reservations.listOpen(organization.id);

        // The dead process never heartbeat: its open reservations are all orphans. Nothing was
        // recorded as delivered (JSON-like requests count in memory), so all are released.
        assert.equal(await recoverOrphanedReservations(store, 0), open.length);
        assert.equal(await recoverOrphanedReservations(store, 0), 0, 'a second sweep finds nothing');
        await assertWholeRequests(store, organization.id);
        assert.equal((await ledgerTotals(store, organization.id)).reserved, 0);
      } finally {
        run.child.kill('SIGKILL');
        await store?.close();
        await pgSchema?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
