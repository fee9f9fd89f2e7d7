import type { Kysely } from 'kysely';
import { hot, type PreparedQueries } from './prepared.ts';
import type { Database, LimitOverrideTable } from './tables.ts';

export type LimitOverride = LimitOverrideTable;

/** Per-organization replacements of configured limits, set by operators through the CLI. */
const FOR_ORGANIZATION = hot(
  'limit_overrides_for_organization',
  'select organization_id, rule, limit_value, window_seconds, updated_at from limit_overrides where organization_id = ? order by rule',
);

export class LimitOverrideRepository {
  /** `prepared` on the store itself; absent in a caller's transaction. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly prepared?: PreparedQueries,
  ) {}

  async forOrganization(organizationId: string): Promise<LimitOverride[]> {
    if (this.prepared) return this.prepared.rows<LimitOverride>(FOR_ORGANIZATION, [organizationId]);
    return this.db.selectFrom('limit_overrides').selectAll().where('organization_id', '=', organizationId).orderBy('rule').execute();
  }

  async set(override: Omit<LimitOverride, 'updated_at'>, now = Date.now()): Promise<void> {
    await this.db
      .insertInto('limit_overrides')
      .values({ ...override, updated_at: now })
      .onConflict((oc) =>
        oc.columns(['organization_id', 'rule']).doUpdateSet({
          limit_value: override.limit_value,
          window_seconds: override.window_seconds,
          updated_at: now,
        }),
      )
      .execute();
  }

  async clear(organizationId: string, rule: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('limit_overrides')
      .where('organization_id', '=', organizationId)
      .where('rule', '=', rule)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
