// A child process for the group-commit crash test: reserve → deliver → settle cycles for one
// organization, many at once, until it is killed. Prints a line per 100 finished cycles.
// Usage: node --import tsx ledger-hammer.ts <dataDir> <organizationId> [postgresUrl postgresSchema]
import { Billing } from '../../src/billing/billing.ts';
import { UnsettledHolds } from '../../src/billing/unsettled.ts';
import { newId } from '../../src/contract/ids.ts';
import { openStore } from '../../src/store/index.ts';

const [dataDir, organizationId, databaseUrl, postgresSchema] = process.argv.slice(2);
const store = await openStore({ dataDir: dataDir!, databaseUrl, postgresSchema });
const billing = new Billing(store, newId('instance'), new UnsettledHolds());
const PRICE = 1000;
let finished = 0;

async function cycle(i: number): Promise<void> {
  // Some reserve more than they settle (a partial batch: settle + release), some settle nothing.
  const outputs = 1 + (i % 3);
  const hold = await billing.reserve({
    organizationId: organizationId!,
    keyId: 'key_hammer',
    requestId: newId('request'),
    model: 'paid-fixed',
    operation: 'svg_generate',
    amountMillicents: outputs * PRICE,
    pricing: { kind: 'per_output', millicentsPerOutput: PRICE },
  });
  // A little model work, of varying length, so reservations and settlements interleave across batches.
  await new Promise((resolve) => setTimeout(resolve, i % 5));
  for (let delivered = 0; delivered < (i % 4 === 0 ? 0 : outputs - (i % 2)); delivered++) await hold.deliver(undefined, false);
  await hold.settle();
}

await Promise.all(
  Array.from({ length: 64 }, async (_, worker) => {
    for (let i = worker; ; i += 64) {
      try {
        await cycle(i);
      } catch (error) {
        // Refusals for insufficient credits are expected near the end of the balance.
        if ((error as { code?: string }).code !== 'insufficient_credits') throw error;
      }
      if (++finished % 100 === 0) process.stdout.write(`${finished}\n`);
    }
  }),
);
