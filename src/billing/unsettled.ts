import type { Logger } from 'pino';

/** A settlement that may be tried again: closing is conditional, so a retry never charges twice. */
export interface RetryableSettlement {
  readonly reservationId: string;
  /** One attempt; resolves with the millicents charged (0 when the reservation was already closed). */
  attempt(): Promise<number>;
}

/**
 * This process's settlements that failed even after the request's own retries. Their
 * reservations stay open in the database, and since this process is alive no other sweep
 * closes them, so the lease's sweep retries them here until each closes.
 */
export class UnsettledHolds {
  private readonly pending = new Set<RetryableSettlement>();
  private running?: Promise<number>;

  constructor(private readonly logger?: Logger) {}

  get size(): number {
    return this.pending.size;
  }

  add(settlement: RetryableSettlement, error: unknown): void {
    this.pending.add(settlement);
    this.logger?.error({ err: error, reservation_id: settlement.reservationId }, 'settlement failed; the lease sweep will retry it');
  }

  /** Tries each pending settlement once and returns how many closed; overlapping calls share one pass. */
  retry(): Promise<number> {
    this.running ??= this.retryEach().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async retryEach(): Promise<number> {
    let closed = 0;
    for (const settlement of [...this.pending]) {
      try {
        const charged = await settlement.attempt();
        this.pending.delete(settlement);
        closed++;
        this.logger?.warn({ reservation_id: settlement.reservationId, charged_millicents: charged }, 'settled a reservation on retry');
      } catch (error) {
        this.logger?.error({ err: error, reservation_id: settlement.reservationId }, 'settlement retry failed; trying again at the next sweep');
      }
    }
    return closed;
  }
}
