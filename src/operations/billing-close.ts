import type { Hold } from '../billing/billing.ts';
import type { OperationContext } from './context.ts';

/**
 * How a request's reservation closes, told to its completion line as soon as it is held. A
 * stream is charged for each output it was sent; a JSON answer is charged nothing when its
 * client left before it was written (the operation was aborted, and whatever it finished never
 * reached anyone). The returned function settles, never throws, and runs once.
 */
export function closeWhenAnswered(hold: Hold | undefined, ctx: OperationContext, streaming: boolean): () => Promise<void> {
  if (!hold) return () => Promise.resolve();
  let report!: (charged: number | undefined) => void;
  ctx.notes?.billing(new Promise((resolve) => (report = resolve)));
  const forfeited = streaming ? undefined : () => ctx.signal.aborted;
  return async () => {
    const settlement = await hold.settle(forfeited);
    report(settlement.status === 'settled' ? settlement.chargedMillicents : undefined);
  };
}
