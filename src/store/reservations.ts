import type { Kysely } from 'kysely';
import { newId } from '../contract/ids.ts';
import type { Dialect } from './database.ts';
import { recordLedgerEntry } from './ledger.ts';
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
      await trx.insertInto('reservations').values(reservation).execute();
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
   * Settles the decided charge and releases the rest. Returns undefined when the reservation
   * was already closed (by the request, or by a recovery on another replica).
   */
  async close(id: string, decide: CloseDecision, note?: string, now = Date.now()): Promise<ClosedReservation | undefined> {
    return withTransaction(this.db, async (trx) => {
      let select = trx.selectFrom('reservations').selectAll().where('id', '=', id).where('status', '=', 'open');
      if (this.dialect === 'postgres') select = select.forUpdate();
      const reservation = await select.executeTakeFirst();
      if (!reservation) return undefined;

      let orgSelect = trx.selectFrom('organizations').select('token_remainder').where('id', '=', reservation.organization_id);
      if (this.dialect === 'postgres') orgSelect = orgSelect.forUpdate();
      const organization = await orgSelect.executeTakeFirstOrThrow();
      const decision = decide(reservation, organization.token_remainder);
      const charged = Math.max(0, Math.min(reservation.amount_millicents, decision.millicents));
      const released = reservation.amount_millicents - charged;

      await trx
        .updateTable('reservations')
        .set({ status: charged > 0 ? 'settled' : 'released', settled_millicents: charged, updated_at: now })
        .where('id', '=', id)
        .execute();
      if (decision.tokenRemainder !== organization.token_remainder) {
        await trx
          .updateTable('organizations')
          .set({ token_remainder: decision.tokenRemainder })
          .where('id', '=', reservation.organization_id)
          .execute();
      }
      const common = {
        organizationId: reservation.organization_id,
        reservationId: reservation.id,
        requestId: reservation.request_id,
        keyId: reservation.key_id,
        model: reservation.model,
        operation: reservation.operation,
        note,
        now,
      };
      if (charged > 0) {
        await recordLedgerEntry(trx, { ...common, kind: 'settle', amountMillicents: -charged, reservedDeltaMillicents: -charged });
      }
      if (released > 0) {
        await recordLedgerEntry(trx, { ...common, kind: 'release', amountMillicents: 0, reservedDeltaMillicents: -released });
      }
      return { reservation, chargedMillicents: charged };
    });
  }

  async get(id: string): Promise<Reservation | undefined> {
    return this.db.selectFrom('reservations').selectAll().where('id', '=', id).executeTakeFirst();
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
