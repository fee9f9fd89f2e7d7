import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../../src/contract/errors.ts';
import type { HealthPolicy } from '../../../../src/engines/upstream/routing/health.ts';
import { UpstreamSet, type Lease, type UpstreamMember } from '../../../../src/engines/upstream/routing/upstream-set.ts';
import type { UpstreamClient } from '../../../../src/engines/upstream/client.ts';
import { UpstreamLog } from '../../../../src/engines/upstream/log.ts';

// Which server each call gets: the fewest in flight for its weight, a share by weight when calls
// come one at a time, a line while every server is full, and a 503 at once when all are out.

const POLICY: HealthPolicy = { failureThreshold: 2, ejectionMs: 1000, maxEjectionMs: 8000, ejects: true };
const OK = { kind: 'ok' } as const;
const FAULT = { kind: 'fault' } as const;

function member(name: string, weight = 1, maxConcurrency = 8): UpstreamMember {
  return { name, model: 'm', client: {} as UpstreamClient, log: new UpstreamLog(undefined, 'pooled', `http://${name}`), weight, maxConcurrency };
}

function setOf(members: UpstreamMember[], clock = { now: 0 }): UpstreamSet {
  return new UpstreamSet('pooled', members, POLICY, { now: () => clock.now });
}

const signal = () => new AbortController().signal;
/** A lease as a promise, whether it was granted at once or in line (a refusal becomes a rejection). */
const leased = async (set: UpstreamSet, ...args: Parameters<UpstreamSet['lease']>) => set.lease(...args);

describe('UpstreamSet', () => {
  it('sends each call to the server with the fewest in flight for its weight', async () => {
    const [a, b] = [member('a', 1), member('b', 3)];
    const set = setOf([a, b]);
    const held: Lease[] = [];
    for (let i = 0; i < 8; i++) held.push(await set.lease(signal()));
    const on = (m: UpstreamMember) => held.filter((lease) => lease.member === m).length;
    assert.deepEqual([on(a), on(b)], [2, 6]);
  });

  it('shares calls that come one at a time by weight', async () => {
    const [a, b] = [member('a', 1), member('b', 2)];
    const set = setOf([a, b]);
    const names: string[] = [];
    for (let i = 0; i < 9; i++) {
      const lease = await set.lease(signal());
      names.push(lease.member.name);
      lease.end(OK);
    }
    assert.deepEqual([names.filter((n) => n === 'a').length, names.filter((n) => n === 'b').length], [3, 6]);
  });

  it('avoids a server the call already failed on while another takes calls, and uses it when it is the only one', async () => {
    const [a, b] = [member('a'), member('b')];
    const set = setOf([a, b]);
    assert.equal((await set.lease(signal(), new Set([a]))).member, b);
    assert.equal((await set.lease(signal(), new Set([a, b]))).member.name, 'a');
  });

  it('holds calls in line while every server is at max_concurrency, in order, and lets one that leaves go', async () => {
    const set = setOf([member('a', 1, 1)]);
    const first = await set.lease(signal());
    const leaving = new AbortController();
    const order: string[] = [];
    const second = leased(set, signal()).then((lease) => (order.push('second'), lease));
    const gone = leased(set, leaving.signal).catch((error: unknown) => (order.push('left'), error));
    const third = leased(set, signal()).then((lease) => (order.push('third'), lease));
    leaving.abort(new Error('client left'));
    await gone;
    first.end(OK);
    (await second).end(OK);
    await third;
    assert.deepEqual(order, ['left', 'second', 'third']);
  });

  it('answers 503 model_unavailable at once when every server is out, with the seconds until the first returns', async () => {
    const clock = { now: 0 };
    const [a, b] = [member('a'), member('b')];
    const set = setOf([a, b], clock);
    for (const m of [a, b]) {
      for (let i = 0; i < 2; i++) (await set.lease(signal(), new Set([m === a ? b : a]))).end(FAULT);
    }
    assert.deepEqual(set.status().map((s) => s.state), ['out', 'out']);
    await assert.rejects(leased(set, signal()), (error) => error instanceof ApiError && error.code === 'model_unavailable' && error.retryAfter === 1);
    clock.now = 1000;
    const trial = await set.lease(signal());
    trial.end(OK);
    assert.equal(set.status().find((s) => s.upstream === trial.member.name)!.state, 'healthy');
  });

  it('asks a server that is out whether it answers (check_interval_ms), and lets it take its trial call at once when it does', async () => {
    const asked: string[] = [];
    let answering = false;
    const client = { answers: async () => (asked.push('GET /models'), answering) } as unknown as UpstreamClient;
    const [a, b] = [{ ...member('a'), client }, member('b')];
    const set = new UpstreamSet('pooled', [a, b], { ...POLICY, ejectionMs: 60_000 }, { checkIntervalMs: 20 });
    for (let i = 0; i < 2; i++) (await set.lease(signal(), new Set([b]))).end(FAULT);
    const stateOfA = () => set.status().find((s) => s.upstream === 'a')!.state;
    assert.equal(stateOfA(), 'out');
    await new Promise((resolve) => setTimeout(resolve, 70));
    assert.ok(asked.length >= 2, `asked again while it did not answer (${asked.length})`);
    assert.equal(stateOfA(), 'out');
    answering = true;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(stateOfA(), 'trial', 'back for a trial call long before its 60 s were over');
    set.close();
  });

  it('fails the calls in line with 503 when the server they wait for goes out', async () => {
    const set = setOf([member('a', 1, 1)]);
    const first = await set.lease(signal());
    const second = leased(set, signal());
    const third = leased(set, signal());
    first.end(FAULT);
    (await second).end(FAULT);
    await assert.rejects(third, (error) => error instanceof ApiError && error.code === 'model_unavailable');
  });
});
