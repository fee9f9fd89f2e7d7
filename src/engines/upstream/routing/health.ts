import type { UpstreamState } from '../../../contract/upstreams.ts';
import type { UpstreamFailure } from '../exchange.ts';

/** The entry's `health` options, as the routing reads them. */
export interface HealthPolicy {
  failureThreshold: number;
  ejectionMs: number;
  maxEjectionMs: number;
  /** False for a sole upstream with no fallback: nothing to route to, so it is never taken out. */
  ejects: boolean;
}

/** What one finished attempt says about the server it went to. */
export type AttemptVerdict = { kind: 'ok' } | { kind: 'neutral' } | { kind: 'fault' } | { kind: 'rate-limited'; retryAfterMs?: number };

/**
 * What a failure says about the server, not the request: it did not answer, answered 5xx or an
 * error frame, cut or garbled its answer, or kept silent past the first-token or idle timeout
 * (faults); a 429 asks for a pause (rate-limited); a 401/403/404 is the entry's configuration
 * failing on this server (a fault: another may be configured right). The request's own 4xx, an
 * answer over the size limit and the whole call's deadline say nothing about the server.
 */
export function verdictOf(failure: UpstreamFailure): AttemptVerdict {
  switch (failure.kind) {
    case 'status':
      if (failure.status === 429) return { kind: 'rate-limited', ...(failure.retryAfterSeconds === undefined ? {} : { retryAfterMs: failure.retryAfterSeconds * 1000 }) };
      return failure.status >= 500 || failure.status === 401 || failure.status === 403 || failure.status === 404 ? { kind: 'fault' } : { kind: 'neutral' };
    case 'oversize':
    case 'deadline':
      return { kind: 'neutral' };
    default:
      return { kind: 'fault' };
  }
}

/**
 * One upstream's passive health, as a circuit breaker: healthy until `failureThreshold` faults
 * in a row (or one 429) take it out; out for `ejectionMs`, doubled each time it fails again on
 * return (at most `maxEjectionMs`), or for a 429's Retry-After; then one trial call, whose
 * success brings it back and whose failure takes it out again. Time is passed in, so the
 * machine is tested without waiting.
 */
export class UpstreamHealth {
  private failures = 0;
  /** Ejections since it last answered well: each doubles the next time out. */
  private ejections = 0;
  private outUntil = 0;
  private trialRunning = false;
  private current: UpstreamState = 'healthy';

  constructor(private readonly policy: HealthPolicy) {}

  /** Its state now (an ejection whose time has passed reads as ready for a trial). */
  state(now: number): UpstreamState {
    if (this.current === 'out' && now >= this.outUntil) this.current = 'trial';
    return this.current;
  }

  /** Whether a call may go to it now: healthy, or ready for a trial that is not running yet. */
  takesCalls(now: number): boolean {
    const state = this.state(now);
    return state === 'healthy' || (state === 'trial' && !this.trialRunning);
  }

  /** A call goes to it: in trial, this call is the trial (the only one until it ends). Returns whether it is. */
  started(now: number): boolean {
    if (this.state(now) !== 'trial') return false;
    this.trialRunning = true;
    return true;
  }

  /**
   * A call to it ended with `verdict` (`trial`: the call was its trial). Returns the milliseconds
   * it is now out for when this took it out, else 0.
   */
  ended(verdict: AttemptVerdict, trial: boolean, now: number): number {
    if (trial) this.trialRunning = false;
    // Out or on trial, only the trial speaks for it: calls sent before it went out say nothing new.
    if (!trial && this.state(now) !== 'healthy') return verdict.kind === 'rate-limited' ? this.rateLimited(now, verdict.retryAfterMs) : 0;
    switch (verdict.kind) {
      case 'ok':
        this.failures = 0;
        this.ejections = 0;
        this.current = 'healthy';
        return 0;
      case 'neutral':
        return 0;
      case 'rate-limited':
        return this.rateLimited(now, verdict.retryAfterMs);
      case 'fault':
        this.failures++;
        if (!this.policy.ejects) return 0;
        if (trial || this.failures >= this.policy.failureThreshold) return this.eject(now, this.backoff(), true);
        return 0;
    }
  }

  /** An active check found it answering: it takes its trial call now instead of waiting out its time. */
  checkPassed(now: number): void {
    if (this.current === 'out') this.outUntil = now;
  }

  /** When it comes back (Unix ms), while it is out. */
  get returnsAt(): number {
    return this.outUntil;
  }

  /** A 429 takes it out for its Retry-After (the default time out without one), never shorter than it already is. */
  private rateLimited(now: number, retryAfterMs: number | undefined): number {
    if (!this.policy.ejects) return 0;
    const until = Math.max(this.current === 'out' ? this.outUntil : 0, now + (retryAfterMs ?? this.policy.ejectionMs));
    return this.eject(now, until - now, false);
  }

  private backoff(): number {
    return Math.min(this.policy.ejectionMs * 2 ** this.ejections, this.policy.maxEjectionMs);
  }

  private eject(now: number, ms: number, counts: boolean): number {
    this.current = 'out';
    this.outUntil = now + ms;
    this.failures = 0;
    if (counts) this.ejections++;
    return ms;
  }
}
