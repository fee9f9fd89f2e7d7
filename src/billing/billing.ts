import { ApiError } from '../contract/errors.ts';
import type { TokenUsage } from '../engines/engine.ts';
import { InsufficientBalance } from '../store/ledger.ts';
import type { Store } from '../store/index.ts';
import type { Reservation } from '../store/reservations.ts';
import { addUsage, chargeFor, type Delivered, type Pricing } from './pricing.ts';

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
export class Hold {
  private readonly delivered: Delivered = { outputs: 0, usage: null };
  private closing?: Promise<number>;

  constructor(
    private readonly store: Store,
    readonly reservation: Reservation,
    private readonly pricing: Pricing,
  ) {}

  /**
   * Counts one delivered output. With `persist` (streams) the count is written before the
   * output is sent, so a crash afterwards settles it instead of giving it away.
   */
  async deliver(usage: TokenUsage | undefined, persist: boolean): Promise<void> {
    this.delivered.outputs++;
    if (usage) this.delivered.usage = addUsage(this.delivered.usage, usage);
    if (!persist) return;
    await this.store.reservations.recordDelivery(
      this.reservation.id,
      this.delivered.outputs,
      this.delivered.usage ? JSON.stringify(this.delivered.usage) : null,
    );
  }

  /** Charges what was delivered and releases the rest; returns the millicents charged. */
  settle(): Promise<number> {
    this.closing ??= this.store.reservations
      .close(
        this.reservation,
        (reservation, remainder) => chargeFor(this.pricing, this.delivered, reservation.amount_millicents, remainder),
        { needsRemainder: this.pricing.kind === 'tokens' },
      )
      .then((closed) => closed?.chargedMillicents ?? 0);
    return this.closing;
  }
}

export class Billing {
  constructor(
    private readonly store: Store,
    private readonly instanceId: string,
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
      return new Hold(this.store, reservation, plan.pricing);
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
