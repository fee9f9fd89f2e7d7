import type { Kysely } from 'kysely';
import { ApiKeyRepository } from './api-keys.ts';
import { createDatabase, migrate, type DatabaseOptions, type Dialect } from './database.ts';
import { InstanceSettings } from './instance-settings.ts';
import { LedgerRepository } from './ledger.ts';
import { OrganizationRepository } from './organizations.ts';
import type { Database } from './tables.ts';

export interface Repositories {
  organizations: OrganizationRepository;
  apiKeys: ApiKeyRepository;
  ledger: LedgerRepository;
  settings: InstanceSettings;
}

export interface Store extends Repositories {
  db: Kysely<Database>;
  dialect: Dialect;
  location: string;
  /** Runs fn with repositories bound to one transaction: all of it commits, or none. */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function repositories(db: Kysely<Database>): Repositories {
  return {
    organizations: new OrganizationRepository(db),
    apiKeys: new ApiKeyRepository(db),
    ledger: new LedgerRepository(db),
    settings: new InstanceSettings(db),
  };
}

/** Opens the database, brings its schema up to date and returns one repository per aggregate. */
export async function openStore(options: DatabaseOptions): Promise<Store> {
  const { db, dialect, location } = createDatabase(options);
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    dialect,
    location,
    ...repositories(db),
    transaction: (fn) => db.transaction().execute((trx) => fn(repositories(trx))),
    close: () => db.destroy(),
  };
}

export type { Dialect } from './database.ts';
