import { describeApiError, type ApiErrorDetails } from './api-error.ts';
import { EXIT, exitCodeForStatus } from './exit-codes.ts';

/** How a stream ended, as the runner saw it. */
export interface StreamEnd {
  written: number;
  expected: number;
  /** The stream's `error` event. */
  failure?: ApiErrorDetails;
  /** Why the stream broke off (cut connection, unreadable event). */
  broken?: string;
  /** Whether `data: [DONE]` arrived. */
  closed: boolean;
}

export interface Outcome {
  phase: 'done' | 'partial' | 'failed';
  exitCode: number;
  /** What went wrong, one line; absent when every output arrived. */
  problem?: string;
}

/**
 * `[DONE]` only closes the transport: success is every asked-for output and no error event.
 * Outputs written before a failure make it partial; without any, the failure's own status decides.
 */
export function outcomeOf(end: StreamEnd): Outcome {
  const cause =
    (end.failure && describeApiError(end.failure)) ??
    end.broken ??
    (!end.closed ? 'the event stream ended without [DONE]' : undefined) ??
    (end.written < end.expected ? `the stream ended after ${end.written} of ${end.expected} outputs` : undefined);
  if (cause === undefined) return { phase: 'done', exitCode: EXIT.ok };
  if (end.written > 0) {
    return { phase: 'partial', exitCode: EXIT.partial, problem: `${end.written} of ${end.expected} outputs written; ${cause}` };
  }
  return { phase: 'failed', exitCode: end.failure ? exitCodeForStatus(end.failure.status) : EXIT.failed, problem: cause };
}
