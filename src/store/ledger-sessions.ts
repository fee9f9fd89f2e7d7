import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import type { LedgerSession, LedgerSessions, OrganizationTotals, ReservationClaim } from './ledger-batch.ts';
import type { LedgerEntry } from './ledger.ts';
import type { Reservation } from './reservations.ts';
import type { ConnectionGate } from './sqlite-gate.ts';

// The ledger batch's statements, by hand per dialect: SQLite runs one prepared statement per row
// (a statement costs microseconds in process); PostgreSQL sends each kind of row in one named
// statement over arrays (a statement costs a round trip).

const RESERVATION_COLUMNS = [
  'id', 'organization_id', 'status', 'amount_millicents', 'pricing', 'delivered_outputs', 'delivered_usage', 'settled_millicents',
  'instance_id', 'request_id', 'key_id', 'model', 'operation', 'created_at', 'updated_at',
] as const satisfies readonly (keyof Reservation)[];
const RESERVATION_TYPES = ['text', 'text', 'text', 'int8', 'text', 'int4', 'text', 'int8', 'text', 'text', 'text', 'text', 'text', 'int8', 'int8'];

const ENTRY_COLUMNS = [
  'id', 'organization_id', 'kind', 'amount_millicents', 'balance_after_millicents', 'reserved_delta_millicents', 'reserved_after_millicents',
  'reservation_id', 'request_id', 'key_id', 'model', 'operation', 'note', 'created_at',
] as const satisfies readonly (keyof LedgerEntry)[];
const ENTRY_TYPES = ['text', 'text', 'text', 'int8', 'int8', 'int8', 'int8', 'text', 'text', 'text', 'text', 'text', 'text', 'int8'];

const TOTALS = 'balance_millicents, reserved_millicents, token_remainder';
const APPLY_TOTALS = `update organizations set balance_millicents = balance_millicents + ?, reserved_millicents = reserved_millicents + ?, token_remainder = ? where id = ? returning ${TOTALS}`;
const CLAIM = `update reservations set status = ?, settled_millicents = ?, updated_at = ? where id = ? and status = 'open'`;

const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/** SQLite: one BEGIN IMMEDIATE … COMMIT holding the shared connection, with statements prepared once. */
export class SqliteLedgerSessions implements LedgerSessions {
  private prepared?: ReturnType<typeof prepareSqliteSession>;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly gate: ConnectionGate,
  ) {}

  async transaction<T>(work: (session: LedgerSession) => Promise<T>): Promise<T> {
    // Prepared on first use: the tables exist only once the migrations ran.
    const { begin, commit, rollback, session } = (this.prepared ??= prepareSqliteSession(this.sqlite));
    await this.gate.acquire();
    try {
      begin.run();
      try {
        const result = await work(session);
        commit.run();
        return result;
      } catch (error) {
        if (this.sqlite.inTransaction) rollback.run();
        throw error;
      }
    } finally {
      this.gate.release();
    }
  }
}

function prepareSqliteSession(sqlite: SqliteDatabase.Database) {
  const prepare = (text: string) => sqlite.prepare(text);
  // BEGIN IMMEDIATE takes the write lock at once, so another process cannot write in between.
  const begin = prepare('begin immediate');
  const commit = prepare('commit');
  const rollback = prepare('rollback');
  const lock = prepare(`select ${TOTALS} from organizations where id = ?`);
  const status = prepare('select status from reservations where id = ?').pluck();
  const insertReservation = prepare(`insert into reservations (${RESERVATION_COLUMNS.join(', ')}) values (${RESERVATION_COLUMNS.map(() => '?').join(', ')})`);
  const claim = prepare(CLAIM);
  const insertEntry = prepare(`insert into ledger_entries (${ENTRY_COLUMNS.join(', ')}) values (${ENTRY_COLUMNS.map(() => '?').join(', ')})`);
  const applyTotals = prepare(APPLY_TOTALS);
  const session: LedgerSession = {
    lockOrganization: async (id) => lock.get(id) as OrganizationTotals | undefined,
    openAmong: async (ids) => new Set(ids.filter((id) => status.get(id) === 'open')),
    insertReservations: async (rows) => {
      for (const row of rows) insertReservation.run(...RESERVATION_COLUMNS.map((column) => row[column]));
    },
    claimReservations: async (claims: ReservationClaim[]) => {
      let claimed = 0;
      for (const c of claims) claimed += claim.run(c.status, c.settled_millicents, c.updated_at, c.id).changes;
      return claimed;
    },
    insertEntries: async (entries) => {
      for (const entry of entries) insertEntry.run(...ENTRY_COLUMNS.map((column) => entry[column]));
    },
    applyTotals: async (id, balanceDelta, reservedDelta, remainder) => applyTotals.get(balanceDelta, reservedDelta, remainder, id) as OrganizationTotals,
  };
  return { begin, commit, rollback, session };
}

/** Columns of rows as parallel arrays, for unnest(). */
function arrays<Row>(rows: Row[], columns: readonly (keyof Row)[]): unknown[][] {
  return columns.map((column) => rows.map((row) => row[column]));
}

const unnest = (types: string[]) => `unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;

const PG = {
  lock: { name: 'ledger_lock_organization', text: `select ${TOTALS} from organizations where id = $1 for update` },
  openAmong: { name: 'ledger_open_among', text: `select id from reservations where id = any($1::text[]) and status = 'open'` },
  insertReservations: {
    name: 'ledger_insert_reservations',
    text: `insert into reservations (${RESERVATION_COLUMNS.join(', ')}) select * from ${unnest(RESERVATION_TYPES)}`,
  },
  claim: {
    name: 'ledger_claim_reservations',
    text: `update reservations r set status = c.status, settled_millicents = c.settled, updated_at = c.updated_at
      from unnest($1::text[], $2::text[], $3::int8[], $4::int8[]) as c(id, status, settled, updated_at)
      where r.id = c.id and r.status = 'open'`,
  },
  insertEntries: { name: 'ledger_insert_entries', text: `insert into ledger_entries (${ENTRY_COLUMNS.join(', ')}) select * from ${unnest(ENTRY_TYPES)}` },
  applyTotals: { name: 'ledger_apply_totals', text: numbered(APPLY_TOTALS) },
};

/** PostgreSQL: one transaction on one pooled connection, a named statement per kind of row. */
export class PostgresLedgerSessions implements LedgerSessions {
  constructor(private readonly pool: pg.Pool) {}

  async transaction<T>(work: (session: LedgerSession) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    const query = async <R extends pg.QueryResultRow>(statement: { name: string; text: string }, values: unknown[]) =>
      client.query<R>({ ...statement, values });
    const session: LedgerSession = {
      lockOrganization: async (id) => (await query<OrganizationTotals>(PG.lock, [id])).rows[0],
      openAmong: async (ids) => new Set((await query<{ id: string }>(PG.openAmong, [ids])).rows.map((row) => row.id)),
      insertReservations: async (rows) => void (await query(PG.insertReservations, arrays(rows, RESERVATION_COLUMNS))),
      claimReservations: async (claims) => (await query(PG.claim, arrays(claims, ['id', 'status', 'settled_millicents', 'updated_at']))).rowCount ?? 0,
      insertEntries: async (entries) => void (await query(PG.insertEntries, arrays(entries, ENTRY_COLUMNS))),
      applyTotals: async (id, balanceDelta, reservedDelta, remainder) =>
        (await query<OrganizationTotals>(PG.applyTotals, [balanceDelta, reservedDelta, remainder, id])).rows[0]!,
    };
    try {
      await client.query('begin');
      const result = await work(session);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
