import type { Kysely } from 'kysely';
import { hot, type PreparedQueries } from './prepared.ts';
import type { ApiKeyTable, Database, OrganizationStatus } from './tables.ts';

export type ApiKeyRecord = ApiKeyTable;

/** What authentication needs in one read: the key and the status of its organization. */
export interface KeyWithOrganization extends ApiKeyRecord {
  organization_status: OrganizationStatus | null;
}

const BY_SECRET_HASH = hot(
  'api_key_by_secret_hash',
  `select api_keys.id, api_keys.organization_id, api_keys.kind, api_keys.environment, api_keys.secret_hash, api_keys.hint,
     api_keys.name, api_keys.scopes, api_keys.models, api_keys.created_at, api_keys.revoked_at,
     organizations.status as organization_status
   from api_keys left join organizations on organizations.id = api_keys.organization_id
   where api_keys.secret_hash = ?`,
);

export class ApiKeyRepository {
  /** `prepared` on the store itself; absent in a caller's transaction. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly prepared?: PreparedQueries,
  ) {}

  async insert(record: ApiKeyRecord): Promise<void> {
    await this.db.insertInto('api_keys').values(record).execute();
  }

  /** Every authenticated request reads this. */
  async findBySecretHash(secretHash: string): Promise<KeyWithOrganization | undefined> {
    if (this.prepared) return this.prepared.first<KeyWithOrganization>(BY_SECRET_HASH, [secretHash]);
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
