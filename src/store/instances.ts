import type { Kysely } from 'kysely';
import type { Database } from './tables.ts';

/** Running server processes and their last heartbeat: reservations of a silent one are recovered. */
export class InstanceRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async heartbeat(id: string, now = Date.now()): Promise<void> {
    const updated = await this.db.updateTable('instances').set({ heartbeat_at: now }).where('id', '=', id).executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      await this.db.insertInto('instances').values({ id, started_at: now, heartbeat_at: now }).execute();
    }
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('instances').where('id', '=', id).execute();
  }

  /** Forgets instances silent since before `silentSince` that hold no open reservation. */
  async prune(silentSince: number): Promise<void> {
    await this.db
      .deleteFrom('instances')
      .where('heartbeat_at', '<', silentSince)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('reservations').select('reservations.id').whereRef('reservations.instance_id', '=', 'instances.id').where('reservations.status', '=', 'open'))),
      )
      .execute();
  }
}
