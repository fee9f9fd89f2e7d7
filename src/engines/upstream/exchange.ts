import type { Pool } from 'undici';
import { overBudget, yieldIfBusy } from './turn-budget.ts';
import { Reception, type Reader, type ReceptionHooks, type ReceptionLimits } from './reception.ts';

/** How one upstream call went: its duration, and whether it answered in full, failed, or was left by its caller. */
export interface UpstreamCallReport {
  seconds: number;
  outcome: 'ok' | 'error' | 'cancelled';
  /** For an error: what failed, e.g. `connect`, `status_503`, `first-token-timeout`. */
  failure?: string;
}

export type UpstreamFailure =
  | { kind: 'connect' }
  | { kind: 'connect-timeout' }
  /** `code`: the provider's error code, when its body gives one (`error.code`). */
  | { kind: 'status'; status: number; retryAfterSeconds?: number; detail: string; code?: string }
  | { kind: 'frame'; detail: string }
  | { kind: 'malformed'; detail: string }
  | { kind: 'oversize'; limitBytes: number }
  | { kind: 'dropped' }
  | { kind: 'first-token-timeout' }
  | { kind: 'idle-timeout' }
  | { kind: 'deadline' };

/** A failure of the upstream (never of our caller): the engine maps it to the spec's errors. */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    readonly failure: UpstreamFailure,
    options?: { cause?: unknown },
  ) {
    super(`upstream ${failure.kind}${'status' in failure ? ` ${failure.status}` : ''}${'detail' in failure ? `: ${failure.detail}` : ''}`, options);
  }
}

/** A request body already encoded (a multipart form), sent with its own content type. */
export interface EncodedBody {
  encoded: Uint8Array;
  contentType: string;
}

export interface CompletionCall {
  /** JSON, or an encoded body. */
  body: Record<string, unknown> | EncodedBody;
  /** The client's request: aborting it closes the upstream connection. */
  signal: AbortSignal;
  firstTokenTimeoutMs: number;
  /** Absolute time (Date.now()) by which the whole completion must have ended. */
  deadlineAt: number;
}

/** Why a finished call's controller is aborted (after the fact: nothing waits on it then). */
export const FINISHED = new Error('the call is over');

/** A server that keeps the response open after [DONE] is cut off after this long. */
const DRAIN_AFTER_DONE_MS = 100;

/** What every call of one client shares: its connections, and the bounds of an answer. */
export interface ExchangeSettings {
  pool: Pool;
  /** Sent with every request; an encoded body brings its own content type. */
  headers: Record<string, string>;
  limits: ReceptionLimits;
  connectTimeoutMs: number;
  /** Longest gap between two stream events once the first token came (default: the call's first-token timeout). */
  idleTimeoutMs?: number;
  /** Told when each call ends, however it ends (metrics). */
  onCallEnd?: (report: UpstreamCallReport) => void;
}

/** What `next()` says when it has no deltas to hand over. */
const WAIT = Symbol('wait');
const DONE = Symbol('done');

/**
 * One upstream call on the wire, from its request to its end: the reception of its answer, its
 * deadlines, the caller's abort, what its failures are, and how its connection ends. The answer
 * is taken either from a generator (`stream`: a step per read) or handed to a callback as it is
 * read (`into`: one promise for the whole answer). With thousands of streams a token at a time,
 * whatever waits from one read to the next outlives the young generation, so the callback is
 * what the engine's streams use.
 */
export class Exchange<T extends { accepted?: true }> {
  // Set when the call starts (open), not when it is made: a stream() not yet iterated runs no timer.
  private reception!: Reception<T>;
  private timers!: CallTimers;
  private startedAt = 0;
  private failure?: UpstreamFailure;
  private readonly onAbort = () => this.reception.abort(this.signal.reason);
  /**
   * The call as made, until it is sent. Only its signal is needed after that: the call (its body
   * with it) is not kept for the whole answer, as every stream open would keep it.
   */
  private call: CompletionCall | undefined;
  private readonly signal: AbortSignal;

  constructor(
    private readonly settings: ExchangeSettings,
    call: CompletionCall,
    private readonly reader: Reader<T>,
  ) {
    this.call = call;
    this.signal = call.signal;
  }

  /**
   * Yields the deltas as they are read, in batches (those read together), `accepted` first;
   * throws UpstreamError for anything the upstream did wrong, or the caller's abort reason.
   */
  async *stream(path: string): AsyncGenerator<T[]> {
    try {
      await this.open(path);
      yield [{ accepted: true } as T];
      for (;;) {
        const turn = yieldIfBusy();
        if (turn) await turn;
        const next = this.next();
        if (next === DONE) return;
        if (next === WAIT) await this.reception.changed();
        // A batch at a time: one step of this generator (and of each caller's loop) per read, not per event.
        else if (next.length > 0) yield next;
      }
    } catch (error) {
      throw this.failed(error);
    } finally {
      this.end();
    }
  }

