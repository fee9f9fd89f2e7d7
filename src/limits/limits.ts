import type { KeyEnvironment } from '../contract/auth.ts';
import { ApiError } from '../contract/errors.ts';
import type { LimitsConfig } from '../config/schema.ts';
import type { Counters, CounterState } from './counters.ts';
import type { OverrideSource } from './overrides.ts';
import { capacityInForce, RULES, type Capacity, type RequestRuleName, type RuleName } from './rules.ts';

/** Whose budget a request draws on: an organization's live budget, or its sandbox budget. */
export interface LimitSubject {
  organizationId: string;
  environment: KeyEnvironment | null;
}

/** One rule's count after a request was admitted (or refused) by it. */
export interface LimitOutcome {
  rule: RuleName;
  subject: LimitSubject;
  capacity: Capacity;
  state: CounterState;
  points: number;
}

/** What an operation asks of the throughput, token and weekly rules. */
export interface OperationDemand {
  outputs: number;
  /** Upper bounds of a token-priced request; absent for fixed-credit models. */
  tokens?: { input: number; output: number };
}

/** The X-RateLimit-* headers of an outcome (Reset is Unix milliseconds). */
export function rateLimitHeaders(outcome: LimitOutcome, now = Date.now()): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(outcome.capacity.limit),
    'X-RateLimit-Remaining': String(Math.max(0, outcome.state.remaining)),
    'X-RateLimit-Reset': String(now + outcome.state.msBeforeReset),
    'X-RateLimit-Scope': outcome.subject.environment === 'test' ? 'sandbox' : 'organization',
    'X-RateLimit-Subject': outcome.subject.organizationId,
    'X-RateLimit-Dimension': RULES[outcome.rule].dimension,
  };
}

/** The outcome closest to its limit: the one whose headers a client most needs to see. */
export function bindingOutcome(outcomes: LimitOutcome[]): LimitOutcome | undefined {
  let binding: LimitOutcome | undefined;
  for (const outcome of outcomes) {
    if (!binding || outcome.state.remaining / outcome.capacity.limit < binding.state.remaining / binding.capacity.limit) {
      binding = outcome;
    }
  }
  return binding;
}

function rejection(outcome: LimitOutcome): ApiError {
  const definition = RULES[outcome.rule];
  const { limit, windowSeconds } = outcome.capacity;
  const what = {
    request: 'requests',
    operation: 'outputs',
    'input-token': 'input tokens',
    'output-token': 'output tokens',
  }[definition.dimension];
  const retryAfter = Math.ceil(outcome.state.msBeforeReset / 1000);
  const tooBig = outcome.points > limit;
  return new ApiError(definition.code, {
    message: tooBig
      ? `This request needs ${outcome.points} ${what} but the limit is ${limit} per ${windowSeconds} s; ask for less.`
      : `Rate limit reached: ${limit} ${what} per ${windowSeconds} s (${outcome.rule}). Retry after ${retryAfter} s.`,
    // A request larger than the whole window will never fit: no retry timing (spec: the limit must change).
    retryAfter: tooBig ? undefined : retryAfter,
    headers: rateLimitHeaders(outcome),
  });
}

/** Told of every refusal (metrics); absent when nobody listens. */
export interface LimitObserver {
  refused(rule: RuleName): void;
}

/** An admitted operation's draw on the limits, corrected or returned when the work is done. */
export class Admission {
  constructor(
    private readonly limits: Limits,
    readonly outcomes: LimitOutcome[],
  ) {}

  /** Gives everything back: the operation was refused after admission (402) and did no work. */
  async refundAll(): Promise<void> {
    await Promise.all(this.outcomes.map((outcome) => this.limits.refund(outcome, outcome.points)));
  }

  /**
   * Gives back the counts that are not token estimates (outputs, weekly requests): the run did
   * no work and another entry serves the request, whose admission counts them (the token
   * estimates come back through correctTokens when the run closes).
   */
  async refundCounts(): Promise<void> {
    await Promise.all(
      this.outcomes.filter((outcome) => outcome.rule !== 'input_tokens' && outcome.rule !== 'output_tokens').map((outcome) => this.limits.refund(outcome, outcome.points)),
    );
  }

  /** Returns the part of a token estimate the measured usage did not use. */
  async correctTokens(measured: { input: number; output: number }): Promise<void> {
    for (const outcome of this.outcomes) {
      const used = outcome.rule === 'input_tokens' ? measured.input : outcome.rule === 'output_tokens' ? measured.output : undefined;
      if (used !== undefined) await this.limits.refund(outcome, outcome.points - Math.min(used, outcome.points));
    }
  }
}

/**
 * Per-organization limits: a request rule per route family (checked right after
 * authentication, so every attempt counts), and operation rules — outputs, tokens, weekly
 * requests — checked once the request is valid and its model known. A rejection refunds what
 * the same admission consumed, costs nothing and comes before any model work.
 */
export class Limits {
  constructor(
    private readonly config: LimitsConfig,
    private readonly counters: Counters,
    private readonly overrides: OverrideSource,
    private readonly observer?: LimitObserver,
  ) {}

  /** Resolves when the counters' store answers (Redis, when configured); for readiness probes. */
  countersReachable(timeoutMs: number): Promise<void> {
    return this.counters.ping(timeoutMs);
  }

  private async capacity(organizationId: string, rule: RuleName): Promise<Capacity | null> {
    return capacityInForce(rule, this.config, await this.overrides.forOrganization(organizationId));
  }

  private counterSubject(subject: LimitSubject): string {
    return `${subject.environment === 'test' ? 'test' : 'live'}:${subject.organizationId}`;
  }

  private async consume(subject: LimitSubject, rule: RuleName, points: number): Promise<LimitOutcome | undefined> {
    const capacity = await this.capacity(subject.organizationId, rule);
    if (!capacity) return undefined;
    const state = await this.counters.consume(rule, this.counterSubject(subject), capacity, points);
    return { rule, subject, capacity, state, points };
  }

  async refund(outcome: LimitOutcome, points: number): Promise<void> {
    await this.counters.refund(outcome.rule, this.counterSubject(outcome.subject), outcome.capacity, points);
  }

  /** Counts one request of a route family; throws the 429 when the window is full. */
  async checkRequest(subject: LimitSubject, rule: RequestRuleName): Promise<LimitOutcome | undefined> {
    const outcome = await this.consume(subject, rule, 1);
    if (outcome && !outcome.state.allowed) throw this.refuse(outcome);
    return outcome;
  }

  /** Counts an operation against throughput, token and weekly rules, all or nothing. */
  async admitOperation(subject: LimitSubject, demand: OperationDemand): Promise<Admission> {
    const wanted: [RuleName, number][] = [
      ['outputs', demand.outputs],
      ['weekly_requests', 1],
    ];
    if (demand.tokens) wanted.push(['input_tokens', demand.tokens.input], ['output_tokens', demand.tokens.output]);
    const outcomes: LimitOutcome[] = [];
    for (const [rule, points] of wanted) {
      const outcome = await this.consume(subject, rule, points);
      if (!outcome) continue;
      if (!outcome.state.allowed) {
        await Promise.all([outcome, ...outcomes].map((o) => this.refund(o, o.points)));
        throw this.refuse(outcome);
      }
      outcomes.push(outcome);
    }
    return new Admission(this, outcomes);
  }

  private refuse(outcome: LimitOutcome): ApiError {
    this.observer?.refused(outcome.rule);
    return rejection(outcome);
  }
}
