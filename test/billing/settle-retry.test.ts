// A settlement that fails on a live process (a database error) is retried on the request and,
// failing that, by the lease's sweep: the reservation never stays open while its process lives,
// the client still gets the answer it was sent, and the charge is exact — once, for what was
// delivered. The real store is wrapped so that reservations.close fails as told.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Billing, Hold } from '../../src/billing/billing.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { ledgerTotals, PAID_CONFIG, PAID_FIXED_PRICE as PRICE, reserveThree, startBillingProcess } from '../helpers/billing.ts';
import { BACKENDS, createPostgresSchema, POSTGRES_URL, startHarness, type Backend, type Harness } from '../helpers/harness.ts';
import { readStream } from '../helpers/sse.ts';

/**
 * Wraps store.reservations.close in place: it fails while told to, before touching the database
 * or (`afterCommit`) after its transaction committed, as a connection lost at the wrong moment.
 */
function flakyClose(store: Store) {
  const repository = store.reservations;
  const real = repository.close.bind(repository);
  let failures = 0;
  let afterCommit = false;
  const state = { calls: 0 };
  repository.close = async (...args) => {
    state.calls++;
    if (failures > 0) {
      failures--;
      if (afterCommit) await real(...args);
      throw new Error('connection terminated unexpectedly');
    }
    return real(...args);
  };
  return {
    state,
    failNext(times: number, options: { afterCommit?: boolean } = {}) {
      failures = times;
      afterCommit = options.afterCommit ?? false;
    },
    heal() {
      failures = 0;
    },
    restore() {
      repository.close = real;
    },
  };
}

