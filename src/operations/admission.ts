import { assertInGoodStanding } from '../accounts/standing.ts';
import type { Hold } from '../billing/billing.ts';
import { maxTokenCostMillicents, type Pricing } from '../billing/pricing.ts';
import type { CatalogModel } from '../config/catalog.ts';
import type { Operation } from '../contract/models.ts';
import type { TokenBounds, TokenUsage } from '../contract/usage.ts';
import type { Admission } from '../limits/limits.ts';
import { closeWhenAnswered } from './billing-close.ts';
import type { OperationContext, OperationDeps } from './context.ts';

/** What a billed operation is about to run. */
export interface AdmissionPlan {
  model: CatalogModel;
  operation: Operation;
  /** Outputs it delivers at most (n for a generation, 1 otherwise). */
  outputs: number;
  /** For a token-priced model: the most tokens the run may use, as its engine says. */
  tokens?: TokenBounds;
  streaming: boolean;
}

/**
 * An admitted operation: its limits drawn and (live keys) its reservation held. The run counts
 * what it delivers with `deliver`, and `close` — once, however the run ended — settles what was
 * delivered (nothing for a JSON answer whose client left before it was written), releases the
 * rest and gives back the token estimate it did not use.
 */
export class Admitted {
  private readonly measured = { input: 0, output: 0 };
  private readonly closeBilling: () => Promise<void>;

  constructor(
    private readonly admission: Admission,
    private readonly hold: Hold | undefined,
    private readonly streaming: boolean,
    ctx: OperationContext,
  ) {
    this.closeBilling = closeWhenAnswered(hold, ctx, streaming);
  }

  /**
   * Counts one delivered output, before it is sent. When streaming the count is written first,
   * so a crash bills what the client received; if that write fails, the output is not sent.
   */
  async deliver(usage: TokenUsage | undefined): Promise<void> {
    if (usage) {
      this.measured.input += usage.inputTokens;
      this.measured.output += usage.outputTokens;
    }
    await this.hold?.deliver(usage, this.streaming);
  }

  /** Settling never throws: one that keeps failing is left to the lease's sweep, so an answer already produced is still sent. */
  async close(): Promise<void> {
    await this.closeBilling();
    await this.admission.correctTokens(this.measured);
  }

  /** After close, for a run that did nothing and handed its request to a fallback: the counts come back too. */
  async giveBack(): Promise<void> {
    await this.admission.refundCounts();
  }
}

/**
 * The one admission sequence of every billed operation, before any model work: account
 * standing, then the operation limits (outputs, and tokens for a token-priced model), then for a
 * live key a reservation of the most the run can cost — per output at the catalog's credits, or
 * the token bounds at the model's rates. A refused reservation (402) gives the limits back.
 */
export async function admit(deps: OperationDeps, ctx: OperationContext, plan: AdmissionPlan): Promise<Admitted> {
  const { principal } = ctx;
  ctx.notes?.ran(plan.model.entry.id, plan.operation);
  assertInGoodStanding(principal);
  const billing = plan.model.entry.billing;
  const tokens = billing.kind === 'token_usage' ? (plan.tokens ?? { inputTokens: 0, outputTokens: 0 }) : undefined;
  const admission = await deps.limits.admitOperation(
    { organizationId: principal.organizationId, environment: principal.environment },
    { outputs: plan.outputs, tokens: tokens && { input: tokens.inputTokens, output: tokens.outputTokens } },
  );
  ctx.reportLimits?.(admission.outcomes);

  let hold: Hold | undefined;
  if (principal.environment === 'live') {
    let pricing: Pricing;
    let amount: number;
    if (billing.kind === 'token_usage') {
      pricing = { kind: 'tokens', rates: billing.rates };
      amount = maxTokenCostMillicents(tokens!, billing.rates);
    } else {
      // Responses are always token-priced (the catalog refuses anything else), so this is an SVG operation.
      const credits = plan.operation === 'open_responses' ? undefined : plan.model.creditsFor(plan.operation);
      const perOutput = (credits ?? 0) * deps.millicentsPerCredit;
      pricing = { kind: 'per_output', millicentsPerOutput: perOutput };
      amount = perOutput * plan.outputs;
    }
    if (amount > 0) {
      try {
        hold = await deps.billing.reserve({
          organizationId: principal.organizationId,
          keyId: principal.keyId,
          requestId: ctx.requestId,
          model: plan.model.entry.id,
          operation: plan.operation,
          amountMillicents: amount,
          pricing,
        });
      } catch (error) {
        await admission.refundAll();
        throw error;
      }
    }
  }
  return new Admitted(admission, hold, plan.streaming, ctx);
}
