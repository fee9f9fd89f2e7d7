import type { Kysely } from 'kysely';
import type { Database } from './tables.ts';

/** Running server processes and their last heartbeat: reservations of a silent one are recovered. */
export class InstanceRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Marks the instance alive now. One upsert rather than update-then-insert: the heartbeat
   * thread and the main loop (while the thread starts) may beat at the same moment.
   */
  async heartbeat(id: string, now = Date.now()): Promise<void> {
    await this.db
      .insertInto('instances')
      .values({ id, started_at: now, heartbeat_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_at: now }))
      .execute();
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
