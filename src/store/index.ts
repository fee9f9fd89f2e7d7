import type { Kysely } from 'kysely';
import { ApiKeyRepository } from './api-keys.ts';
import { createDatabase, migrate, type DatabaseOptions, type Dialect } from './database.ts';
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
  /** Runs fn with repositories bound to one transaction: all of it commits, or none. */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function repositories(db: Kysely<Database>, dialect: Dialect): Repositories {
  return {
    reservations: new ReservationRepository(db, dialect),
    instances: new InstanceRepository(db),
    limitOverrides: new LimitOverrideRepository(db),
    organizations: new OrganizationRepository(db),
    apiKeys: new ApiKeyRepository(db),
    ledger: new LedgerRepository(db),
    settings: new InstanceSettings(db),
  };
}

/** Opens the database, brings its schema up to date and returns one repository per aggregate. */
export async function openStore(options: DatabaseOptions): Promise<Store> {
  const { db, dialect, location, schema } = createDatabase(options);
  try {
    await migrate(db, schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    dialect,
    location,
    ...repositories(db, dialect),
    transaction: (fn) => db.transaction().execute((trx) => fn(repositories(trx, dialect))),
    close: () => db.destroy(),
  };
}

export type { Dialect } from './database.ts';
