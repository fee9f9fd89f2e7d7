import type { Kysely } from 'kysely';
import type { Database } from './tables.ts';

/** Small facts about the installation itself, such as whether it has been bootstrapped. */
export class InstanceSettings {
  constructor(private readonly db: Kysely<Database>) {}

  async get(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('instance_settings').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  /**
   * Sets the key only if it is not set yet and reports whether this call set it, so exactly
   * one of several starting replicas wins.
   */
  async claim(key: string, value: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .insertInto('instance_settings')
      .values({ key, value, updated_at: now })
      .onConflict((oc) => oc.column('key').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
