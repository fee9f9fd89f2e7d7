// Another server process, for the lease tests: opens the store the test names, starts a lease of
// its own (heartbeat thread included) and plays one role, printing one JSON line per event.
//   sweep   sweeps every half lease, printing when each sweep ended and what it recovered; stops
//           its lease on SIGTERM and exits by itself
//   hold    reserves 3 outputs, records one delivered, prints the reservation, waits to be killed
//   stop    starts, stops its lease and closes the store, then exits by itself
//   forget  starts, closes the store without stopping its lease, then has nothing left to do: the
//           heartbeat thread must not keep it alive
import { pino } from 'pino';
import { Billing } from '../../src/billing/billing.ts';
import { InstanceLease, recoverOrphanedReservations } from '../../src/billing/recovery.ts';
import { newId } from '../../src/contract/ids.ts';
import type { DatabaseOptions } from '../../src/store/database.ts';
import { openStore } from '../../src/store/index.ts';

interface Args {
  role: 'sweep' | 'hold' | 'stop' | 'forget';
  database: DatabaseOptions;
  leaseMs: number;
  organizationId?: string;
}

const args = JSON.parse(process.argv[2]!) as Args;
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
// Warnings and errors (a failed heartbeat, a thread that would not stop) go to stderr, which the tests read.
const logger = pino({ level: 'warn' }, process.stderr);

const store = await openStore(args.database);
const lease = new InstanceLease(store, newId('instance'), { leaseMs: args.leaseMs, database: args.database }, logger);
await lease.start();
const place = await lease.heartbeatPlace();
say({ event: 'started', instance: lease.instanceId, place });

if (args.role === 'sweep') {
  let stopping = false;
  process.once('SIGTERM', () => {
    stopping = true;
  });
  while (!stopping) {
    const recovered = await recoverOrphanedReservations(store, args.leaseMs, { sweeper: lease.instanceId });
    say({ event: 'swept', at: Date.now(), recovered });
    await new Promise((resolve) => setTimeout(resolve, args.leaseMs / 2));
  }
  await lease.stop();
  await store.close();
} else if (args.role === 'hold') {
  const billing = new Billing(store, lease.instanceId, lease.unsettled);
  const hold = await billing.reserve({
    organizationId: args.organizationId!,
    keyId: 'key_test',
    requestId: newId('request'),
    model: 'paid-fixed',
    operation: 'svg_generate',
    amountMillicents: 3 * 3000,
    pricing: { kind: 'per_output', millicentsPerOutput: 3000 },
  });
  await hold.deliver(undefined, true);
  say({ event: 'holding', reservation: hold.reservationId });
  setInterval(() => undefined, 60_000); // until it is killed
} else if (args.role === 'stop') {
  await lease.stop();
  await store.close();
} else {
  await store.close();
}
