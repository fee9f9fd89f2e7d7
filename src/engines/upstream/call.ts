import { setTimeout as sleep } from 'node:timers/promises';
import { verdictOf } from './routing/health.ts';
import type { Lease, UpstreamMember, UpstreamSet } from './routing/upstream-set.ts';
import { FINISHED, UpstreamError } from './exchange.ts';
import { mapUpstreamFailure, refusedParameter, type MappedFailure } from './errors.ts';

/**
 * The time all upstream calls of one output (or one Responses request) may take: it starts when
 * the first of them gets a server, so waiting in line for one does not count.
 */
export class CallDeadline {
  private at?: number;
  constructor(private readonly ms: number) {}

  /** The deadline (Unix ms), started now if it has not been. */
  start(): number {
    return (this.at ??= Date.now() + this.ms);
  }
}

/** What every upstream call of a job shares: its servers, the signal that ends them all, and its deadline. */
export interface CallPolicy {
  signal: AbortSignal;
  upstreams: UpstreamSet;
  /** Attempts of one call at most: failovers and the retry included. */
  maxAttempts: number;
  deadline: CallDeadline;
  /** The call asks for `stream_options` (Chat Completions streams): dropped once for a server that refuses it. */
  streamOptions: boolean;
  /** What the client is told of a failure, where an endpoint reads some failures its own way (default: mapUpstreamFailure). */
  mapFailure?: (error: UpstreamError) => MappedFailure;
}

/** One attempt of a call on one server: `streamOptions` says whether to ask for them this time. */
export type Attempt<E, R> = (member: UpstreamMember, streamOptions: boolean, deadlineAt: number) => AsyncGenerator<E, R>;

const OK = { kind: 'ok' } as const;
const NEUTRAL = { kind: 'neutral' } as const;

/**
 * One upstream call with the engine's one failure policy. Each attempt takes a server from the
 * entry's set (the routing picks it and keeps its health from how the attempt went). While
 * `forwarded()` says nothing of the call reached the client and attempts remain: a failure that
 * is the server's moves to another server that takes calls, at once; otherwise a refused
 * connect, a short 429, a 5xx, an error frame or a cut stream gets one more attempt (after the
 * 429's wait). `stream_options` is dropped once for a server that refuses it. Every other
 * failure, or the last, is thrown as the ApiError the client should see (mapUpstreamFailure),
 * after logging it; with every server out, the set's 503. The caller's abort passes through as
 * it is. The attempt's own events pass through; its result is the call's.
 */
export async function* upstreamCall<E, R>(policy: CallPolicy, attempt: Attempt<E, R>, forwarded: () => boolean): AsyncGenerator<E, R> {
  let streamOptions = policy.streamOptions;
  const tried = new Set<UpstreamMember>();
  let attempts = 0;
  let retried = false;
  for (;;) {
    const lease: Lease = await policy.upstreams.lease(policy.signal, tried);
    try {
      const result = yield* attempt(lease.member, streamOptions, policy.deadline.start());
      lease.end(OK);
      lease.member.log.answered();
      return result;
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      const verdict = verdictOf(error.failure);
      lease.end(verdict);
      if (streamOptions && refusedParameter(error, 'stream_options')) {
        streamOptions = false;
        continue;
      }
      const mapped = (policy.mapFailure ?? mapUpstreamFailure)(error);
      lease.member.log.failed(error, mapped);
      tried.add(lease.member);
      if (++attempts >= policy.maxAttempts || forwarded()) throw mapped.error;
      if (verdict.kind !== 'neutral' && policy.upstreams.hasOtherThan(tried)) continue;
      if (!mapped.retryable || retried) throw mapped.error;
      retried = true;
      if (mapped.waitSeconds > 0) await sleep(mapped.waitSeconds * 1000, undefined, { signal: policy.signal });
    } finally {
      lease.end(NEUTRAL); // left early (the caller stopped), or thrown past: the server is not to blame
    }
  }
}

/** The result of a call whose attempts emit nothing (they report through callbacks). */
export async function resultOf<R>(call: AsyncGenerator<never, R>): Promise<R> {
  const step = await call.next();
  if (!step.done) throw new Error('an upstream call emitted an event it should have reported');
  return step.value;
}

/**
 * A job's own abort: aborted when the client's request is (with its reason), and by `close()`
 * when the job ends however it ends, so no upstream call outlives the request.
 */
export function jobSignal(client: AbortSignal): { signal: AbortSignal; close(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(client.reason);
  if (client.aborted) onAbort();
  else client.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    close: () => {
      client.removeEventListener('abort', onAbort);
      controller.abort(FINISHED);
    },
  };
}
