import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
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
  /** The connection's `synchronous` setting, relaxed for an unsynced write and restored after. */
  private relax?: [SqliteDatabase.Statement, SqliteDatabase.Statement];
  /** Unsynced writes waiting for the end of this turn of the event loop. */
  private unsynced: PendingWrite[] = [];

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
    return new Promise((resolve, reject) => {
      if (this.unsynced.push({ statement, values, resolve, reject }) === 1) setImmediate(() => this.writeUnsynced());
    });
  }

  /**
   * The unsynced writes of one turn of the event loop, in one transaction: one commit to the WAL
   * for all of them. Each caller gets its own row count; a failure fails them all.
   */
  private writeUnsynced(): void {
    const batch = this.unsynced;
    this.unsynced = [];
    this.gate
      .run(() => {
        // synchronous is per connection, and the gate makes this the only work on it meanwhile.
        this.relax ??= [this.sqlite.prepare('PRAGMA synchronous = NORMAL'), this.sqlite.prepare('PRAGMA synchronous = FULL')];
        const writeAll = this.sqlite.transaction(() => batch.map((write) => this.statement(write.statement).run(...write.values).changes));
        this.relax[0].run();
        try {
          return writeAll();
        } finally {
          this.relax[1].run();
        }
      })
      .then(
        (counts) => batch.forEach((write, i) => write.resolve(counts[i]!)),
        (error: unknown) => batch.forEach((write) => write.reject(error)),
      );
  }
}

interface PendingWrite {
  statement: HotStatement;
  values: SqlValue[];
  resolve(changes: number): void;
  reject(error: unknown): void;
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