async function waitFor(probe: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function entriesOf(store: Store, organizationId: string, reservationId: string) {
  const entries = await store.ledger.entries(organizationId, 1000);
  return entries
    .filter((e) => e.reservation_id === reservationId)
    .reverse()
    .map((e) => [e.kind, e.amount_millicents, e.reserved_delta_millicents]);
}

async function openTestStore(backend: Backend): Promise<{ store: Store; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-settle-'));
  const pgSchema = backend === 'postgres' ? await createPostgresSchema() : undefined;
  const store = await openStore({ dataDir, databaseUrl: pgSchema ? POSTGRES_URL : undefined, postgresSchema: pgSchema?.schema });
  return {
    store,
    async drop() {
      await store.close();
      await pgSchema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

for (const { backend, skip } of BACKENDS) {
  describe(`a failing settlement on ${backend}: Billing and the lease`, { skip }, () => {
    let store: Store;
    let drop: () => Promise<void>;
    let flaky: ReturnType<typeof flakyClose>;
    before(async () => {
      ({ store, drop } = await openTestStore(backend));
      flaky = flakyClose(store);
    });
    after(async () => {
      flaky.restore();
      await drop();
    });

    /** A live process: its lease (heartbeating, sweeping on its timer) and its billing. */
    const startProcess = (leaseMs = 60_000) => startBillingProcess(store, { leaseMs });

    /** Reserves 3 outputs and delivers two of them, as a JSON request does (counts in memory only). */
    async function holdWithTwoDelivered(billing: Billing, organizationId: string): Promise<Hold> {
      const hold = await reserveThree(billing, organizationId);
      await hold.deliver(undefined, false);
      await hold.deliver(undefined, false);
      return hold;
    }

    it('deliveries recorded in the same turn, by several requests, each land with their own count', async () => {
      const { lease, billing } = await startProcess();
      const org = await store.organizations.create('Together', 100_000);
      const holds = await Promise.all([0, 1, 2].map(() => reserveThree(billing, org.id)));
      // Persisted deliveries (a stream's, one after the other per request) of one turn share one SQLite transaction.
      await Promise.all(
        holds.map(async (hold, i) => {
          for (let n = 0; n <= i; n++) await hold.deliver(undefined, true);
        }),
      );
      const open = await store.reservations.listOpen(org.id);
      assert.deepEqual(
        holds.map((hold) => open.find((reservation) => reservation.id === hold.reservation.id)?.delivered_outputs),
        [1, 2, 3],
      );
      for (const hold of holds) await hold.settle();
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000 - 6 * PRICE, reserved: 0 });
      await lease.stop();
    });

    it('a close that fails twice is retried on the request: charged once, the rest released', async () => {
      const { lease, billing } = await startProcess();
      const org = await store.organizations.create('Twice', 100_000);
      const hold = await holdWithTwoDelivered(billing, org.id);
      flaky.failNext(2);
      const calls = flaky.state.calls;
      assert.deepEqual(await hold.settle(), { status: 'settled', chargedMillicents: 2 * PRICE });
      assert.equal(flaky.state.calls - calls, 3, 'two failures, then the close that worked');
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000 - 2 * PRICE, reserved: 0 });
      assert.deepEqual(await entriesOf(store, org.id, hold.reservation.id), [
        ['reserve', 0, 3 * PRICE],
        ['settle', -2 * PRICE, -2 * PRICE],
        ['release', 0, -PRICE],
      ]);
      assert.equal(lease.unsettled.size, 0);
      await lease.stop();
    });

    it('a close that keeps failing is handed to the sweep, which settles the delivered outputs exactly once', async () => {
      const { lease, billing } = await startProcess();
      const org = await store.organizations.create('Sweep', 100_000);
      const hold = await holdWithTwoDelivered(billing, org.id);
      flaky.failNext(Infinity);
      assert.deepEqual(await hold.settle(), { status: 'deferred' });
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000, reserved: 3 * PRICE }, 'still held, nothing lost');
      assert.equal(lease.unsettled.size, 1);
      const [open] = await store.reservations.listOpen(org.id);
      assert.equal(open!.delivered_outputs, 2, 'the delivered count is recorded, should the process die before the sweep');

      await lease.sweep();
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000, reserved: 3 * PRICE }, 'a sweep while the database still fails changes nothing');
      assert.equal(lease.unsettled.size, 1);

      flaky.heal();
      await lease.sweep();
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000 - 2 * PRICE, reserved: 0 });
      assert.equal(lease.unsettled.size, 0);
      await lease.sweep();
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000 - 2 * PRICE, reserved: 0 }, 'a later sweep charges nothing more');
      assert.deepEqual(await entriesOf(store, org.id, hold.reservation.id), [
        ['reserve', 0, 3 * PRICE],
        ['settle', -2 * PRICE, -2 * PRICE],
        ['release', 0, -PRICE],
      ]);
      await lease.stop();
    });

    it('the lease timer picks it up on its own', async () => {
      const { lease, billing } = await startProcess(400);
      const org = await store.organizations.create('Timer', 100_000);
      const hold = await holdWithTwoDelivered(billing, org.id);
      flaky.failNext(Infinity);
      assert.deepEqual(await hold.settle(), { status: 'deferred' });
      flaky.heal();
      await waitFor(async () => (await ledgerTotals(store, org.id)).reserved === 0, 'the sweep to settle');
      assert.equal((await ledgerTotals(store, org.id)).balance, 100_000 - 2 * PRICE);
      assert.equal(lease.unsettled.size, 0);
      await lease.stop();
    });

    it('a close that committed but reported a failure is not charged twice by its retry', async () => {
      const { lease, billing } = await startProcess();
      const org = await store.organizations.create('Committed', 100_000);
      const hold = await holdWithTwoDelivered(billing, org.id);
      flaky.failNext(1, { afterCommit: true });
      assert.equal((await hold.settle()).status, 'settled');
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000 - 2 * PRICE, reserved: 0 });
      assert.equal((await entriesOf(store, org.id, hold.reservation.id)).filter(([kind]) => kind === 'settle').length, 1);
      await lease.stop();
    });

    it('a streamed output whose delivery record fails is not sent, so it is not charged', async () => {
      const { lease, billing } = await startProcess();
      const org = await store.organizations.create('Unrecorded', 100_000);
      const hold = await reserveThree(billing, org.id);
      await hold.deliver(undefined, true);
      const record = store.reservations.recordDelivery;
      store.reservations.recordDelivery = async () => {
        throw new Error('connection terminated unexpectedly');
      };
      try {
        await assert.rejects(hold.deliver(undefined, true), /connection terminated/);
      } finally {
        store.reservations.recordDelivery = record;
      }
      assert.deepEqual(await hold.settle(), { status: 'settled', chargedMillicents: PRICE });
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000 - PRICE, reserved: 0 });
      await lease.stop();
    });

    it('stopping the process tries the unsettled holds a last time', async () => {
      const { lease, billing } = await startProcess();
      const org = await store.organizations.create('Stop', 100_000);
      await holdWithTwoDelivered(billing, org.id).then(async (hold) => {
        flaky.failNext(Infinity);
        assert.deepEqual(await hold.settle(), { status: 'deferred' });
      });
      flaky.heal();
      await lease.stop();
      assert.deepEqual(await ledgerTotals(store, org.id), { balance: 100_000 - 2 * PRICE, reserved: 0 });
    });
  });

  describe(`a failing settlement on ${backend}: what the client sees`, { skip }, () => {
    let h: Harness;
    let flaky: ReturnType<typeof flakyClose>;
    before(async () => {
      h = await startHarness({ backend, config: { ...PAID_CONFIG, billing: { reservation_lease_ms: 600 } } });
      flaky = flakyClose(h.store);
    });
    after(async () => {
      flaky.restore();
      await h.close();
    });

    const generate = (prompt: string, n: number) =>
      h.request('POST', '/v1/svgs/generations', { key: h.keys.live, body: { model: 'paid-fixed', prompt, n } });
    const totals = () => ledgerTotals(h.store, h.organizationId);
    const settled = () => waitFor(async () => (await totals()).reserved === 0, 'the sweep to close the reservation');
    const kindsOf = async (requestId: string | null) =>
      (await h.store.ledger.entries(h.organizationId, 50)).filter((e) => e.request_id === requestId).map((e) => e.kind).sort();

    it('JSON: a settle retried on the request answers 200 and charges the documents once', async () => {
      const before = await totals();
      flaky.failNext(2);
      const res = await generate('kites', 2);
      assert.deepEqual([res.status, res.json.credits, res.json.data.length], [200, 6, 2]);
      assert.deepEqual(await totals(), { balance: before.balance - 2 * PRICE, reserved: 0 });
    });

    it('JSON: a settle that keeps failing still answers 200 with its credits; the sweep charges exactly them', async () => {
      const before = await totals();
      flaky.failNext(Infinity);
      const res = await generate('boats', 2);
      assert.deepEqual([res.status, res.json.credits, res.json.data.length], [200, 6, 2], res.text);
      assert.deepEqual(await totals(), { balance: before.balance, reserved: 2 * PRICE }, 'held until the sweep');
      flaky.heal();
      await settled();
      assert.deepEqual(await totals(), { balance: before.balance - 2 * PRICE, reserved: 0 });
      assert.deepEqual(await kindsOf(res.headers.get('x-request-id')), ['reserve', 'settle']);
    });

    it('stream: the outputs sent end with [DONE], no error event; the sweep charges exactly them', async () => {
      const before = await totals();
      flaky.failNext(Infinity);
      const stream = await readStream(`${h.url}/v1/svgs/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.keys.live}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'paid-fixed', prompt: 'hills', n: 2, stream: true }),
      });
      assert.equal(stream.status, 200);
      assert.deepEqual(stream.events.slice(-2).map((e) => e.event ?? e.data), ['content', '[DONE]'], 'the last event before [DONE] decides: success');
      assert.equal(stream.events.filter((e) => e.event === 'content').length, 2);
      assert.ok(!stream.events.some((e) => e.event === 'error'), 'the client is not told it failed');
      flaky.heal();
      await settled();
      assert.deepEqual(await totals(), { balance: before.balance - 2 * PRICE, reserved: 0 });
      assert.deepEqual(await kindsOf(stream.headers.get('x-request-id')), ['reserve', 'settle']);
    });

    it('a request that failed keeps its own error (not a 500) when its release fails; the sweep releases it', async () => {
      const before = await totals();
      flaky.failNext(Infinity);
      const res = await generate('x [mock:error=model_error]', 2);
      assert.deepEqual([res.status, res.json.code], [502, 'model_error']);
      flaky.heal();
      await settled();
      assert.deepEqual(await totals(), before);
      assert.deepEqual(await kindsOf(res.headers.get('x-request-id')), ['release', 'reserve']);
    });
  });
}
