import type { ErrorCode } from '../contract/errors.ts';
import type { LimitRule, LimitsConfig } from '../config/schema.ts';

/** What a rule counts, as named by the X-RateLimit-Dimension header. */
export type Dimension = 'request' | 'operation' | 'input-token' | 'output-token';

export interface RuleDefinition {
  dimension: Dimension;
  /** The error code of a rejection by this rule. */
  code: Extract<ErrorCode, 'rate_limit_exceeded' | 'operation_rate_limit_exceeded' | 'weekly_limit_exceeded'>;
  configured(limits: LimitsConfig): LimitRule | null;
}

/** Every rule an operator can configure or override per organization, by its CLI name. */
export const RULES = {
  'requests.svg': { dimension: 'request', code: 'rate_limit_exceeded', configured: (l) => l.requests.svg },
  'requests.edits': { dimension: 'request', code: 'rate_limit_exceeded', configured: (l) => l.requests.edits },
  'requests.animations': { dimension: 'request', code: 'rate_limit_exceeded', configured: (l) => l.requests.animations },
  'requests.responses': { dimension: 'request', code: 'rate_limit_exceeded', configured: (l) => l.requests.responses },
  'requests.catalog': { dimension: 'request', code: 'rate_limit_exceeded', configured: (l) => l.requests.catalog },
  outputs: { dimension: 'operation', code: 'operation_rate_limit_exceeded', configured: (l) => l.outputs },
  input_tokens: { dimension: 'input-token', code: 'rate_limit_exceeded', configured: (l) => l.input_tokens },
  output_tokens: { dimension: 'output-token', code: 'rate_limit_exceeded', configured: (l) => l.output_tokens },
  weekly_requests: { dimension: 'request', code: 'weekly_limit_exceeded', configured: (l) => l.weekly_requests },
} as const satisfies Record<string, RuleDefinition>;

export type RuleName = keyof typeof RULES;
export type RequestRuleName = Extract<RuleName, `requests.${string}`>;
export const RULE_NAMES = Object.keys(RULES) as RuleName[];

export function isRuleName(name: string): name is RuleName {
  return Object.hasOwn(RULES, name);
}

/** A capacity for one organization: the configured rule unless an override replaces it. */
export interface Capacity {
  limit: number;
  windowSeconds: number;
}

export function toCapacity(rule: LimitRule | null): Capacity | null {
  return rule ? { limit: rule.limit, windowSeconds: rule.window_seconds } : null;
}

/** An organization's overrides by rule: a capacity, or null where it switches the rule off. */
export type Overrides = ReadonlyMap<RuleName, Capacity | null>;

/** The capacity in force for an organization: its override when it has one, else the configured rule. */
export function capacityInForce(rule: RuleName, limits: LimitsConfig, overrides: Overrides): Capacity | null {
  if (overrides.has(rule)) return overrides.get(rule) ?? null;
  return toCapacity(RULES[rule].configured(limits));
}
