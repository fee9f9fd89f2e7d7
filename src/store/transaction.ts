import type { Kysely, Transaction } from 'kysely';
import type { Database } from './tables.ts';

/** Runs fn in the caller's transaction when there is one, otherwise in a new one. */
export function withTransaction<T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Transaction<Database>);
  return db.transaction().execute(fn);
}
