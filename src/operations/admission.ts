import { assertInGoodStanding } from '../accounts/standing.ts';
import type { Hold } from '../billing/billing.ts';
import { maxTokenCostMillicents, type Pricing } from '../billing/pricing.ts';
import type { SvgStreamEvent } from '../contract/svgs.ts';
import type { TokenUsage } from '../contract/usage.ts';
import { outputsOf, type Engine, type SvgJob } from '../engines/engine.ts';
import type { EngineRegistry } from '../engines/registry.ts';
import type { Admission } from '../limits/limits.ts';
import type { OperationContext, OperationDeps, OperationNotes } from './context.ts';
import { runSvgJob } from './svg-run.ts';
import { closeWhenAnswered } from './billing-close.ts';
import { tokenBounds } from './token-bounds.ts';

/**
 * Admits an SVG job and runs it with its billing: account standing, then the operation limits,
 * then (live keys) a reservation of the most it can cost — all before any model work. The
 * returned stream counts each delivered output (persisting the count first when streaming, so
 * a crash bills what the client received) and, however it ends, settles what was delivered and
 * releases the rest before it finishes — nothing for a JSON answer whose client left before it
 * was written. Settling never throws: one that keeps failing is left to
 * the lease's sweep, so an answer already produced is still sent (no 500, no `error` event).
 */
export async function admitSvgJob(
  deps: OperationDeps,
  ctx: OperationContext,
  job: SvgJob,
  engine: Engine,
): Promise<AsyncGenerator<SvgStreamEvent>> {
  const { principal } = ctx;
  ctx.notes?.ran(job.model.entry.id, job.operation);
  assertInGoodStanding(principal);
  const billing = job.model.entry.billing;
  const outputs = outputsOf(job);
  const bounds = billing.kind === 'token_usage' ? tokenBounds(job, job.model) : undefined;

  const admission = await deps.limits.admitOperation(
    { organizationId: principal.organizationId, environment: principal.environment },
    { outputs, tokens: bounds && { input: bounds.inputTokens, output: bounds.outputTokens } },
  );
  ctx.reportLimits?.(admission.outcomes);

  let hold: Hold | undefined;
  if (principal.environment === 'live') {
    let pricing: Pricing;
    let amount: number;
    if (billing.kind === 'token_usage') {
      pricing = { kind: 'tokens', rates: billing.rates };
      amount = maxTokenCostMillicents(bounds!, billing.rates);
    } else {
      const perOutput = (job.model.creditsFor(job.operation) ?? 0) * deps.millicentsPerCredit;
      pricing = { kind: 'per_output', millicentsPerOutput: perOutput };
      amount = perOutput * outputs;
    }
    if (amount > 0) {
      try {
        hold = await deps.billing.reserve({
          organizationId: principal.organizationId,
          keyId: principal.keyId,
          requestId: ctx.requestId,
          model: job.model.entry.id,
          operation: job.operation,
          amountMillicents: amount,
          pricing,
        });
      } catch (error) {
        await admission.refundAll();
        throw error;
      }
    }
  }
  return billedRun(job, engine, admission, closeWhenAnswered(hold, ctx, job.streaming), hold, deps.engines.measureAnimation, ctx.notes);
}

async function* billedRun(
  job: SvgJob,
  engine: Engine,
  admission: Admission,
  closeBilling: () => Promise<void>,
  hold: Hold | undefined,
  measureAnimation: EngineRegistry['measureAnimation'],
  notes: OperationNotes | undefined,
): AsyncGenerator<SvgStreamEvent> {
  const streaming = job.streaming;
  const measured = { input: 0, output: 0 };
  const delivered = async (usage: TokenUsage | undefined) => {
    if (usage) {
      measured.input += usage.inputTokens;
      measured.output += usage.outputTokens;
    }
    await hold?.deliver(usage, streaming);
  };
  try {
    for await (const event of runSvgJob(job, engine, { delivered, measureAnimation })) {
      if (event.type === 'error') notes?.failed(event.code);
      yield event;
    }
  } finally {
    await closeBilling();
    await admission.correctTokens(measured);
  }
}
