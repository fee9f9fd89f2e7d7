import { ApiError } from '../contract/errors.ts';
import type { TokenUsage } from '../contract/usage.ts';
import { InsufficientBalance } from '../store/ledger.ts';
import type { Store } from '../store/index.ts';
import type { Reservation } from '../store/reservations.ts';
import { addUsage, chargeFor, type Delivered, type Pricing } from './pricing.ts';
import type { RetryableSettlement, UnsettledHolds } from './unsettled.ts';

/** Pauses before each further attempt of a failed settlement on the request itself (about 1 s in all). */
const SETTLE_RETRY_DELAYS_MS = [50, 200, 800];

/** How a hold ended: closed now, or handed to the lease's sweep after its retries failed. */
export type Settlement = { status: 'settled'; chargedMillicents: number } | { status: 'deferred' };

/**
 * Whether the client went away before it was given what was delivered (a JSON answer not yet
 * written): then nothing was delivered after all. Asked as late as possible — inside the ledger
 * transaction that closes the reservation, right before the answer is written.
 */
export type Forfeited = () => boolean;

const NOTHING: Delivered = { outputs: 0, usage: null };

/** Told of every charge when its reservation closes (metrics); absent when nobody listens. */
export interface BillingObserver {
  debited(model: string, operation: string, millicents: number): void;
}

/** One operation's claim on an organization's balance. */
export interface ReservationPlan {
  organizationId: string;
  keyId: string;
  requestId: string;
  model: string;
  operation: string;
  amountMillicents: number;
  pricing: Pricing;
}

/** Closes a reservation from what its row recorded: the rule the request and crash recovery share. */
export function decideFromRecord(reservation: Reservation, tokenRemainder: number) {
  const delivered: Delivered = {
    outputs: reservation.delivered_outputs,
    usage: reservation.delivered_usage ? (JSON.parse(reservation.delivered_usage) as TokenUsage) : null,
  };
  return chargeFor(JSON.parse(reservation.pricing) as Pricing, delivered, reservation.amount_millicents, tokenRemainder);
}

/**
 * A held reservation. Outputs are counted as they are delivered; `settle` charges them and
 * releases the rest, once, whatever way the operation ended.
 */
export class Hold implements RetryableSettlement {
  private delivered: Delivered = NOTHING;
  private closing?: Promise<Settlement>;
  private forfeited: Forfeited = () => false;

  constructor(
    private readonly store: Store,
    readonly reservation: Reservation,
    private readonly pricing: Pricing,
    private readonly unsettled: UnsettledHolds,
    private readonly observer?: BillingObserver,
  ) {}

  get reservationId(): string {
    return this.reservation.id;
  }

  /**
   * Counts one delivered output. With `persist` (streams) the count is written before the
   * output is sent, so a crash afterwards settles it instead of giving it away; if that write
   * fails the output is not sent, so it is not counted either.
   */
  async deliver(usage: TokenUsage | undefined, persist: boolean): Promise<void> {
    const next: Delivered = { outputs: this.delivered.outputs + 1, usage: usage ? addUsage(this.delivered.usage, usage) : this.delivered.usage };
    if (persist) await this.recordDelivered(next);
    this.delivered = next;
  }

  /**
   * Charges what was delivered and releases the rest. Never throws: a failure is retried a few
   * times, then handed to the lease's sweep, which settles these same delivered counts later, so
   * an answer already produced is still sent and still charged exactly once. With `forfeited`,
   * deliveries count only if it says no when the charge is decided.
   */
  settle(forfeited?: Forfeited): Promise<Settlement> {
    if (forfeited) this.forfeited = forfeited;
    this.closing ??= this.settleOrDefer();
    return this.closing;
  }

  /** One attempt at closing the reservation; 0 when it was already closed (by an earlier attempt or a recovery). */
  async attempt(): Promise<number> {
    const closed = await this.store.reservations.close(
      this.reservation,
      (reservation, remainder) => chargeFor(this.pricing, this.forfeited() ? NOTHING : this.delivered, reservation.amount_millicents, remainder),
      { needsRemainder: this.pricing.kind === 'tokens' },
    );
    const charged = closed?.chargedMillicents ?? 0;
    // Here rather than in settle(): a charge closed later by the lease's sweep is counted too.
    if (charged > 0) this.observer?.debited(this.reservation.model, this.reservation.operation, charged);
    return charged;
  }

  private async settleOrDefer(): Promise<Settlement> {
    for (let failures = 0; ; failures++) {
      try {
        return { status: 'settled', chargedMillicents: await this.attempt() };
      } catch (error) {
        const delay = SETTLE_RETRY_DELAYS_MS[failures];
        if (delay === undefined) {
          // The answer goes out now (or its client is gone): what the sweep charges is fixed here.
          if (this.forfeited()) this.delivered = NOTHING;
          this.forfeited = () => false;
          // Should this process die before the sweep closes it, recovery settles the recorded counts.
          await this.recordDelivered(this.delivered).catch(() => undefined);
          this.unsettled.add(this, error);
          return { status: 'deferred' };
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private recordDelivered(delivered: Delivered): Promise<void> {
    return this.store.reservations.recordDelivery(
      this.reservation.id,
      delivered.outputs,
      delivered.usage ? JSON.stringify(delivered.usage) : null,
    );
  }
}

export class Billing {
  constructor(
    private readonly store: Store,
    private readonly instanceId: string,
    /** Where a settlement that keeps failing waits for the lease's sweep (InstanceLease.unsettled). */
    private readonly unsettled: UnsettledHolds,
    private readonly observer?: BillingObserver,
  ) {}

  /** Holds the most the operation can cost, or refuses with 402 insufficient_credits. */
  async reserve(plan: ReservationPlan): Promise<Hold> {
    try {
      const reservation = await this.store.reservations.open({
        organizationId: plan.organizationId,
        amountMillicents: plan.amountMillicents,
        pricing: JSON.stringify(plan.pricing),
        instanceId: this.instanceId,
        requestId: plan.requestId,
        keyId: plan.keyId,
        model: plan.model,
        operation: plan.operation,
      });
      return new Hold(this.store, reservation, plan.pricing, this.unsettled, this.observer);
    } catch (error) {
      if (error instanceof InsufficientBalance) {
        throw new ApiError('insufficient_credits', {
          message: 'The organization balance cannot cover the most this request can cost. Add credits, or request fewer outputs.',
        });
      }
      throw error;
    }
  }
}
