import type { DatabaseConnection, Driver, QueryCompiler, TransactionSettings } from 'kysely';

/**
 * Who holds SQLite's one connection. Kysely takes it for each query or transaction (through
 * GatedSqliteDriver) and the prepared hot path takes it too, so a prepared statement never runs
 * inside a transaction Kysely has open on the same connection (it would see, or write into,
 * uncommitted work).
 */
export class ConnectionGate {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  async acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }

  /** Runs synchronous work at once when the connection is free (the common case), else in turn. */
  run<T>(work: () => T): Promise<T> {
    if (!this.held) {
      try {
        return Promise.resolve(work());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.acquire().then(() => {
      try {
        return work();
      } finally {
        this.release();
      }
    });
  }
}

/** Kysely's SQLite driver, taking the shared gate with the connection. */
export class GatedSqliteDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly gate: ConnectionGate,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.gate.acquire();
    try {
      return await this.inner.acquireConnection();
    } catch (error) {
      this.gate.release();
      throw error;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.releaseConnection(connection);
    } finally {
      this.gate.release();
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint!(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint!(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
