import type { Kysely, Transaction } from 'kysely';
import { newId } from '../contract/ids.ts';
import type { Database, LedgerEntryTable } from './tables.ts';
import { withTransaction } from './transaction.ts';

export type LedgerEntry = LedgerEntryTable;
export type LedgerKind = 'grant' | 'adjustment' | 'reserve' | 'settle' | 'release';

export interface LedgerChange {
  organizationId: string;
  kind: LedgerKind;
  /** Change of the posted balance. */
  amountMillicents: number;
  /** Change of the reserved amount. */
  reservedDeltaMillicents?: number;
  reservationId?: string;
  requestId?: string;
  keyId?: string;
  model?: string;
  operation?: string;
  note?: string;
  now?: number;
}

/** Raised when a conditional change finds the organization unable to cover it. */
export class InsufficientBalance extends Error {
  override name = 'InsufficientBalance';
}

/**
 * Applies a balance change and writes its ledger entry in the caller's transaction, so the
 * balance and the reserved amount always equal the sums of the entries. Unconditional: grants
 * and adjustments. Reservations, whose update must not overdraw, go through ledger-batch.ts.
 */
export async function recordLedgerEntry(trx: Transaction<Database>, change: LedgerChange): Promise<LedgerEntry> {
  const now = change.now ?? Date.now();
  const amount = change.amountMillicents;
  const reservedDelta = change.reservedDeltaMillicents ?? 0;
  const updated = await trx
    .updateTable('organizations')
    .set((eb) => ({
      balance_millicents: eb('balance_millicents', '+', amount),
      reserved_millicents: eb('reserved_millicents', '+', reservedDelta),
    }))
    .where('id', '=', change.organizationId)
    .returning(['balance_millicents', 'reserved_millicents'])
    .executeTakeFirst();
  if (!updated) {
    throw new Error(`organization ${change.organizationId} does not exist`);
  }
  // SQLite would store an unsafe integer silently; refusing rolls the whole transaction back.
  if (!Number.isSafeInteger(updated.balance_millicents) || !Number.isSafeInteger(updated.reserved_millicents)) {
    throw new RangeError('the balance would leave the safe integer range');
  }
  const entry: LedgerEntry = {
    id: newId('ledgerEntry', now),
    organization_id: change.organizationId,
    kind: change.kind,
    amount_millicents: amount,
    balance_after_millicents: updated.balance_millicents,
    reserved_delta_millicents: reservedDelta,
    reserved_after_millicents: updated.reserved_millicents,
    reservation_id: change.reservationId ?? null,
    request_id: change.requestId ?? null,
    key_id: change.keyId ?? null,
    model: change.model ?? null,
    operation: change.operation ?? null,
    note: change.note ?? null,
    created_at: now,
  };
  await trx.insertInto('ledger_entries').values(entry).execute();
  return entry;
}

export interface RecomputedTotals {
  balanceMillicents: number;
  reservedMillicents: number;
}

export class LedgerRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Adds credits (positive) or corrects the balance (adjustment, either sign). */
  async post(
    organizationId: string,
    kind: 'grant' | 'adjustment',
    amountMillicents: number,
    note?: string,
  ): Promise<LedgerEntry> {
    if (!Number.isSafeInteger(amountMillicents) || amountMillicents === 0 || (kind === 'grant' && amountMillicents < 0)) {
      throw new RangeError(`a ${kind} must be a ${kind === 'grant' ? 'positive' : 'non-zero'} whole number of millicents`);
    }
    return withTransaction(this.db, (trx) => recordLedgerEntry(trx, { organizationId, kind, amountMillicents, note }));
  }

  async grant(organizationId: string, amountMillicents: number, note?: string): Promise<LedgerEntry> {
    return this.post(organizationId, 'grant', amountMillicents, note);
  }

  /** The newest entries first. */
  async entries(organizationId: string, limit = 100): Promise<LedgerEntry[]> {
    return this.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Balance and reserved amount recomputed from the entries alone, to check against the stored ones. */
  async recomputed(organizationId: string): Promise<RecomputedTotals> {
    const row = await this.db
      .selectFrom('ledger_entries')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('amount_millicents'), eb.lit(0)).as('balance'),
        eb.fn.coalesce(eb.fn.sum<number>('reserved_delta_millicents'), eb.lit(0)).as('reserved'),
      ])
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return { balanceMillicents: Number(row.balance), reservedMillicents: Number(row.reserved) };
  }

  async recomputedBalance(organizationId: string): Promise<number> {
    return (await this.recomputed(organizationId)).balanceMillicents;
  }
}
