import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, Migrator, PostgresDialect, SqliteAdapter, SqliteDialect, sql, type DialectAdapter, type Driver, type MigrationProvider, type SqliteDialectConfig } from 'kysely';
import pg from 'pg';
import { redactUrl } from '../config/redact-url.ts';
import { PostgresLedgerSessions, SqliteLedgerSessions } from './ledger-sessions.ts';
import type { LedgerSessions } from './ledger-batch.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { PostgresPreparedQueries, SqlitePreparedQueries, type PreparedQueries } from './prepared.ts';
import { ConnectionGate, GatedSqliteDriver } from './sqlite-gate.ts';
import { Sqlite } from './sqlite-driver.ts';
import type { Database } from './tables.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  /** postgres://… selects PostgreSQL; otherwise the SQLite file under dataDir. */
  databaseUrl?: string;
  dataDir: string;
  /** PostgreSQL schema to work in (tests isolate themselves this way). */
  postgresSchema?: string;
  poolSize?: number;
}

export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where the data lives, for log lines (never includes a password). */
  location: string;
  /** The PostgreSQL schema the tables live in, when not the default one. */
  schema?: string;
  /** The per-request statements, prepared once. */
  prepared: PreparedQueries;
  /** Transactions for the ledger's group commit. */
  ledgerSessions: LedgerSessions;
}

const INT8_OID = 20;
const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Kysely's SQLite adapter takes no migration lock (it assumes one process). Holding a write
 * transaction (BEGIN IMMEDIATE) for the whole migration makes processes that open the same
 * fresh file at once wait for each other, and each sees what the first one applied.
 */
class LockingSqliteAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    // better-sqlite3 waits for a busy lock synchronously, which would stall a holder in this
    // same process; so the wait happens here, asynchronously, with SQLite's own timeout off.
    await sql`pragma busy_timeout = 0`.execute(db);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await sql`begin immediate`.execute(db);
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 1200) throw error;
          await sleep(25);
        }
      }
    } finally {
      await sql`pragma busy_timeout = ${sql.raw(String(SQLITE_BUSY_TIMEOUT_MS))}`.execute(db);
    }
  }

  override async releaseMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`commit`.execute(db);
  }
}

class LockingSqliteDialect extends SqliteDialect {
  constructor(
    config: SqliteDialectConfig,
    private readonly gate: ConnectionGate,
  ) {
    super(config);
  }

  override createAdapter(): DialectAdapter {
    return new LockingSqliteAdapter();
  }

  override createDriver(): Driver {
    return new GatedSqliteDriver(super.createDriver(), this.gate);
  }
}

/** PostgreSQL returns int8 as strings; money and times fit safely in a JS number. */
function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`int8 value ${value} exceeds the safe integer range`);
  return parsed;
}

function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}

export function createDatabase(options: DatabaseOptions): OpenDatabase {
  if (options.databaseUrl && !isPostgresUrl(options.databaseUrl)) {
    throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  }
  if (isPostgresUrl(options.databaseUrl)) {
    const schema = options.postgresSchema;
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: { getTypeParser: (oid: number, format?: string) => (oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format as 'text')) } as never,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    return {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
      dialect: 'postgres',
      location: redactUrl(options.databaseUrl, 'postgres'),
      schema,
      prepared: new PostgresPreparedQueries(pool),
      ledgerSessions: new PostgresLedgerSessions(pool),
    };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const file = join(options.dataDir, 'inkwell.sqlite');
  const sqlite = new Sqlite(file);
  sqlite.pragma('journal_mode = WAL');
  // WAL with FULL: every commit is fsynced before it returns, so an answered request's ledger
  // entries survive a power loss too. Group commit (ledger-batch.ts) pays one fsync per batch.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  sqlite.pragma('foreign_keys = ON');
  const gate = new ConnectionGate();
  return {
    db: new Kysely<Database>({ dialect: new LockingSqliteDialect({ database: sqlite }, gate) }),
    dialect: 'sqlite',
    location: file,
    prepared: new SqlitePreparedQueries(sqlite, gate),
    ledgerSessions: new SqliteLedgerSessions(sqlite, gate),
  };
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema up to date; safe to run from several replicas at once. */
export async function migrate(db: Kysely<Database>, dialect: Dialect, schema?: string): Promise<void> {
  // Without a schema Kysely looks for its tables in every schema of the database and may find
  // another one's (another Inkwell, or any app with a schema_migrations table): on PostgreSQL
  // the tables go where the connection's search_path puts them, so that schema is named.
  const tableSchema = schema ?? (dialect === 'postgres' ? await currentSchema(db) : undefined);
  const { error, results } = await new Migrator({
    db,
    provider,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    ...(tableSchema ? { migrationTableSchema: tableSchema } : {}),
  }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
}

/** The schema new tables go to: the first of the search_path that exists. */
async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

/** The newest migration this build knows. */
const LATEST_MIGRATION = Object.keys(MIGRATIONS).sort().at(-1)!;

/**
 * Whether every migration this build knows is applied: one read of the newest one's row (they
 * are applied in name order). Later migrations of a newer replica do not count against this
 * one, so a rolling upgrade keeps older replicas ready. Throws when the database does not answer.
 */
export async function migrationsApplied(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ name: string }>`select name from schema_migrations where name = ${LATEST_MIGRATION}`.execute(db);
  return rows.length > 0;
}

export async function ping(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
