import type { Kysely } from 'kysely';
import type { ApiKeyTable, Database, OrganizationStatus } from './tables.ts';

export type ApiKeyRecord = ApiKeyTable;

/** What authentication needs in one read: the key and the status of its organization. */
export interface KeyWithOrganization extends ApiKeyRecord {
  organization_status: OrganizationStatus | null;
}

export class ApiKeyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(record: ApiKeyRecord): Promise<void> {
    await this.db.insertInto('api_keys').values(record).execute();
  }

  async findBySecretHash(secretHash: string): Promise<KeyWithOrganization | undefined> {
    return this.db
      .selectFrom('api_keys')
      .leftJoin('organizations', 'organizations.id', 'api_keys.organization_id')
      .selectAll('api_keys')
      .select('organizations.status as organization_status')
      .where('api_keys.secret_hash', '=', secretHash)
      .executeTakeFirst();
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async listByOrganization(organizationId: string): Promise<ApiKeyRecord[]> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Marks the key revoked; false when it does not exist or was already revoked. */
  async revoke(id: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
