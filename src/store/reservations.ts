import type { Kysely } from 'kysely';
import type { GroupCommit } from './group-commit.ts';
import type { ClosedReservation, CloseDecision, LedgerOperation, LedgerResult, NewReservation, Reservation } from './ledger-batch.ts';
import { hot, type PreparedQueries } from './prepared.ts';
import type { Database } from './tables.ts';

export type { ClosedReservation, CloseDecision, NewReservation, Reservation } from './ledger-batch.ts';

const RECORD_DELIVERY = hot(
  'reservation_record_delivery',
  "update reservations set delivered_outputs = ?, delivered_usage = ?, updated_at = ? where id = ? and status = 'open'",
  // Losing it to a power cut releases what it would have settled: outputs given away, never overcharged.
  { unsynced: true },
);

/**
 * Reservations hold the most an operation can cost until it settles. Opening one is checked
 * against the organization's available credits (it fails rather than overdraw); closing one
 * settles the charge and releases the rest, at most once. Both go through the ledger's group
 * commit: those of one organization that arrive together share one transaction and one flush
 * (see ledger-batch.ts), each with its own entries and its own answer.
 */
export class ReservationRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly prepared: PreparedQueries,
    private readonly batches: GroupCommit<LedgerOperation, LedgerResult>,
  ) {}

  /** Throws InsufficientBalance when balance − reserved cannot cover the amount. */
  async open(spec: NewReservation): Promise<Reservation> {
    const now = spec.now ?? Date.now();
    return (await this.batches.submit(spec.organizationId, { kind: 'reserve', spec, now })) as Reservation;
  }

  /** Records what has been committed to the client so far, so a crash settles it rather than releasing it. */
  async recordDelivery(id: string, outputs: number, usage: string | null, now = Date.now()): Promise<void> {
    await this.prepared.changes(RECORD_DELIVERY, [outputs, usage, now, id]);
  }

  /**
   * Settles the decided charge and releases the rest, in one transaction: the reservation is
   * claimed only while still open (so it closes at most once, whoever closes it), with the
   * organization row locked. Returns undefined when it was already closed (by the request, or
   * by a recovery on another replica).
   */
  async close(
    reservation: Reservation,
    decide: CloseDecision,
    options: { note?: string; needsRemainder: boolean; now?: number },
  ): Promise<ClosedReservation | undefined> {
    const now = options.now ?? Date.now();
    const operation: LedgerOperation = { kind: 'close', reservation, decide, note: options.note ?? null, needsRemainder: options.needsRemainder, now };
    return (await this.batches.submit(reservation.organization_id, operation)) as ClosedReservation | undefined;
  }

  /**
   * Open reservations whose holder has not heartbeaten since `aliveSince` (or never registered),
   * except those of `sweeper`: the instance asking is alive by definition, however stale its own
   * heartbeat row looks after a long stall of its event loop.
   */
  async orphaned(aliveSince: number, options: { sweeper?: string; limit?: number } = {}): Promise<Reservation[]> {
    let query = this.db
      .selectFrom('reservations')
      .selectAll()
      .where('status', '=', 'open')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('instances')
              .select('instances.id')
              .whereRef('instances.id', '=', 'reservations.instance_id')
              .where('instances.heartbeat_at', '>=', aliveSince),
          ),
        ),
      );
    if (options.sweeper !== undefined) query = query.where('instance_id', '<>', options.sweeper);
    return query
      .orderBy('created_at')
      .limit(options.limit ?? 500)
      .execute();
  }

  async listOpen(organizationId: string): Promise<Reservation[]> {
    return this.db
      .selectFrom('reservations')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'open')
      .orderBy('created_at')
      .execute();
  }
}
