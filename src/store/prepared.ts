import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import { GroupCommit, type Outcome } from './group-commit.ts';
import type { ConnectionGate } from './sqlite-gate.ts';

/**
 * A per-request statement, written once for both dialects (with `?` placeholders, numbered
 * `$1…` for PostgreSQL), prepared once per connection and reused: nothing on the hot path builds
 * SQL. Each one sits next to the Kysely query it stands for, which the same repository uses
 * inside a caller's transaction.
 */
export interface HotStatement {
  /** The PostgreSQL prepared statement's name. */
  name: string;
  sqlite: string;
  postgres: string;
  /**
   * A SQLite write that need not be fsynced on its own: it reaches the disk with the next synced
   * commit (WAL), and losing it to a power cut can only ever cost the service, never a customer.
   */
  unsynced?: boolean;
}

export function hot(name: string, text: string, options: { unsynced?: boolean } = {}): HotStatement {
  let n = 0;
  return { name, sqlite: text, postgres: text.replace(/\?/g, () => `$${++n}`), unsynced: options.unsynced };
}

export type SqlValue = string | number | null;

/** Runs hot statements: prepared once (SQLite) or as named statements (PostgreSQL). */
export interface PreparedQueries {
  rows<R>(statement: HotStatement, values: SqlValue[]): Promise<R[]>;
  /** The first row, for lookups by a unique key (SQLite stops at it). */
  first<R>(statement: HotStatement, values: SqlValue[]): Promise<R | undefined>;
  /** Rows changed by a writing statement. */
  changes(statement: HotStatement, values: SqlValue[]): Promise<number>;
}

/** SQLite: statements prepared on first use and kept; each runs when the one connection is free. */
export class SqlitePreparedQueries implements PreparedQueries {
  private readonly prepared = new Map<HotStatement, SqliteDatabase.Statement>();
  /**
   * The unsynced writes of one turn of the event loop, in one transaction: one commit to the WAL
   * for all of them (those arriving meanwhile go in the next). Each caller gets its own row
   * count; a failure fails them all.
   */
  private readonly unsynced = new GroupCommit<PendingWrite, number>((_key, writes) => this.writeUnsynced(writes));
  /** The batch's transaction, with `synchronous` relaxed around it (built on first use). */
  private unsyncedBatch?: (writes: PendingWrite[]) => Outcome<number>[];

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly gate: ConnectionGate,
  ) {}

  statement(statement: HotStatement): SqliteDatabase.Statement {
    let prepared = this.prepared.get(statement);
    if (!prepared) {
      prepared = this.sqlite.prepare(statement.sqlite);
      this.prepared.set(statement, prepared);
    }
    return prepared;
  }

  rows<R>(statement: HotStatement, values: SqlValue[]): Promise<R[]> {
    return this.gate.run(() => this.statement(statement).all(...values) as R[]);
  }

  first<R>(statement: HotStatement, values: SqlValue[]): Promise<R | undefined> {
    return this.gate.run(() => this.statement(statement).get(...values) as R | undefined);
  }

  changes(statement: HotStatement, values: SqlValue[]): Promise<number> {
    if (!statement.unsynced) return this.gate.run(() => this.statement(statement).run(...values).changes);
    return this.unsynced.submit('', { statement, values });
  }

  private writeUnsynced(writes: PendingWrite[]): Promise<Outcome<number>[]> {
    return this.gate.run(() => {
      if (!this.unsyncedBatch) {
        // synchronous is per connection, and the gate makes this the only work on it meanwhile.
        const relax = this.sqlite.prepare('PRAGMA synchronous = NORMAL');
        const restore = this.sqlite.prepare('PRAGMA synchronous = FULL');
        const writeAll = this.sqlite.transaction((batch: PendingWrite[]) =>
          batch.map((write): Outcome<number> => ({ ok: true, value: this.statement(write.statement).run(...write.values).changes })),
        );
        this.unsyncedBatch = (batch) => {
          relax.run();
          try {
            return writeAll(batch);
          } finally {
            restore.run();
          }
        };
      }
      return this.unsyncedBatch(writes);
    });
  }
}

interface PendingWrite {
  statement: HotStatement;
  values: SqlValue[];
}

/** PostgreSQL: named statements, which each pooled connection parses once. */
export class PostgresPreparedQueries implements PreparedQueries {
  constructor(private readonly pool: pg.Pool) {}

  async rows<R>(statement: HotStatement, values: SqlValue[]): Promise<R[]> {
    return (await this.pool.query({ name: statement.name, text: statement.postgres, values })).rows as R[];
  }

  async first<R>(statement: HotStatement, values: SqlValue[]): Promise<R | undefined> {
    return (await this.rows<R>(statement, values))[0];
  }

  async changes(statement: HotStatement, values: SqlValue[]): Promise<number> {
    return (await this.pool.query({ name: statement.name, text: statement.postgres, values })).rowCount ?? 0;
  }
}
