import type { Logger } from 'pino';
import type { Store } from '../store/index.ts';
import { decideFromRecord } from './billing.ts';
import type { Pricing } from './pricing.ts';
import { UnsettledHolds } from './unsettled.ts';

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
 * This process's lease: a heartbeat every third of the lease, and a sweep on start and every
 * half lease — this process's own settlements that failed, then reservations of silent
 * processes. Errors are logged, never thrown into a timer.
 */
export class InstanceLease {
  /** Settlements that failed on their request: retried by every sweep until they close (Billing adds them). */
  readonly unsettled: UnsettledHolds;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly store: Store,
    readonly instanceId: string,
    private readonly options: LeaseOptions,
    private readonly logger?: Logger,
  ) {
    this.unsettled = new UnsettledHolds(logger);
  }

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
    every(Math.max(200, Math.floor(this.options.leaseMs / 2)), () => this.sweep());
  }

  /** One sweep: this process's unsettled holds (each error is logged, none stops the rest), then orphans. */
  async sweep(): Promise<void> {
    await this.unsettled.retry();
    await recoverOrphanedReservations(this.store, this.options.leaseMs, this.logger);
  }

  /**
   * Stops the timers, tries the unsettled holds a last time and forgets this instance. A hold
   * still failing is then closed by another process's sweep (or the next start) from the
   * deliveries recorded on its row.
   */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.unsettled.retry();
    if (this.unsettled.size > 0) {
      this.logger?.error({ reservations: this.unsettled.size }, 'stopping with unsettled reservations; recovery will close them');
    }
    await this.store.instances.remove(this.instanceId).catch(() => undefined);
  }
}
