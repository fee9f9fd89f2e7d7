/** Row shapes of every table. Times are Unix milliseconds; money is integer millicents. */

export interface OrganizationTable {
  id: string;
  name: string;
  /** active | closed | frozen | funding_pending | payment_method_required | payment_action_required | payment_failed */
  status: string;
  balance_millicents: number;
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
  /** grant | adjustment (and, with billing, reserve | settle | release) */
  kind: string;
  amount_millicents: number;
  balance_after_millicents: number;
  request_id: string | null;
  key_id: string | null;
  model: string | null;
  operation: string | null;
  note: string | null;
  created_at: number;
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
}
