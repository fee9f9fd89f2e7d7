import type { Kysely } from 'kysely';
import { newId } from '../contract/ids.ts';
import type { Dialect } from './database.ts';
import { recordLedgerEntry, type LedgerEntry } from './ledger.ts';
import type { Database, ReservationTable } from './tables.ts';
import { withTransaction } from './transaction.ts';

export type Reservation = ReservationTable;

export interface NewReservation {
  organizationId: string;
  amountMillicents: number;
  /** JSON of the pricing rule that settles it. */
  pricing: string;
  instanceId: string;
  requestId: string;
  keyId: string;
  model: string;
  operation: string;
  now?: number;
}

/** What the billing rule decides when a reservation closes, given the organization's token remainder. */
export type CloseDecision = (reservation: Reservation, tokenRemainder: number) => { millicents: number; tokenRemainder: number };

export interface ClosedReservation {
  reservation: Reservation;
  chargedMillicents: number;
}

/**
 * Reservations hold the most an operation can cost until it settles. Opening one is a
 * conditional update of the organization (it fails rather than overdraw); closing one settles
 * the charge and releases the rest in one transaction, at most once.
 */
export class ReservationRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Throws InsufficientBalance when balance − reserved cannot cover the amount. */
  async open(spec: NewReservation): Promise<Reservation> {
    const now = spec.now ?? Date.now();
    return withTransaction(this.db, async (trx) => {
      const reservation: Reservation = {
        id: newId('reservation', now),
        organization_id: spec.organizationId,
        status: 'open',
        amount_millicents: spec.amountMillicents,
        pricing: spec.pricing,
        delivered_outputs: 0,
        delivered_usage: null,
        settled_millicents: null,
        instance_id: spec.instanceId,
        request_id: spec.requestId,
        key_id: spec.keyId,
        model: spec.model,
        operation: spec.operation,
        created_at: now,
        updated_at: now,
      };
      // The reservation row first: the organization row is locked by the conditional update,
      // and the fewer statements run after it, the shorter concurrent requests wait.
      await trx.insertInto('reservations').values(reservation).execute();
      await recordLedgerEntry(
        trx,
        {
          organizationId: spec.organizationId,
          kind: 'reserve',
          amountMillicents: 0,
          reservedDeltaMillicents: spec.amountMillicents,
          reservationId: reservation.id,
          requestId: spec.requestId,
          keyId: spec.keyId,
          model: spec.model,
          operation: spec.operation,
          now,
        },
        { requireAvailable: true },
      );
      return reservation;
    });
  }

  /** Records what has been committed to the client so far, so a crash settles it rather than releasing it. */
  async recordDelivery(id: string, outputs: number, usage: string | null, now = Date.now()): Promise<void> {
    await this.db
      .updateTable('reservations')
      .set({ delivered_outputs: outputs, delivered_usage: usage, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .execute();
  }

  /**
   * Settles the decided charge and releases the rest, in one transaction: the reservation is
   * claimed by a conditional update (so it closes at most once, whoever closes it), then one
   * update of the organization and one insert of the ledger entries. Returns undefined when it
   * was already closed (by the request, or by a recovery on another replica).
   */
  async close(
    reservation: Reservation,
    decide: CloseDecision,
    options: { note?: string; needsRemainder: boolean; now?: number },
  ): Promise<ClosedReservation | undefined> {
    const now = options.now ?? Date.now();
    return withTransaction(this.db, async (trx) => {
      let remainder = 0;
      if (options.needsRemainder) {
        // Token pricing carries a per-organization remainder: lock the row before reading it.
        let select = trx.selectFrom('organizations').select('token_remainder').where('id', '=', reservation.organization_id);
        if (this.dialect === 'postgres') select = select.forUpdate();
        remainder = (await select.executeTakeFirstOrThrow()).token_remainder;
      }
      const decision = decide(reservation, remainder);
      const charged = Math.max(0, Math.min(reservation.amount_millicents, decision.millicents));
      const released = reservation.amount_millicents - charged;
      const claimed = await trx
        .updateTable('reservations')
        .set({ status: charged > 0 ? 'settled' : 'released', settled_millicents: charged, updated_at: now })
        .where('id', '=', reservation.id)
        .where('status', '=', 'open')
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) return undefined;

      const updated = await trx
        .updateTable('organizations')
        .set((eb) => ({
          balance_millicents: eb('balance_millicents', '-', charged),
          reserved_millicents: eb('reserved_millicents', '-', reservation.amount_millicents),
          ...(options.needsRemainder ? { token_remainder: decision.tokenRemainder } : {}),
        }))
        .where('id', '=', reservation.organization_id)
        .returning(['balance_millicents', 'reserved_millicents'])
        .executeTakeFirstOrThrow();

      const entry = (kind: 'settle' | 'release', amount: number, reservedDelta: number, reservedAfter: number): LedgerEntry => ({
        id: newId('ledgerEntry', now),
        organization_id: reservation.organization_id,
        kind,
        amount_millicents: amount,
        balance_after_millicents: updated.balance_millicents,
        reserved_delta_millicents: reservedDelta,
        reserved_after_millicents: reservedAfter,
        reservation_id: reservation.id,
        request_id: reservation.request_id,
        key_id: reservation.key_id,
        model: reservation.model,
        operation: reservation.operation,
        note: options.note ?? null,
        created_at: now,
      });
      const entries: LedgerEntry[] = [];
      if (charged > 0) entries.push(entry('settle', -charged, -charged, updated.reserved_millicents + released));
      if (released > 0) entries.push(entry('release', 0, -released, updated.reserved_millicents));
      if (entries.length > 0) await trx.insertInto('ledger_entries').values(entries).execute();
      return { reservation, chargedMillicents: charged };
    });
  }

  /** Open reservations whose holder has not heartbeaten since `aliveSince` (or never registered). */
  async orphaned(aliveSince: number, limit = 500): Promise<Reservation[]> {
    return this.db
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
      )
      .orderBy('created_at')
      .limit(limit)
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
