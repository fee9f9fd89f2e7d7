/**
 * The ledger alone, without HTTP: many concurrent reserve → deliver one output → settle cycles
 * for one organization, through the billing layer (Billing.reserve, Hold.settle) on a store of
 * its own. Reports completed reserve+settle pairs per second, then checks every ledger
 * invariant (balance = sum of entries, reserved = sum of open reservations = 0).
 */
import { Billing } from '../../src/billing/billing.ts';
import { UnsettledHolds } from '../../src/billing/unsettled.ts';
import { newId } from '../../src/contract/ids.ts';
import type { Store } from '../../src/store/index.ts';

export interface DirectResult {
  pairsPerSecond: number;
  pairs: number;
}

const PRICE = 1000;

export async function directLedger(store: Store, seconds: number, concurrency: number): Promise<DirectResult> {
  const organization = await store.organizations.create('Ledger bench', 1_000_000_000_000);
  const billing = new Billing(store, newId('instance'), new UnsettledHolds());
  const cycle = async () => {
    const hold = await billing.reserve({
      organizationId: organization.id,
      keyId: 'key_bench',
      requestId: newId('request'),
      model: 'bench-one',
      operation: 'svg_generate',
      amountMillicents: PRICE,
      pricing: { kind: 'per_output', millicentsPerOutput: PRICE },
    });
    await hold.deliver(undefined, false);
    const settled = await hold.settle();
    if (settled.status !== 'settled' || settled.chargedMillicents !== PRICE) throw new Error(`unexpected settlement ${JSON.stringify(settled)}`);
  };
  // A short warm-up, then the measured window.
  for (const [window, counted] of [[1, false], [seconds, true]] as const) {
    let pairs = 0;
    const deadline = performance.now() + window * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          await cycle();
          pairs++;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    if (counted) {
      await checkInvariants(store, organization.id);
      return { pairsPerSecond: Math.round(pairs / elapsed), pairs };
    }
  }
  throw new Error('unreachable');
}

async function checkInvariants(store: Store, organizationId: string): Promise<void> {
  const row = await store.organizations.get(organizationId);
  const sums = await store.ledger.recomputed(organizationId);
  const open = await store.reservations.listOpen(organizationId);
  if (row!.balance_millicents !== sums.balanceMillicents || row!.reserved_millicents !== sums.reservedMillicents || row!.reserved_millicents !== 0 || open.length > 0) {
    throw new Error(`ledger invariants broken: ${JSON.stringify({ row, sums, open: open.length })}`);
  }
}
