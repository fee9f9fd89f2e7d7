// Row shapes of every table. Times are Unix milliseconds; money is integer millicents.

/**
 * What an organization may do: `active`; `frozen` (403 on every key); a funding state (402 on live
 * keys); `closed` (its keys no longer authenticate). Set by operators with `org set-status`.
 */
export const ORGANIZATION_STATUSES = [
  'active',
  'closed',
  'frozen',
  'funding_pending',
  'payment_method_required',
  'payment_action_required',
  'payment_failed',
] as const;
export type OrganizationStatus = (typeof ORGANIZATION_STATUSES)[number];

export function isOrganizationStatus(value: string): value is OrganizationStatus {
  return (ORGANIZATION_STATUSES as readonly string[]).includes(value);
}

export interface OrganizationTable {
  id: string;
  name: string;
  status: OrganizationStatus;
  /** Posted balance: the sum of every ledger entry's amount. */
  balance_millicents: number;
  /** Held by open reservations: the sum of every ledger entry's reserved delta. */
  reserved_millicents: number;
  /** Token pricing's sub-millicent remainder (millionths of a millicent) not yet charged. */
  token_remainder: number;
  created_at: number;
}

export interface ApiKeyTable {
  id: string;
  organization_id: string;
  kind: string;
  environment: string | null;
  secret_hash: string;
  /** Recognisable but harmless part of the secret, e.g. `sk_live_…a1B2`. */
  hint: string;
  name: string | null;
  /** JSON array of capability or permission names, or ["*"]. */
  scopes: string;
  /** JSON array of model ids, or ["*"]. */
  models: string;
  created_at: number;
  revoked_at: number | null;
}

export interface LedgerEntryTable {
  id: string;
  organization_id: string;
  /** grant | adjustment | reserve | settle | release */
  kind: string;
  /** Change of the posted balance. */
  amount_millicents: number;
  balance_after_millicents: number;
  /** Change of the reserved amount (reserve +, settle and release −). */
  reserved_delta_millicents: number;
  reserved_after_millicents: number;
  reservation_id: string | null;
  request_id: string | null;
  key_id: string | null;
  model: string | null;
  operation: string | null;
  note: string | null;
  created_at: number;
}

export interface ReservationTable {
  id: string;
  organization_id: string;
  /** open | settled | released */
  status: string;
  /** The most the operation can cost, held from the balance until it settles. */
  amount_millicents: number;
  /** JSON Pricing: how delivered outputs or usage turn into millicents (fixed at reserve time). */
  pricing: string;
  /** Outputs committed to the client so far (streams record each one). */
  delivered_outputs: number;
  /** JSON TokenUsage summed over delivered outputs, for token-priced models. */
  delivered_usage: string | null;
  settled_millicents: number | null;
  /** The process that holds it; a reservation of a process that stopped heartbeating is recovered. */
  instance_id: string;
  request_id: string;
  key_id: string;
  model: string;
  operation: string;
  created_at: number;
  updated_at: number;
}

export interface InstanceTable {
  id: string;
  started_at: number;
  heartbeat_at: number;
}

export interface LimitOverrideTable {
  organization_id: string;
  rule: string;
  /** null disables the rule for the organization. */
  limit_value: number | null;
  window_seconds: number | null;
  updated_at: number;
}

export interface InstanceSettingTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface Database {
  organizations: OrganizationTable;
  api_keys: ApiKeyTable;
  ledger_entries: LedgerEntryTable;
  instance_settings: InstanceSettingTable;
  reservations: ReservationTable;
  instances: InstanceTable;
  limit_overrides: LimitOverrideTable;
}
