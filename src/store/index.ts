import type { Kysely } from 'kysely';
import { ApiKeyRepository } from './api-keys.ts';
import { createDatabase, migrate, type DatabaseOptions, type Dialect } from './database.ts';
import { GroupCommit } from './group-commit.ts';
import { commitLedgerBatch, type LedgerOperation, type LedgerResult, type LedgerSessions } from './ledger-batch.ts';
import type { PreparedQueries } from './prepared.ts';
import { InstanceRepository } from './instances.ts';
import { InstanceSettings } from './instance-settings.ts';
import { LimitOverrideRepository } from './limit-overrides.ts';
import { LedgerRepository } from './ledger.ts';
import { OrganizationRepository } from './organizations.ts';
import { ReservationRepository } from './reservations.ts';
import type { Database } from './tables.ts';

export interface Repositories {
  organizations: OrganizationRepository;
  apiKeys: ApiKeyRepository;
  ledger: LedgerRepository;
  settings: InstanceSettings;
  reservations: ReservationRepository;
  instances: InstanceRepository;
  limitOverrides: LimitOverrideRepository;
}

export interface Store extends Repositories {
  db: Kysely<Database>;
  dialect: Dialect;
  location: string;
  /**
   * Runs fn with repositories bound to one transaction: all of it commits, or none.
   * Reservations are not among them: they open and close in the ledger's own group commit.
   */
  transaction<T>(fn: (tx: TransactionRepositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export type TransactionRepositories = Omit<Repositories, 'reservations'>;

/** Repositories in a caller's transaction: Kysely on that transaction. */
function transactionRepositories(db: Kysely<Database>): TransactionRepositories {
  return {
    instances: new InstanceRepository(db),
    limitOverrides: new LimitOverrideRepository(db),
    organizations: new OrganizationRepository(db),
    apiKeys: new ApiKeyRepository(db),
    ledger: new LedgerRepository(db),
    settings: new InstanceSettings(db),
  };
}

/** The store's own repositories: per-request reads prepared, the ledger batched. */
function repositories(db: Kysely<Database>, prepared: PreparedQueries, ledgerSessions: LedgerSessions): Repositories {
  const ledgerBatches = new GroupCommit<LedgerOperation, LedgerResult>((organizationId, operations) =>
    ledgerSessions.transaction((session) => commitLedgerBatch(session, organizationId, operations)),
  );
  return {
    ...transactionRepositories(db),
    reservations: new ReservationRepository(db, prepared, ledgerBatches),
    limitOverrides: new LimitOverrideRepository(db, prepared),
    organizations: new OrganizationRepository(db, prepared),
    apiKeys: new ApiKeyRepository(db, prepared),
  };
}

/** Opens the database, brings its schema up to date and returns one repository per aggregate. */
export async function openStore(options: DatabaseOptions): Promise<Store> {
  const { db, dialect, location, schema, prepared, ledgerSessions } = createDatabase(options);
  try {
    await migrate(db, dialect, schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    dialect,
    location,
    ...repositories(db, prepared, ledgerSessions),
    transaction: (fn) => db.transaction().execute((trx) => fn(transactionRepositories(trx))),
    close: () => db.destroy(),
  };
}

export type { Dialect } from './database.ts';
