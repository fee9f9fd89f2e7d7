import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamHealth, verdictOf, type HealthPolicy } from '../../../../src/engines/upstream/routing/health.ts';

// One upstream's circuit breaker, on a clock the test moves: out after failures in a row or a
// 429, back through one trial call, out for twice as long when the trial fails.

const POLICY: HealthPolicy = { failureThreshold: 3, ejectionMs: 1000, maxEjectionMs: 3000, ejects: true };
const FAULT = { kind: 'fault' } as const;
const OK = { kind: 'ok' } as const;

/** One call started and ended at `now`; returns the milliseconds it took the server out for. */
function call(health: UpstreamHealth, verdict: Parameters<UpstreamHealth['ended']>[0], now: number): number {
  const trial = health.started(now);
  return health.ended(verdict, trial, now);
}

describe('UpstreamHealth', () => {
  it('goes out after failure_threshold faults in a row, not after fewer, and a success in between starts the count again', () => {
    const health = new UpstreamHealth(POLICY);
    assert.equal(call(health, FAULT, 0), 0);
    assert.equal(call(health, FAULT, 0), 0);
    assert.equal(call(health, OK, 0), 0);
    assert.equal(call(health, FAULT, 0), 0);
    assert.equal(call(health, FAULT, 0), 0);
    assert.equal(health.takesCalls(0), true);
    assert.equal(call(health, FAULT, 0), 1000);
    assert.equal(health.state(0), 'out');
    assert.equal(health.takesCalls(999), false);
  });

  it('after its time out takes one trial call at a time; a good trial brings it back', () => {
    const health = new UpstreamHealth(POLICY);
    for (let i = 0; i < 3; i++) call(health, FAULT, 0);
    assert.equal(health.state(1000), 'trial');
    assert.equal(health.takesCalls(1000), true);
    const trial = health.started(1000);
    assert.equal(trial, true);
    assert.equal(health.takesCalls(1000), false, 'one trial at a time');
    health.ended(OK, trial, 1100);
    assert.equal(health.state(1100), 'healthy');
  });

  it('a failed trial takes it out for twice as long, up to max_ejection_ms, and a success resets the doubling', () => {
    const health = new UpstreamHealth(POLICY);
    for (let i = 0; i < 3; i++) call(health, FAULT, 0);
    assert.equal(call(health, FAULT, 1000), 2000);
    assert.equal(call(health, FAULT, 3000), 3000, 'capped');
    assert.equal(call(health, OK, 6000), 0);
    for (let i = 0; i < 3; i++) call(health, FAULT, 7000);
    assert.equal(health.returnsAt, 8000, 'back to the first time out');
  });

  it("a 429 takes it out at once for its Retry-After (the first time out without one), without doubling the next", () => {
    const health = new UpstreamHealth(POLICY);
    assert.equal(call(health, { kind: 'rate-limited', retryAfterMs: 30_000 }, 0), 30_000);
    assert.equal(health.takesCalls(29_999), false);
    assert.equal(health.state(30_000), 'trial');
    const other = new UpstreamHealth(POLICY);
    assert.equal(call(other, { kind: 'rate-limited' }, 0), 1000);
  });

  it('calls sent before it went out say nothing when they end: only the trial decides', () => {
    const health = new UpstreamHealth(POLICY);
    const early = [health.started(0), health.started(0), health.started(0), health.started(0)];
    for (const trial of early.slice(0, 3)) health.ended(FAULT, trial, 10);
    assert.equal(health.state(10), 'out');
    assert.equal(health.ended(OK, early[3]!, 20), 0);
    assert.equal(health.state(20), 'out', 'a late success of an earlier call does not bring it back');
    assert.equal(health.returnsAt, 1010);
  });

  it('an active check that passes lets it take its trial at once', () => {
    const health = new UpstreamHealth(POLICY);
    for (let i = 0; i < 3; i++) call(health, FAULT, 0);
    health.checkPassed(200);
    assert.equal(health.state(200), 'trial');
  });

  it('never goes out when it is the only way to the model (ejects: false)', () => {
    const health = new UpstreamHealth({ ...POLICY, ejects: false });
    for (let i = 0; i < 10; i++) assert.equal(call(health, FAULT, 0), 0);
    assert.equal(call(health, { kind: 'rate-limited', retryAfterMs: 5000 }, 0), 0);
    assert.equal(health.takesCalls(0), true);
  });

  it("reads failures as the server's or the request's", () => {
    const kinds = (failure: Parameters<typeof verdictOf>[0]) => verdictOf(failure).kind;
    assert.equal(kinds({ kind: 'connect' }), 'fault');
    assert.equal(kinds({ kind: 'connect-timeout' }), 'fault');
    assert.equal(kinds({ kind: 'first-token-timeout' }), 'fault');
    assert.equal(kinds({ kind: 'dropped' }), 'fault');
    assert.equal(kinds({ kind: 'malformed', detail: '' }), 'fault');
    assert.equal(kinds({ kind: 'status', status: 503, detail: '' }), 'fault');
    assert.equal(kinds({ kind: 'status', status: 401, detail: '' }), 'fault');
    assert.deepEqual(verdictOf({ kind: 'status', status: 429, detail: '', retryAfterSeconds: 7 }), { kind: 'rate-limited', retryAfterMs: 7000 });
    assert.equal(kinds({ kind: 'status', status: 400, detail: '' }), 'neutral');
    assert.equal(kinds({ kind: 'oversize', limitBytes: 1 }), 'neutral');
    assert.equal(kinds({ kind: 'deadline' }), 'neutral');
  });
});
