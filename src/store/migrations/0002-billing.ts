import type { Kysely } from 'kysely';

/**
 * Reservations, the reserved balance and sub-millicent carry of token pricing, instance leases
 * for crash recovery, and per-organization limit overrides.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('reserved_millicents', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('organizations')
    .addColumn('token_remainder', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .alterTable('ledger_entries')
    .addColumn('reserved_delta_millicents', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('ledger_entries')
    .addColumn('reserved_after_millicents', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('ledger_entries').addColumn('reservation_id', 'text').execute();

  await db.schema
    .createTable('reservations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount_millicents', 'bigint', (c) => c.notNull())
    .addColumn('pricing', 'text', (c) => c.notNull())
    .addColumn('delivered_outputs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered_usage', 'text')
    .addColumn('settled_millicents', 'bigint')
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reservations_open').on('reservations').columns(['status', 'instance_id']).execute();

  await db.schema
    .createTable('instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('limit_overrides')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('limit_value', 'bigint')
    .addColumn('window_seconds', 'integer')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('limit_overrides_pk', ['organization_id', 'rule'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('limit_overrides').ifExists().execute();
  await db.schema.dropTable('instances').ifExists().execute();
  await db.schema.dropTable('reservations').ifExists().execute();
}