  /** stream(), each batch handed to `deliver` as it is read; resolves at the end of the answer. */
  async into(path: string, deliver: (deltas: T[]) => void): Promise<void> {
    try {
      await this.open(path);
      deliver([{ accepted: true } as T]);
      await new Promise<void>((resolve, reject) => {
        const pump = () => {
          try {
            for (;;) {
              // This turn's budget for reading answers is spent: the rest waits for the next turn.
              if (overBudget()) return void setImmediate(pump);
              const next = this.next();
              if (next === DONE) return resolve();
              if (next === WAIT) return this.reception.whenChanged(pump);
              if (next.length > 0) deliver(next);
            }
          } catch (error) {
            reject(error);
          }
        };
        pump();
      });
    } catch (error) {
      throw this.failed(error);
    } finally {
      this.end();
    }
  }

  /** Sends the request to `path` and waits for its status: a 200 opens the answer, anything else throws. */
  private async open(path: string): Promise<void> {
    // An exchange is one call on the wire: opened once, by stream() or into().
    const call = this.call!;
    const { settings } = this;
    this.call = undefined;
    this.startedAt = performance.now();
    this.timers = new CallTimers(
      { expire: () => this.reception.abort(FINISHED), holding: () => this.reception.paused || this.reception.queued },
      call,
      settings.connectTimeoutMs,
      settings.idleTimeoutMs ?? call.firstTokenTimeoutMs,
    );
    const reception = (this.reception = new Reception(this.reader, settings.limits, receptionHooks(this.timers)));
    if (call.signal.aborted) throw call.signal.reason;
    call.signal.addEventListener('abort', this.onAbort, { once: true });
    settings.pool.dispatch({ path, method: 'POST', ...encoded(call.body, settings.headers), headersTimeout: 0, bodyTimeout: 0 }, reception);
    while (reception.status === undefined && !reception.error) await reception.changed();
    if (reception.status === undefined) return this.fail(reception.error!.reason, connectFailureOf(reception.error!.reason));
    if (reception.status === 200) return;
    while (!reception.complete && !reception.error) await reception.changed();
    const retryAfterSeconds = parseRetryAfter(reception.headers!['retry-after']);
    const errorText = reception.errorText();
    const code = errorCodeOf(errorText);
    throw new UpstreamError({
      kind: 'status',
      status: reception.status,
      detail: errorMessageOf(errorText),
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      ...(code === undefined ? {} : { code }),
    });
  }

  /**
   * The deltas read since the last call (none while more is queued behind a paused upstream), or
   * why there are none: WAIT for the next change, or DONE. What arrived before a failure is the
   * caller's all the same (as it would have been, read chunk by chunk); the failure comes after.
   */
  private next(): T[] | typeof WAIT | typeof DONE {
    const { reception } = this;
    const deltas = reception.take();
    // More may be queued, or have come while the caller took these: taking resumes a paused
    // upstream, which can hand over what it buffered at once.
    if (deltas.length > 0 || reception.queued) return deltas;
    if (reception.error) return this.fail(reception.error.reason, { kind: 'dropped' });
    return reception.complete ? DONE : WAIT;
  }

  /** The error the caller sees: its own abort, a deadline that passed, or what the upstream did. */
  private fail(error: unknown, otherwise: UpstreamFailure): never {
    if (this.signal.aborted) throw this.signal.reason ?? error;
    if (this.timers.expired) throw new UpstreamError(this.timers.expired, { cause: error });
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError(otherwise, { cause: error });
  }

  /** Notes an upstream failure for the call's report, and gives the error back to be thrown. */
  private failed(error: unknown): unknown {
    if (error instanceof UpstreamError) this.failure = error.failure;
    return error;
  }

  private end(): void {
    const { reception } = this;
    this.timers.clear();
    this.signal.removeEventListener('abort', this.onAbort);
    const ended = reception.status === 200 && reception.complete && !reception.error;
    // Leaving early (the consumer stopped) closes the upstream connection too. After [DONE] the
    // server ends the response at once; one that keeps it open is cut off a little later.
    if (!ended) reception.abort(FINISHED);
    else if (!reception.closed) setTimeout(() => reception.abort(FINISHED), DRAIN_AFTER_DONE_MS).unref();
    this.settings.onCallEnd?.(callReport((performance.now() - this.startedAt) / 1000, ended, this.failure));
  }
}

