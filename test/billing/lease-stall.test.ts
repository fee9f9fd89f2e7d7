// A process whose event loop is held by synchronous work (a huge model answer) for longer than its
// lease is alive, not crashed: its reservations stay open and its requests settle them exactly. Its
// heartbeat runs in a worker thread with a connection of its own, so the lease is renewed through
// the stall and other processes leave its reservations alone; its own sweep never touches them.
// A process that really died is still recovered after its lease. Run on SQLite, and on PostgreSQL
// when DATABASE_URL is set.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { recoverOrphanedReservations } from '../../src/billing/recovery.ts';
import type { DatabaseOptions } from '../../src/store/database.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { ledgerTotals, PAID_FIXED_PRICE as PRICE, reserveThree, startBillingProcess } from '../helpers/billing.ts';
import { BACKENDS, createPostgresSchema, POSTGRES_URL } from '../helpers/harness.ts';

const FIXTURE = join(import.meta.dirname, 'fixture-lease-process.ts');
const LEASE_MS = 300;
/** Several leases: long enough for the old main-loop heartbeat to look dead, well short of the thread's safety valve (10 leases). */
const STALL_MS = 5 * LEASE_MS;

/** Holds this thread's event loop for `ms`, as synchronous work on a huge answer would. */
function stallEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function waitFor(probe: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A logger whose warnings and errors the test reads. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** Another server process on the same database (fixture-lease-process.ts), its JSON lines read as they come. */
class OtherProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; stderr: string }>;
  private readonly lines: Interface;
  private readonly seen: Record<string, unknown>[] = [];
  private wake: (() => void) | undefined;

  constructor(role: string, database: DatabaseOptions, leaseMs: number, extra: Record<string, unknown> = {}) {
    this.child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, JSON.stringify({ role, database, leaseMs, ...extra })], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    this.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve({ code, stderr })));
    this.lines = createInterface({ input: this.child.stdout! });
    this.lines.on('line', (line) => {
      this.seen.push(JSON.parse(line));
      this.wake?.();
    });
  }

  /** The first line (from now on, or already seen) that matches. */
  async next(event: string, match: (line: Record<string, unknown>) => boolean = () => true): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.seen.find((line) => line.event === event && match(line));
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error(`the other process exited before printing ${event}`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  all(event: string): Record<string, unknown>[] {
    return this.seen.filter((line) => line.event === event);
  }

  kill(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }
}

