import assert from 'node:assert/strict';
import type { Logger } from 'pino';
import { Billing, type Hold } from '../../src/billing/billing.ts';
import { InstanceLease, type LeaseOptions } from '../../src/billing/recovery.ts';
import { newId } from '../../src/contract/ids.ts';
import type { Store } from '../../src/store/index.ts';

/** Rates that leave sub-millicent remainders, so the carry is exercised. */
export const TOKEN_RATES = { input: 1_234_567, cached_input: 100_001, cache_write: 2_000_003, output: 3_333_333 };

/** Sandbox-backed models billed like real ones, for live keys. */
export const PAID_MODELS = [
  {
    id: 'paid-fixed',
    engine: 'sandbox',
    operations: ['svg_generate', 'svg_vectorize', 'svg_edit', 'svg_animate'],
    billing: { kind: 'fixed_credit', credits: { svg_generate: 3, svg_vectorize: 2, svg_edit: 5, svg_animate: 7 } },
  },
  {
    id: 'paid-one',
    engine: 'sandbox',
    operations: ['svg_generate'],
    billing: { kind: 'fixed_credit', credits: { svg_generate: 1, svg_vectorize: 0 } },
  },
  {
    id: 'paid-tokens',
    engine: 'sandbox',
    operations: ['svg_generate', 'svg_edit', 'svg_animate'],
    max_output_length: 4096,
    billing: { kind: 'token_usage', rates: TOKEN_RATES },
  },
];

export const PAID_CONFIG = { catalog: { models: PAID_MODELS } };

/** Millicents per output of paid-fixed's svg_generate (3 credits). */
export const PAID_FIXED_PRICE = 3000;

/** A live process on `store`: its lease, started (heartbeating and sweeping on its timer), and its billing. */
export async function startBillingProcess(store: Store, options: LeaseOptions, logger?: Logger): Promise<{ lease: InstanceLease; billing: Billing }> {
  const lease = new InstanceLease(store, newId('instance'), options, logger);
  await lease.start();
  return { lease, billing: new Billing(store, lease.instanceId, lease.unsettled) };
}

/** Reserves 3 outputs of paid-fixed's svg_generate, at PAID_FIXED_PRICE each. */
export function reserveThree(billing: Billing, organizationId: string): Promise<Hold> {
  return billing.reserve({
    organizationId,
    keyId: 'key_test',
    requestId: newId('request'),
    model: 'paid-fixed',
    operation: 'svg_generate',
    amountMillicents: 3 * PAID_FIXED_PRICE,
    pricing: { kind: 'per_output', millicentsPerOutput: PAID_FIXED_PRICE },
  });
}

export interface Totals {
  balance: number;
  reserved: number;
}

/** The stored balance and reserved amount, after checking both against the ledger entries. */
export async function ledgerTotals(store: Store, organizationId: string): Promise<Totals> {
  // The organization row and the ledger are two reads; a server settling in between (a recovery
  // sweep in another process) would make them disagree for a moment. Take the ledger between two
  // equal reads of the row, so both describe the same committed state.
  for (let attempt = 0; ; attempt++) {
    const before = await store.organizations.get(organizationId);
    assert.ok(before, 'organization exists');
    const recomputed = await store.ledger.recomputed(organizationId);
    const after = await store.organizations.get(organizationId);
    const settled =
      after?.balance_millicents === before.balance_millicents && after.reserved_millicents === before.reserved_millicents;
    if (!settled && attempt < 50) continue;
    assert.equal(recomputed.balanceMillicents, before.balance_millicents, 'balance equals the sum of ledger amounts');
    assert.equal(recomputed.reservedMillicents, before.reserved_millicents, 'reserved equals the sum of reserved deltas');
    return { balance: before.balance_millicents, reserved: before.reserved_millicents };
  }
}

/** Exact token cost with the carried remainder, computed independently of the service's code. */
export function expectedTokenCharge(
  usage: { input_tokens: number; output_tokens: number },
  remainder: bigint,
): { millicents: number; remainder: bigint } {
  const micros =
    BigInt(usage.input_tokens) * BigInt(TOKEN_RATES.input) + BigInt(usage.output_tokens) * BigInt(TOKEN_RATES.output) + remainder;
  return { millicents: Number(micros / 1_000_000n), remainder: micros % 1_000_000n };
}
