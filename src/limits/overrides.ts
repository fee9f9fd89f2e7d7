import type { LimitOverride } from '../store/limit-overrides.ts';
import type { Overrides, RuleName } from './rules.ts';

/** Where the per-organization overrides come from. */
export interface OverrideSource {
  forOrganization(organizationId: string): Promise<Overrides>;
}

const NONE: Overrides = new Map();

/** Stored override rows by rule: a row without a limit (or window) switches its rule off. */
export function overridesByRule(rows: LimitOverride[]): Overrides {
  if (rows.length === 0) return NONE;
  return new Map(
    rows.map((row) => [
      row.rule as RuleName,
      row.limit_value === null || row.window_seconds === null ? null : { limit: row.limit_value, windowSeconds: row.window_seconds },
    ]),
  );
}

/**
 * Overrides read from the store and cached briefly, so a change made by the CLI reaches every
 * replica within `ttlMs` without a database read on each request.
 */
export class CachedOverrides implements OverrideSource {
  private readonly cache = new Map<string, { expires: number; value: Promise<Overrides> }>();

  constructor(
    private readonly load: (organizationId: string) => Promise<LimitOverride[]>,
    private readonly ttlMs = 1000,
  ) {}

  forOrganization(organizationId: string): Promise<Overrides> {
    const now = Date.now();
    const cached = this.cache.get(organizationId);
    if (cached && cached.expires > now) return cached.value;
    const value = this.load(organizationId).then(overridesByRule);
    // A failed read is not cached: the next request tries again.
    value.catch(() => this.cache.delete(organizationId));
    this.cache.set(organizationId, { expires: now + this.ttlMs, value });
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value!);
    return value;
  }
}
