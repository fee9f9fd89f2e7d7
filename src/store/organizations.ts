import type { Kysely } from 'kysely';
import { newId } from '../contract/ids.ts';
import { recordLedgerEntry } from './ledger.ts';
import { hot, type PreparedQueries } from './prepared.ts';
import { withTransaction } from './transaction.ts';
import type { Database, OrganizationStatus, OrganizationTable } from './tables.ts';

export type Organization = OrganizationTable;

const BY_ID = hot(
  'organization_by_id',
  'select id, name, status, balance_millicents, reserved_millicents, token_remainder, created_at from organizations where id = ?',
);

export class OrganizationRepository {
  /** `prepared` on the store itself; absent in a caller's transaction. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly prepared?: PreparedQueries,
  ) {}

  /** Creates the organization and, when starting credits are given, its first grant. */
  async create(name: string, startingMillicents = 0, now = Date.now()): Promise<Organization> {
    if (!Number.isSafeInteger(startingMillicents) || startingMillicents < 0) {
      throw new RangeError('starting credits must be a whole number of millicents, zero or more');
    }
    return withTransaction(this.db, async (trx) => {
      const organization: Organization = {
        id: newId('organization', now),
        name,
        status: 'active',
        balance_millicents: 0,
        reserved_millicents: 0,
        token_remainder: 0,
        created_at: now,
      };
      await trx.insertInto('organizations').values(organization).execute();
      if (startingMillicents > 0) {
        await recordLedgerEntry(trx, {
          organizationId: organization.id,
          kind: 'grant',
          amountMillicents: startingMillicents,
          note: 'starting credits',
          now,
        });
        organization.balance_millicents = startingMillicents;
      }
      return organization;
    });
  }

  async get(id: string): Promise<Organization | undefined> {
    if (this.prepared) return this.prepared.first<Organization>(BY_ID, [id]);
    return this.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async list(): Promise<Organization[]> {
    return this.db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async setStatus(id: string, status: OrganizationStatus): Promise<boolean> {
    const result = await this.db.updateTable('organizations').set({ status }).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