for (const { backend, skip } of BACKENDS) {
  describe(`a process whose event loop stalls past its lease, on ${backend}`, { skip }, () => {
    let store: Store;
    let database: DatabaseOptions;
    let cleanup: () => Promise<void>;
    const others: OtherProcess[] = [];

    before(async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'inkwell-lease-'));
      const pgSchema = backend === 'postgres' ? await createPostgresSchema() : undefined;
      database = { dataDir, databaseUrl: pgSchema ? POSTGRES_URL : undefined, postgresSchema: pgSchema?.schema };
      store = await openStore(database);
      cleanup = async () => {
        for (const other of others) other.kill('SIGKILL');
        await Promise.all(others.map((other) => other.exited));
        await store.close();
        await pgSchema?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      };
    });
    after(() => cleanup());

    /** A live process on the test's store: its lease (heartbeat thread when `database` is given) and its billing. */
    const startProcess = (options: { thread: boolean; leaseMs?: number; logger?: pino.Logger }) =>
      startBillingProcess(store, { leaseMs: options.leaseMs ?? LEASE_MS, database: options.thread ? database : undefined }, options.logger);

    const isOpen = async (organizationId: string, reservationId: string) =>
      (await store.reservations.listOpen(organizationId)).some((reservation) => reservation.id === reservationId);

    const recoveredEntries = async (organizationId: string) =>
      (await store.ledger.entries(organizationId, 100)).filter((entry) => entry.note?.includes('recovered'));

    const heartbeatAt = async (instanceId: string) =>
      (await store.db.selectFrom('instances').select('heartbeat_at').where('id', '=', instanceId).executeTakeFirst())?.heartbeat_at;

    it('keeps its reservation open through the stall, and its request then settles it with the exact charge', async () => {
      const { lease, billing } = await startProcess({ thread: true });
      try {
        assert.equal(await lease.heartbeatPlace(), 'thread', 'the heartbeat runs in its worker thread');
        const org = await store.organizations.create('Stalled', 100_000);
        const start = await ledgerTotals(store, org.id);
        const hold = await reserveThree(billing, org.id);
        await hold.deliver(undefined, true);

        const stalledAt = Date.now();
        stallEventLoop(STALL_MS);
        assert.ok(
          (await heartbeatAt(lease.instanceId))! > stalledAt + LEASE_MS,
          'the lease was renewed while the event loop was held',
        );
        // The sweeps this process missed during the stall run now; one more, explicitly.
        await lease.sweep();
        assert.ok(await isOpen(org.id, hold.reservationId), 'the reservation is still open after the stall');

        await hold.deliver(undefined, true);
        assert.deepEqual(await hold.settle(), { status: 'settled', chargedMillicents: 2 * PRICE });
        const end = await ledgerTotals(store, org.id);
        assert.deepEqual(end, { balance: start.balance - 2 * PRICE, reserved: 0 }, 'two outputs charged, the third released');
        assert.deepEqual(await recoveredEntries(org.id), [], 'nothing was recovered');
      } finally {
        await lease.stop();
      }
    });

    it('never recovers its own reservations, even when its heartbeat stays on the main loop and goes stale', async () => {
      // A lease told nothing of how the store was opened cannot start the thread: the old heartbeat.
      const { lease, billing } = await startProcess({ thread: false });
      try {
        assert.equal(await lease.heartbeatPlace(), 'main-loop');
        const org = await store.organizations.create('Stalled on the main loop', 100_000);
        const start = await ledgerTotals(store, org.id);
        const hold = await reserveThree(billing, org.id);
        await hold.deliver(undefined, true);

        stallEventLoop(STALL_MS);
        await lease.sweep();
        // However stale its row looks by the sweep's clock, the sweeping process's own reservations are not orphans.
        assert.equal(await recoverOrphanedReservations(store, LEASE_MS, { sweeper: lease.instanceId, now: Date.now() + 100 * LEASE_MS }), 0);
        assert.ok(await isOpen(org.id, hold.reservationId), 'the reservation is still open after the stall');

        assert.deepEqual(await hold.settle(), { status: 'settled', chargedMillicents: PRICE });
        assert.deepEqual(await ledgerTotals(store, org.id), { balance: start.balance - PRICE, reserved: 0 });
        assert.deepEqual(await recoveredEntries(org.id), []);
      } finally {
        await lease.stop();
      }
    });

    it('is left alone by another process that sweeps while its event loop is held', async () => {
      const other = new OtherProcess('sweep', database, LEASE_MS);
      others.push(other);
      assert.equal((await other.next('started')).place, 'thread');
      const { lease, billing } = await startProcess({ thread: true });
      try {
        assert.equal(await lease.heartbeatPlace(), 'thread');
        const org = await store.organizations.create('Stalled beside another', 100_000);
        const start = await ledgerTotals(store, org.id);
        const hold = await reserveThree(billing, org.id);
        await hold.deliver(undefined, true);

        const stalledAt = Date.now();
        stallEventLoop(STALL_MS);
        const resumedAt = Date.now();
        // The other process swept while this one's main loop had been silent for more than a lease.
        await other.next('swept', (line) => (line.at as number) > resumedAt);
        const during = other.all('swept').filter((line) => (line.at as number) > stalledAt + LEASE_MS && (line.at as number) < resumedAt);
        assert.ok(during.length > 0, 'the other process swept during the stall');
        assert.ok(other.all('swept').every((line) => line.recovered === 0), 'the other process recovered nothing');
        assert.ok(await isOpen(org.id, hold.reservationId), 'the reservation is still open');

        await hold.deliver(undefined, true);
        assert.deepEqual(await hold.settle(), { status: 'settled', chargedMillicents: 2 * PRICE });
        assert.deepEqual(await ledgerTotals(store, org.id), { balance: start.balance - 2 * PRICE, reserved: 0 });
        assert.deepEqual(await recoveredEntries(org.id), []);
      } finally {
        await lease.stop();
        other.kill('SIGTERM');
        assert.equal((await other.exited).code, 0, 'the other process stopped cleanly');
      }
    });

    it('recovers the reservations of a process that was killed, once its lease has run out', async () => {
      const leaseMs = 2000;
      const org = await store.organizations.create('Crashed holder', 100_000);
      const start = await ledgerTotals(store, org.id);
      const holder = new OtherProcess('hold', database, leaseMs, { organizationId: org.id });
      others.push(holder);
      assert.equal((await holder.next('started')).place, 'thread');
      const reservationId = (await holder.next('holding')).reservation as string;
      holder.kill('SIGKILL');
      await holder.exited;

      const { lease } = await startProcess({ thread: true, leaseMs });
      try {
        // Its last heartbeat is under a third of a lease old: not dead yet.
        assert.ok(await isOpen(org.id, reservationId), 'not recovered before the lease ran out');
        await waitFor(async () => !(await isOpen(org.id, reservationId)), 'the sweep to recover the reservation');
        assert.deepEqual(await ledgerTotals(store, org.id), { balance: start.balance - PRICE, reserved: 0 }, 'the one recorded output charged');
        assert.deepEqual((await recoveredEntries(org.id)).map((entry) => entry.kind).sort(), ['release', 'settle']);
      } finally {
        await lease.stop();
      }
    });

    it('stops its heartbeat thread cleanly: nothing logged, its row gone and not written again', async () => {
      const { logger, lines } = capturingLogger();
      const { lease } = await startProcess({ thread: true, logger });
      assert.equal(await lease.heartbeatPlace(), 'thread');
      await lease.stop();
      assert.equal(await heartbeatAt(lease.instanceId), undefined, 'the instance is forgotten');
      // A few of the thread's beats would have landed by now, had it outlived stop().
      await new Promise((resolve) => setTimeout(resolve, 4 * LEASE_MS));
      assert.equal(await heartbeatAt(lease.instanceId), undefined, 'no beat brought the row back');
      assert.deepEqual(lines, [], 'no warning or error was logged');
    });

    it('lets a process exit by itself, whether it stops its lease or forgets to', async () => {
      await Promise.all(
        ['stop', 'forget'].map(async (role) => {
          const other = new OtherProcess(role, database, LEASE_MS);
          others.push(other);
          assert.equal((await other.next('started')).place, 'thread');
          const { code, stderr } = await other.exited;
          assert.equal(code, 0, `the "${role}" process exits by itself`);
          // The one that forgot may log sweeps failing on its closed store before it goes; the one that stopped logs nothing.
          if (role === 'stop') assert.equal(stderr, '', 'nothing on stderr');
        }),
      );
    });
  });
}
