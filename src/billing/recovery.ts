import type { Logger } from 'pino';
import type { DatabaseOptions } from '../store/database.ts';
import { InstanceHeartbeat, type HeartbeatPlace } from '../store/instance-heartbeat.ts';
import type { Store } from '../store/index.ts';
import { decideFromRecord } from './billing.ts';
import type { Pricing } from './pricing.ts';
import { UnsettledHolds } from './unsettled.ts';

export interface LeaseOptions {
  /** A process whose heartbeat is this old is presumed dead and its reservations are recovered. */
  leaseMs: number;
  /**
   * How the store was opened: the heartbeat then runs in a worker thread on a connection of its
   * own, so a busy event loop keeps its lease. Without it the heartbeat runs on the main loop.
   */
  database?: DatabaseOptions;
}

/**
 * A wedged main thread stops renewing its lease after this many leases (the heartbeat thread
 * pauses), so its reservations are recovered by the other processes. Generous, because a live
 * process's reservations recovered early are given away: only a thread stuck for good should.
 */
const MAIN_SILENCE_LEASES = 10;

export interface SweepOptions {
  /**
   * The instance sweeping: its own reservations are never recovered, however stale its own
   * heartbeat row looks after a stall (it is alive: it is sweeping). Its failed settlements are
   * retried through its UnsettledHolds instead.
   */
  sweeper?: string;
  logger?: Logger;
  now?: number;
}

/**
 * Settles or releases open reservations whose process stopped heartbeating: outputs recorded
 * as delivered are charged, the rest released. Closing is conditional, so replicas that sweep
 * at the same moment never charge twice.
 */
export async function recoverOrphanedReservations(store: Store, leaseMs: number, options: SweepOptions = {}): Promise<number> {
  const { sweeper, logger, now = Date.now() } = options;
  let recovered = 0;
  for (const reservation of await store.reservations.orphaned(now - leaseMs, { sweeper })) {
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
 * This process's lease: a heartbeat every third of the lease (off the main loop when it can be,
 * see InstanceHeartbeat), and a sweep on start and every half lease — this process's own
 * settlements that failed, then reservations of processes whose heartbeat stopped. Errors are
 * logged, never thrown into a timer.
 */
export class InstanceLease {
  /** Settlements that failed on their request: retried by every sweep until they close (Billing adds them). */
  readonly unsettled: UnsettledHolds;
  private timers: NodeJS.Timeout[] = [];
  private heartbeat: InstanceHeartbeat | undefined;

  constructor(
    private readonly store: Store,
    readonly instanceId: string,
    private readonly options: LeaseOptions,
    private readonly logger?: Logger,
  ) {
    this.unsettled = new UnsettledHolds(logger);
  }

  async start(): Promise<void> {
    // The row exists before this process sweeps or reserves; the heartbeat keeps it fresh.
    await this.store.instances.heartbeat(this.instanceId);
    this.heartbeat = new InstanceHeartbeat(this.store.instances, this.instanceId, {
      everyMs: Math.max(100, Math.floor(this.options.leaseMs / 3)),
      database: this.options.database,
      mainSilenceLimitMs: this.options.leaseMs * MAIN_SILENCE_LEASES,
      logger: this.logger,
    });
    this.heartbeat.start();
    await recoverOrphanedReservations(this.store, this.options.leaseMs, { sweeper: this.instanceId, logger: this.logger });
    const timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger?.error({ err: error }, 'billing lease sweep failed'));
    }, Math.max(200, Math.floor(this.options.leaseMs / 2)));
    timer.unref();
    this.timers.push(timer);
  }

  /** Where the heartbeat runs, once that is settled (the thread reports its first beat, or it stays on the main loop). */
  heartbeatPlace(): Promise<HeartbeatPlace> {
    return this.heartbeat?.place() ?? Promise.resolve('main-loop');
  }

  /** One sweep: this process's unsettled holds (each error is logged, none stops the rest), then orphans of other processes. */
  async sweep(): Promise<void> {
    await this.unsettled.retry();
    await recoverOrphanedReservations(this.store, this.options.leaseMs, { sweeper: this.instanceId, logger: this.logger });
  }

  /**
   * Stops the sweeps, tries the unsettled holds a last time, stops the heartbeat and forgets this
   * instance. A hold still failing is then closed by another process's sweep (or the next start)
   * from the deliveries recorded on its row.
   */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.unsettled.retry();
    if (this.unsettled.size > 0) {
      this.logger?.error({ reservations: this.unsettled.size }, 'stopping with unsettled reservations; recovery will close them');
    }
    // Awaited before the row goes: a beat still in flight would bring it back.
    await this.heartbeat?.stop();
    this.heartbeat = undefined;
    await this.store.instances.remove(this.instanceId).catch(() => undefined);
  }
}
