import type { Kysely, Transaction } from 'kysely';
import { newId } from '../contract/ids.ts';
import type { Database, LedgerEntryTable } from './tables.ts';
import { withTransaction } from './transaction.ts';

export type LedgerEntry = LedgerEntryTable;

export interface LedgerChange {
  organizationId: string;
  kind: 'grant' | 'adjustment';
  amountMillicents: number;
  requestId?: string;
  keyId?: string;
  model?: string;
  operation?: string;
  note?: string;
  now?: number;
}

/**
 * Applies a balance change and its ledger entry in the caller's transaction, so the balance
 * always equals the sum of the entries.
 */
export async function recordLedgerEntry(trx: Transaction<Database>, change: LedgerChange): Promise<LedgerEntry> {
  const now = change.now ?? Date.now();
  const updated = await trx
    .updateTable('organizations')
    .set((eb) => ({ balance_millicents: eb('balance_millicents', '+', change.amountMillicents) }))
    .where('id', '=', change.organizationId)
    .returning('balance_millicents')
    .executeTakeFirst();
  if (!updated) throw new Error(`organization ${change.organizationId} does not exist`);
  const entry: LedgerEntry = {
    id: newId('ledgerEntry', now),
    organization_id: change.organizationId,
    kind: change.kind,
    amount_millicents: change.amountMillicents,
    balance_after_millicents: updated.balance_millicents,
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

export class LedgerRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async grant(organizationId: string, amountMillicents: number, note?: string): Promise<LedgerEntry> {
    if (!Number.isSafeInteger(amountMillicents) || amountMillicents <= 0) {
      throw new RangeError('a grant must be a positive whole number of millicents');
    }
    return withTransaction(this.db, (trx) =>
      recordLedgerEntry(trx, { organizationId, kind: 'grant', amountMillicents, note }),
    );
  }

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

  /** The balance recomputed from the entries alone, to check against the stored one. */
  async recomputedBalance(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_millicents'), eb.lit(0)).as('total'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }
}