/** The request's body on the wire: JSON, or an encoded body with its own content type. */
function encoded(body: CompletionCall['body'], headers: Record<string, string>): { body: string | Uint8Array; headers: Record<string, string> } {
  if (!('encoded' in body && body.encoded instanceof Uint8Array)) return { body: JSON.stringify(body), headers };
  return { body: body.encoded, headers: { ...headers, 'content-type': String(body.contentType) } };
}

/**
 * The deadlines of one call, each failing it as its own kind: connecting (timed here rather than
 * by undici, whose connect timer is coarse), the first token, each gap between stream events after
 * it, and the whole call. The idle timer is refreshed, not re-created, as data arrives.
 */
class CallTimers {
  /** The first deadline that passed, if one did. */
  expired?: UpstreamFailure;
  private readonly deadline: NodeJS.Timeout;
  private connecting?: NodeJS.Timeout;
  private firstToken?: NodeJS.Timeout;
  private idle?: NodeJS.Timeout;

  constructor(
    private readonly reception: {
      expire(): void;
      /** We paused the upstream (our caller is behind): its silence then is ours, not a stall. */
      holding(): boolean;
    },
    call: CompletionCall,
    connectTimeoutMs: number,
    private readonly idleTimeoutMs: number,
  ) {
    this.deadline = this.start({ kind: 'deadline' }, Math.max(0, call.deadlineAt - Date.now()));
    this.connecting = this.start({ kind: 'connect-timeout' }, connectTimeoutMs);
    this.firstToken = this.start({ kind: 'first-token-timeout' }, call.firstTokenTimeoutMs);
  }

  /** The request went out on a connection (new or kept alive). */
  connected(): void {
    clearTimeout(this.connecting);
    this.connecting = undefined;
  }

  gotToken(): void {
    clearTimeout(this.firstToken);
    this.firstToken = undefined;
    this.idle = this.start({ kind: 'idle-timeout' }, this.idleTimeoutMs);
  }

  /** Data of an event arrived (or the caller took a paused queue): the gap starts again. */
  activity(): void {
    this.idle?.refresh();
  }

  clear(): void {
    for (const timer of [this.deadline, this.connecting, this.firstToken, this.idle]) clearTimeout(timer);
  }

  private start(failure: UpstreamFailure, ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (failure.kind === 'idle-timeout' && this.reception.holding()) return void timer.refresh();
      this.expired ??= failure;
      this.reception.expire();
    }, ms);
    return timer;
  }
}

function receptionHooks(timers: CallTimers): ReceptionHooks {
  return {
    connected: () => timers.connected(),
    firstToken: () => timers.gotToken(),
    activity: () => timers.activity(),
    oversize: (limitBytes) => new UpstreamError({ kind: 'oversize', limitBytes }),
    malformed: malformedError,
  };
}

/** undici's own connect timeout (a backstop to ours) is a timeout too; anything else before a status is a failed connect. */
function connectFailureOf(reason: unknown): UpstreamFailure {
  return (reason as { code?: unknown } | undefined)?.code === 'UND_ERR_CONNECT_TIMEOUT' ? { kind: 'connect-timeout' } : { kind: 'connect' };
}

/**
 * A 200 that is no completion (not JSON, JSON cut short, an HTML page, the wrong shape), told
 * with the body's content type and first bytes for the log. An error frame stays what it is.
 */
function malformedError(cause: unknown, sample: string): Error {
  if (cause instanceof UpstreamError && cause.failure.kind !== 'malformed') return cause;
  const what = cause instanceof UpstreamError && cause.failure.kind === 'malformed' ? cause.failure.detail
    : cause instanceof SyntaxError ? 'not JSON'
    : `unreadable (${String((cause as Error | undefined)?.message)})`;
  return new UpstreamError({ kind: 'malformed', detail: `${what}; ${sample}` }, { cause });
}

/** A call that read its whole answer is ok; one that threw an UpstreamError failed; anything else, its caller left. */
function callReport(seconds: number, ended: boolean, failure: UpstreamFailure | undefined): UpstreamCallReport {
  if (ended) return { seconds, outcome: 'ok' };
  if (!failure) return { seconds, outcome: 'cancelled' };
  return { seconds, outcome: 'error', failure: failure.kind === 'status' ? `status_${failure.status}` : failure.kind };
}

/** The provider's own message from an error body, for logs and for telling a refused parameter apart. */
export function errorMessageOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const message = typeof parsed.error === 'object' ? parsed.error?.message : (parsed.error ?? parsed.message ?? parsed.detail);
    if (typeof message === 'string') return message.slice(0, 500);
  } catch {
    // not JSON
  }
  return text.slice(0, 500);
}

/** The provider's error code from an error body (`{"error":{"code":…}}`), if it gives one. */
function errorCodeOf(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' && code !== '' ? code.slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds from a Retry-After header (seconds or an HTTP date), or undefined. */
export function parseRetryAfter(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

