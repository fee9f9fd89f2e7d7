import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED, UpstreamError } from './upstream-client.ts';
import { mapUpstreamFailure, refusedParameter } from './upstream-errors.ts';
import type { UpstreamLog } from './upstream-log.ts';

/** What every upstream call of a job shares: where it logs, and the signal that ends them all. */
export interface CallPolicy {
  signal: AbortSignal;
  log: UpstreamLog;
  /** The call asks for `stream_options` (Chat Completions streams): dropped once for a server that refuses it. */
  streamOptions: boolean;
}

/** One attempt of a call: `streamOptions` says whether to ask for them this time. */
export type Attempt<E, R> = (streamOptions: boolean) => AsyncGenerator<E, R>;

/**
 * One upstream call with the engine's one failure policy: `stream_options` dropped once for a
 * server that refuses it; one more attempt after a refused connect, a short 429, a 5xx, an error
 * frame or a cut stream — only while `forwarded()` says nothing of the attempt reached the
 * client; every other failure, or the second, thrown as the ApiError the client should see
 * (mapUpstreamFailure), after logging it. The caller's abort passes through as it is. The
 * attempt's own events pass through; its result is the call's.
 */
export async function* upstreamCall<E, R>(policy: CallPolicy, attempt: Attempt<E, R>, forwarded: () => boolean): AsyncGenerator<E, R> {
  let streamOptions = policy.streamOptions;
  let retried = false;
  for (;;) {
    try {
      const result = yield* attempt(streamOptions);
      policy.log.answered();
      return result;
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      if (streamOptions && refusedParameter(error, 'stream_options')) {
        streamOptions = false;
        continue;
      }
      const mapped = mapUpstreamFailure(error);
      policy.log.failed(error, mapped);
      if (mapped.retryable && !retried && !forwarded()) {
        retried = true;
        if (mapped.waitSeconds > 0) await sleep(mapped.waitSeconds * 1000, undefined, { signal: policy.signal });
        continue;
      }
      throw mapped.error;
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
