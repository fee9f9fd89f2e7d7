import type { Migration } from 'kysely';
import * as initial from './0001-initial.ts';
import * as billing from './0002-billing.ts';

/** Versioned migrations, applied in name order on every start. Never edit one that has shipped. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-billing': billing,
};
