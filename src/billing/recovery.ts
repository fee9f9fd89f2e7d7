import type { Logger } from 'pino';
import type { Store } from '../store/index.ts';
import { decideFromRecord } from './billing.ts';
import type { Pricing } from './pricing.ts';

export interface LeaseOptions {
  /** A process silent for this long is presumed dead and its reservations are recovered. */
  leaseMs: number;
}

/**
 * Settles or releases open reservations whose process stopped heartbeating: outputs recorded
 * as delivered are charged, the rest released. Closing is conditional, so replicas that sweep
 * at the same moment never charge twice.
 */
export async function recoverOrphanedReservations(store: Store, leaseMs: number, logger?: Logger, now = Date.now()): Promise<number> {
  let recovered = 0;
  for (const reservation of await store.reservations.orphaned(now - leaseMs)) {
    const closed = await store.reservations.close(reservation, decideFromRecord, {
      note: 'recovered after the holding process stopped',
      needsRemainder: (JSON.parse(reservation.pricing) as Pricing).kind === 'tokens',
      now,
    });
    if (!closed) continue;
    recovered++;
    logger?.warn(
      { reservation_id: reservation.id, request_id: reservation.request_id, charged_millicents: closed.chargedMillicents },
      'recovered an orphaned reservation',
    );
  }
  await store.instances.prune(now - leaseMs * 10);
  return recovered;
}

/**
 * This process's lease: a heartbeat every third of the lease, and a sweep for orphaned
 * reservations on start and every half lease. Errors are logged, never thrown into a timer.
 */
export class InstanceLease {
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly store: Store,
    readonly instanceId: string,
    private readonly options: LeaseOptions,
    private readonly logger?: Logger,
  ) {}

  async start(): Promise<void> {
    await this.store.instances.heartbeat(this.instanceId);
    await recoverOrphanedReservations(this.store, this.options.leaseMs, this.logger);
    const every = (ms: number, task: () => Promise<unknown>) => {
      const timer = setInterval(() => {
        task().catch((error: unknown) => this.logger?.error({ err: error }, 'billing lease task failed'));
      }, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(Math.max(100, Math.floor(this.options.leaseMs / 3)), () => this.store.instances.heartbeat(this.instanceId));
    every(Math.max(200, Math.floor(this.options.leaseMs / 2)), () =>
      recoverOrphanedReservations(this.store, this.options.leaseMs, this.logger),
    );
  }

  /** Stops the timers and forgets this instance (its reservations were all closed by then). */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.store.instances.remove(this.instanceId).catch(() => undefined);
  }
}
