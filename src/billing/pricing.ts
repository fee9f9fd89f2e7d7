import type { TokenRates } from '../contract/models.ts';
import type { TokenBounds, TokenUsage } from '../contract/usage.ts';

export type { TokenBounds } from '../contract/usage.ts';

/**
 * How an operation's delivered work becomes millicents, fixed when it is reserved and stored
 * with the reservation, so a crash recovery settles by the same rule as the request would have.
 */
export type Pricing =
  | { kind: 'per_output'; millicentsPerOutput: number }
  | { kind: 'tokens'; rates: TokenRates };

/** Token rates are millicents per million tokens: costs are kept in millionths of a millicent. */
export const MICROS_PER_MILLICENT = 1_000_000n;

/** Exact cost of measured usage in millionths of a millicent (cached and cache-write tokens are part of input). */
export function tokenCostMicros(usage: TokenUsage, rates: TokenRates): bigint {
  const cached = BigInt(Math.max(0, usage.cachedInputTokens));
  const cacheWrite = BigInt(Math.max(0, usage.cacheWriteTokens));
  const uncached = BigInt(Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens));
  return (
    uncached * BigInt(rates.input) +
    cached * BigInt(rates.cached_input) +
    cacheWrite * BigInt(rates.cache_write) +
    BigInt(Math.max(0, usage.outputTokens)) * BigInt(rates.output)
  );
}


/**
 * The most a token-priced request can cost, in whole millicents: every input token at the
 * dearest input rate, every output token at the output rate, rounded up, plus one millicent
 * for the carried remainder.
 */
export function maxTokenCostMillicents(bounds: TokenBounds, rates: TokenRates): number {
  const inputRate = BigInt(Math.max(rates.input, rates.cached_input, rates.cache_write));
  const micros = BigInt(bounds.inputTokens) * inputRate + BigInt(bounds.outputTokens) * BigInt(rates.output);
  return toSafeNumber((micros + MICROS_PER_MILLICENT - 1n) / MICROS_PER_MILLICENT + 1n);
}

export interface Delivered {
  outputs: number;
  usage: TokenUsage | null;
}

export interface Charge {
  millicents: number;
  /** The organization's token remainder after this charge. */
  tokenRemainder: number;
}

/**
 * What delivered work costs. Per-output pricing is exact. Token pricing adds the organization's
 * carried remainder, charges whole millicents and carries the rest, so rounding never works
 * against the customer. A charge never exceeds what was reserved.
 */
export function chargeFor(pricing: Pricing, delivered: Delivered, reservedMillicents: number, tokenRemainder: number): Charge {
  if (pricing.kind === 'per_output') {
    return { millicents: Math.min(reservedMillicents, delivered.outputs * pricing.millicentsPerOutput), tokenRemainder };
  }
  if (!delivered.usage) return { millicents: 0, tokenRemainder };
  const total = tokenCostMicros(delivered.usage, pricing.rates) + BigInt(tokenRemainder);
  const millicents = total / MICROS_PER_MILLICENT;
  if (millicents > BigInt(reservedMillicents)) return { millicents: reservedMillicents, tokenRemainder };
  return { millicents: toSafeNumber(millicents), tokenRemainder: toSafeNumber(total % MICROS_PER_MILLICENT) };
}

export function addUsage(a: TokenUsage | null, b: TokenUsage): TokenUsage {
  if (!a) return { ...b };
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

function toSafeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('amount exceeds the safe integer range');
  return Number(value);
}
