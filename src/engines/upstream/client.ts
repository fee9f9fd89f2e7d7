import { Pool } from 'undici';
import { SVG_MAX_BYTES } from '../../contract/media-size.ts';
import { yieldIfBusy } from './turn-budget.ts';
import { Reception, type Reader, type ReceptionHooks, type ReceptionLimits } from './reception.ts';
import type { TextSlot } from './chunk-template.ts';

/** Where and how to call one OpenAI-compatible server. */
export interface UpstreamEndpoint {
  baseUrl: string;
  apiKey?: string;
  connectTimeoutMs: number;
  /**
   * The most text the model may write in one call (answer, reasoning, refusal and tool-call
   * arguments, in UTF-8 bytes; default SVG_MAX_BYTES, the service's own SVG input limit).
   * Crossing it fails the call (oversize) at once, and bounds what one SSE event or one JSON
   * body may take on the wire before it is parsed.
   */
  maxOutputBytes?: number;
  /** A response larger than this on the wire fails the call (oversize): the last guard, whatever the answer. */
  maxResponseBytes?: number;
  /** Longest gap between two stream events once the first token came (default: the call's first-token timeout). */
  idleTimeoutMs?: number;
  /** Told when each call ends, however it ends (metrics). */
  onCallEnd?: (report: UpstreamCallReport) => void;
}

/** How one upstream call went: its duration, and whether it answered in full, failed, or was left by its caller. */
export interface UpstreamCallReport {
  seconds: number;
  outcome: 'ok' | 'error' | 'cancelled';
  /** For an error: what failed, e.g. `connect`, `status_503`, `first-token-timeout`. */
  failure?: string;
}

/** One chunk's worth of a completion, normalized across servers. */
export interface CompletionDelta {
  /** The first delta of every completion: the server answered 200 and is working on it. */
  accepted?: true;
  content?: string;
  /** `reasoning_content` (DeepSeek, older vLLM) or `reasoning` (vLLM ≥ 0.11, Ollama, OpenRouter). */
  reasoning?: string;
  refusal?: string;
  /** Pieces of tool calls, by the call's `index` in the answer (arguments arrive split across chunks). */
  toolCalls?: ToolCallDelta[];
  finishReason?: string;
  usage?: UpstreamUsage;
}

/** One chunk's piece of one tool call: `id` and `name` usually come first, then `arguments` in parts. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

export interface UpstreamUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Output tokens spent reasoning, when the server says (`completion_tokens_details.reasoning_tokens`). */
  reasoningTokens?: number;
}

/** One event of a native Responses stream (`accepted` first, as for completions). */
export interface ResponsesStreamDelta {
  accepted?: true;
  event?: { type: string; [field: string]: unknown };
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

/**
 * The most an answer may take on the wire by default: far above what any max_tokens produces,
 * even streamed one token per chunk with reasoning (a few hundred bytes each).
 */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Wire bytes one character of the answer can take in JSON: `\u003c` for `<` (Go servers escape
 * HTML characters so), the most any escape takes; a UTF-8 character is at least one byte.
 */
const JSON_ESCAPE_FACTOR = 6;

/** Room in one event or body beyond the escaped text: ids, usage, tool names, a response's echoed fields. */
const FRAME_ALLOWANCE_BYTES = 64 * 1024;

/** A server that keeps the response open after [DONE] is cut off after this long. */
const DRAIN_AFTER_DONE_MS = 100;

/** How chat completions are read (exported for the chunk template's tests). */
export const COMPLETIONS: Reader<CompletionDelta> = {
  json: completionOf,
  chunk: chunkDelta,
  textSlot: streamedTextSlot,
  isToken: (delta) => Boolean(delta.content || delta.reasoning || delta.refusal || delta.toolCalls),
  meter: () => completionBytes,
};

/** Lifecycle events say the server is working; anything else is the model answering. */
const NOT_TOKENS = new Set(['response.created', 'response.in_progress', 'response.queued']);
const RESPONSES: Reader<ResponsesStreamDelta> = {
  json: responseOfJson,
  chunk: responsesEventOf,
  isToken: (delta) => delta.event !== undefined && !NOT_TOKENS.has(delta.event.type),
  meter: responsesMeter,
};

/**
 * A thin client for `POST /chat/completions` on an OpenAI-compatible server, streaming (and
 * `POST /responses` for a server that speaks the Responses API itself). It is our own rather
 * than the `openai` SDK because the engine needs what the SDK hides or refuses: separate
 * connect, first-token, idle and total deadlines; a byte limit on the model's text, enforced as
 * it arrives; a 200 that is no completion told apart from a cut connection; `Retry-After` on
 * every failure; error frames inside a 200 stream in both shapes servers send (`{"error":…}`,
 * vLLM's `{"object":"error",…}`); `data:` keep-alives that are not JSON (skipped, not fatal);
 * usage from whichever chunk carries it; and Node 20 (the SDK's current major needs Node 22).
 */
export class UpstreamClient {
  /** One upstream origin: a Pool of keep-alive connections to it (cheaper per call than an Agent, which looks the origin up each time). */
  private readonly pool: Pool;
  /** The base URL's host and port: a server that hands out answers by URL hands them out here. */
  readonly host: string;
  /** The base URL's path, without its trailing slash: every endpoint's path starts with it. */
  private readonly prefix: string;
  private readonly completionsPath: string;
  private readonly responsesPath: string;
  private readonly modelsPath: string;
  private readonly headers: Record<string, string>;
  private readonly onCallEnd?: (report: UpstreamCallReport) => void;
  private readonly limits: ReceptionLimits;
  private readonly connectTimeoutMs: number;
  private readonly idleTimeoutMs?: number;

  constructor(endpoint: UpstreamEndpoint) {
    this.onCallEnd = endpoint.onCallEnd;
    const outputBytes = endpoint.maxOutputBytes ?? SVG_MAX_BYTES;
    this.limits = {
      outputBytes,
      frameBytes: JSON_ESCAPE_FACTOR * outputBytes + FRAME_ALLOWANCE_BYTES,
      responseBytes: endpoint.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    };
    this.connectTimeoutMs = endpoint.connectTimeoutMs;
    this.idleTimeoutMs = endpoint.idleTimeoutMs;
    const base = new URL(endpoint.baseUrl);
    const prefix = base.pathname.replace(/\/+$/, '');
    this.prefix = prefix;
    this.host = base.host;
    this.completionsPath = `${prefix}/chat/completions`;
    this.responsesPath = `${prefix}/responses`;
    this.modelsPath = `${prefix}/models`;
    // undici's own connect timeout runs on a coarse timer (it fires up to a second late): the
    // client keeps a precise one per call (post), and undici's is left to close the socket.
    this.pool = new Pool(base.origin, { connect: { timeout: endpoint.connectTimeoutMs }, keepAliveTimeout: 30_000 });
    this.headers = {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
    };
  }

  /**
   * Streams one completion. Yields normalized deltas, in batches (those read together); throws UpstreamError for anything the
   * upstream did wrong, or the caller's abort reason when the caller went away.
   */
  complete(call: CompletionCall): AsyncGenerator<CompletionDelta[]> {
    return this.post(this.completionsPath, call, COMPLETIONS);
  }

  /**
   * complete(), its deltas handed to `deliver` as they are read rather than yielded. A stream read a
   * token at a time then waits for each read on one promise, instead of a generator step of
   * every caller too: what waits between two tokens is what outlives the young generation, so
   * it is what thousands of open streams cost the collector.
   */
  async completeInto(call: CompletionCall, deliver: (deltas: CompletionDelta[]) => void): Promise<void> {
    for await (const _ of this.post(this.completionsPath, call, COMPLETIONS, deliver));
  }

  /**
   * Streams one native Responses call (`POST {base_url}/responses`): its events as sent, after
   * `accepted`. Error events and `response.failed` throw UpstreamError (kind `frame`); the rest
   * of the contract is complete()'s.
   */
  respond(call: CompletionCall): AsyncGenerator<ResponsesStreamDelta[]> {
    return this.post(this.responsesPath, call, RESPONSES);
  }

  /**
   * Any other endpoint of the server (`endpoint` is relative to the base URL, e.g.
   * `images/generations`), read by `reader`: the same deadlines, limits and failures as complete().
   */
  call<T extends { accepted?: true }>(endpoint: string, call: CompletionCall, reader: Reader<T>): AsyncGenerator<T[]> {
    return this.post(`${this.prefix}/${endpoint}`, call, reader);
  }

  /** Yields the deltas as they are read, or hands them to `deliver` (and yields nothing). */
  private async *post<T extends { accepted?: true }>(path: string, call: CompletionCall, reader: Reader<T>, deliver?: (deltas: T[]) => void): AsyncGenerator<T[]> {
    const startedAt = performance.now();
    let failure: UpstreamFailure | undefined;
    const timers: CallTimers = new CallTimers(
      { expire: () => reception.abort(FINISHED), holding: () => reception.paused || reception.queued },
      call,
      this.connectTimeoutMs,
      this.idleTimeoutMs ?? call.firstTokenTimeoutMs,
    );
    const reception = new Reception(reader, this.limits, receptionHooks(timers));
    const onAbort = () => reception.abort(call.signal.reason);
    const fail = (error: unknown, otherwise: UpstreamFailure): never => {
      if (call.signal.aborted) throw call.signal.reason ?? error;
      if (timers.expired) throw new UpstreamError(timers.expired, { cause: error });
      if (error instanceof UpstreamError) throw error;
      throw new UpstreamError(otherwise, { cause: error });
    };

    try {
      if (call.signal.aborted) throw call.signal.reason;
      call.signal.addEventListener('abort', onAbort, { once: true });
      const { body, headers } = this.encode(call.body);
      this.pool.dispatch({ path, method: 'POST', headers, body, headersTimeout: 0, bodyTimeout: 0 }, reception);
      while (reception.status === undefined && !reception.error) await reception.changed();
      if (reception.status === undefined) return fail(reception.error!.reason, connectFailureOf(reception.error!.reason));
      if (reception.status !== 200) {
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
      if (deliver) deliver([{ accepted: true } as T]);
      else yield [{ accepted: true } as T];
      for (;;) {
        // Fast servers must not keep the event loop to themselves: once this turn's budget for
        // reading answers is spent, the next batch waits for the next turn (its upstream stays
        // paused meanwhile, so nothing piles up).
        const turn = yieldIfBusy();
        if (turn) await turn;
        // What arrived before a failure is the caller's all the same (as it would have been, read chunk by chunk).
        const deltas = reception.take();
        // A batch at a time: one step of this generator (and of each caller's loop) per read, not per event.
        if (deltas.length > 0) {
          if (deliver) deliver(deltas);
          else yield deltas;
        }
        // More may be queued, or have come while the caller took these: taking resumes a paused
        // upstream, which can hand over what it buffered at once.
        if (deltas.length > 0 || reception.queued) continue;
        if (reception.error) return fail(reception.error.reason, { kind: 'dropped' });
        if (reception.complete) return;
        await reception.changed();
      }
    } catch (error) {
      if (error instanceof UpstreamError) failure = error.failure;
      throw error;
    } finally {
      timers.clear();
      call.signal.removeEventListener('abort', onAbort);
      const ended = reception.status === 200 && reception.complete && !reception.error;
      // Leaving early (the consumer stopped) closes the upstream connection too. After [DONE] the
      // server ends the response at once; one that keeps it open is cut off a little later.
      if (!ended) reception.abort(FINISHED);
      else if (!reception.closed) setTimeout(() => reception.abort(FINISHED), DRAIN_AFTER_DONE_MS).unref();
      this.onCallEnd?.(callReport((performance.now() - startedAt) / 1000, ended, failure));
    }
  }

  private encode(body: CompletionCall['body']): { body: string | Uint8Array; headers: Record<string, string> } {
    if (!('encoded' in body && body.encoded instanceof Uint8Array)) return { body: JSON.stringify(body), headers: this.headers };
    return { body: body.encoded, headers: { ...this.headers, 'content-type': String(body.contentType) } };
  }

  /** Whether the server answers `GET {base_url}/models` with a 2xx before `signal` ends (an active health check). */
  async answers(signal: AbortSignal): Promise<boolean> {
    const { accept: _accept, 'content-type': _type, ...headers } = this.headers;
    try {
      const response = await this.pool.request({ path: this.modelsPath, method: 'GET', headers, signal });
      await response.body.dump({ limit: 64 * 1024 });
      return response.statusCode >= 200 && response.statusCode < 300;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
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
function errorMessageOf(text: string): string {
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

function usageOf(raw: unknown): UpstreamUsage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const usage = raw as {
    prompt_tokens?: unknown;
    completion_tokens?: unknown;
    prompt_tokens_details?: { cached_tokens?: unknown } | null;
    completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  };
  const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);
  if (typeof usage.prompt_tokens !== 'number' && typeof usage.completion_tokens !== 'number') return undefined;
  const measured: UpstreamUsage = {
    promptTokens: count(usage.prompt_tokens),
    completionTokens: count(usage.completion_tokens),
    cachedTokens: count(usage.prompt_tokens_details?.cached_tokens),
  };
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') measured.reasoningTokens = count(reasoning);
  return measured;
}

/** Usage as a Responses server reports it (`input_tokens`, `output_tokens` and their details). */
export function responsesUsageOf(raw: unknown): UpstreamUsage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const usage = raw as {
    input_tokens?: unknown;
    output_tokens?: unknown;
    input_tokens_details?: { cached_tokens?: unknown } | null;
    output_tokens_details?: { reasoning_tokens?: unknown } | null;
  };
  if (typeof usage.input_tokens !== 'number' && typeof usage.output_tokens !== 'number') return undefined;
  return usageOf({
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    prompt_tokens_details: usage.input_tokens_details,
    completion_tokens_details: usage.output_tokens_details,
  });
}

/** Tool calls of a chunk's delta (or of a whole message, where each call is complete). */
function toolCallsOf(raw: unknown): ToolCallDelta[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const calls: ToolCallDelta[] = [];
  raw.forEach((entry, position) => {
    if (!entry || typeof entry !== 'object') return;
    const call = entry as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } | null };
    const delta: ToolCallDelta = { index: typeof call.index === 'number' && Number.isSafeInteger(call.index) && call.index >= 0 ? call.index : position };
    if (typeof call.id === 'string' && call.id !== '') delta.id = call.id;
    const fn = call.function;
    if (fn && typeof fn === 'object') {
      if (typeof fn.name === 'string' && fn.name !== '') delta.name = fn.name;
      // Some servers send arguments as an object rather than its JSON text.
      if (typeof fn.arguments === 'string') {
        if (fn.arguments !== '') delta.arguments = fn.arguments;
      } else if (fn.arguments && typeof fn.arguments === 'object') {
        delta.arguments = JSON.stringify(fn.arguments);
      }
    }
    calls.push(delta);
  });
  return calls.length > 0 ? calls : undefined;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** One SSE chunk, or the error frame some servers send inside a 200 stream. */
function chunkDelta(chunk: unknown): CompletionDelta {
  if (!chunk || typeof chunk !== 'object') throw new UpstreamError({ kind: 'malformed', detail: 'a stream chunk is not an object' });
  const frame = chunk as { error?: unknown; object?: unknown; message?: unknown; choices?: unknown; usage?: unknown };
  if (frame.error !== undefined && frame.error !== null) {
    throw new UpstreamError({ kind: 'frame', detail: errorMessageOf(JSON.stringify(frame)) });
  }
  if (frame.object === 'error') throw new UpstreamError({ kind: 'frame', detail: String(frame.message ?? 'error').slice(0, 500) });
  const delta: CompletionDelta = {};
  const usage = usageOf(frame.usage);
  if (usage) delta.usage = usage;
  const choice = Array.isArray(frame.choices) ? (frame.choices[0] as Record<string, unknown> | undefined) : undefined;
  if (!choice) return delta;
  const piece = (choice.delta ?? {}) as Record<string, unknown>;
  const content = text(piece.content);
  const reasoning = text(piece.reasoning_content) ?? text(piece.reasoning);
  const refusal = text(piece.refusal);
  const toolCalls = toolCallsOf(piece.tool_calls);
  if (content) delta.content = content;
  if (reasoning) delta.reasoning = reasoning;
  if (refusal) delta.refusal = refusal;
  if (toolCalls) delta.toolCalls = toolCalls;
  if (typeof choice.finish_reason === 'string') delta.finishReason = choice.finish_reason;
  return delta;
}

/** The fields of a chunk's delta that carry the model's text, in the order chunkDelta prefers them. */
const TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning', 'refusal'];

/** Where a chunk's text is: its one choice's delta text, or its one tool call's arguments (chunkDelta keeps neither object). */
function streamedTextSlot(chunk: unknown): TextSlot | undefined {
  const choices = (chunk as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const piece = (choices[0] as { delta?: unknown } | null)?.delta as Record<string, unknown> | null | undefined;
  if (!piece || typeof piece !== 'object') return undefined;
  for (const key of TEXT_FIELDS) if (typeof piece[key] === 'string' && piece[key] !== '') return { holder: piece, key };
  const calls = piece.tool_calls;
  if (!Array.isArray(calls) || calls.length !== 1) return undefined;
  const fn = (calls[0] as { function?: unknown } | null)?.function as Record<string, unknown> | null | undefined;
  return fn && typeof fn === 'object' && typeof fn.arguments === 'string' && fn.arguments !== '' ? { holder: fn, key: 'arguments' } : undefined;
}

/** A whole (non-streamed) completion as one delta. */
function completionOf(body: unknown): CompletionDelta {
  if (!body || typeof body !== 'object') throw new UpstreamError({ kind: 'malformed', detail: 'the completion is not an object' });
  const completion = body as { choices?: unknown; usage?: unknown; error?: unknown; object?: unknown };
  if (completion.error !== undefined || completion.object === 'error') chunkDelta(completion);
  if (!Array.isArray(completion.choices)) throw new UpstreamError({ kind: 'malformed', detail: 'the completion has no choices' });
  const choice = completion.choices[0] as Record<string, unknown> | undefined;
  const message = (choice?.message ?? {}) as Record<string, unknown>;
  const delta: CompletionDelta = {};
  const content = text(message.content);
  const reasoning = text(message.reasoning_content) ?? text(message.reasoning);
  const refusal = text(message.refusal);
  const toolCalls = toolCallsOf(message.tool_calls);
  if (content) delta.content = content;
  if (reasoning) delta.reasoning = reasoning;
  if (refusal) delta.refusal = refusal;
  if (toolCalls) delta.toolCalls = toolCalls;
  if (typeof choice?.finish_reason === 'string') delta.finishReason = choice.finish_reason;
  const usage = usageOf(completion.usage);
  if (usage) delta.usage = usage;
  return delta;
}

const utf8 = (value: string | undefined) => (value ? Buffer.byteLength(value, 'utf8') : 0);

/** The text the model wrote in a delta, in UTF-8 bytes: what max_output_bytes bounds. */
function completionBytes(delta: CompletionDelta): number {
  let bytes = utf8(delta.content) + utf8(delta.reasoning) + utf8(delta.refusal);
  if (delta.toolCalls) for (const call of delta.toolCalls) bytes += utf8(call.arguments);
  return bytes;
}

/**
 * The text bytes of a native Responses stream, event by event. The model's text comes as `*.delta`
 * events, then again whole in `output_item.done` and the final response (or only there, from a
 * server that sends no deltas, or a JSON body): each output item counts once, as the most seen of it.
 */
function responsesMeter(): (delta: ResponsesStreamDelta) => number {
  const counted = new Map<number, number>();
  const grow = (index: number, bytes: number) => {
    const before = counted.get(index) ?? 0;
    counted.set(index, Math.max(before, bytes));
    return Math.max(0, bytes - before);
  };
  return ({ event }) => {
    if (!event) return 0;
    const index = typeof event.output_index === 'number' ? event.output_index : -1;
    if (event.type.endsWith('.delta')) return typeof event.delta === 'string' ? grow(index, (counted.get(index) ?? 0) + utf8(event.delta)) : 0;
    if (event.type === 'response.output_item.done') return grow(index, itemTextBytes(event.item));
    const output = (event.response as { output?: unknown } | undefined)?.output;
    if (!Array.isArray(output)) return 0;
    return output.reduce((sum: number, item, position) => sum + grow(position, itemTextBytes(item)), 0);
  };
}

/** The text of one Responses output item: message text and refusals, reasoning and its summary, tool arguments or input. */
function itemTextBytes(raw: unknown): number {
  if (!raw || typeof raw !== 'object') return 0;
  const item = raw as { content?: unknown; summary?: unknown; arguments?: unknown; input?: unknown };
  let bytes = 0;
  for (const parts of [item.content, item.summary]) {
    if (!Array.isArray(parts)) continue;
    for (const part of parts as { text?: unknown; refusal?: unknown }[]) {
      if (typeof part?.text === 'string') bytes += utf8(part.text);
      if (typeof part?.refusal === 'string') bytes += utf8(part.refusal);
    }
  }
  if (typeof item.arguments === 'string') bytes += utf8(item.arguments);
  if (typeof item.input === 'string') bytes += utf8(item.input);
  return bytes;
}

/** One event of a native Responses stream; an error event or a failed response is an error frame. */
function responsesEventOf(chunk: unknown): ResponsesStreamDelta {
  if (!chunk || typeof chunk !== 'object') throw new UpstreamError({ kind: 'malformed', detail: 'a stream event is not an object' });
  const event = chunk as { type?: unknown; error?: unknown; message?: unknown; response?: { error?: { message?: unknown } | null } };
  if (event.type === 'error' || (event.type === undefined && event.error !== undefined && event.error !== null)) {
    throw new UpstreamError({ kind: 'frame', detail: errorMessageOf(JSON.stringify(event)) });
  }
  if (event.type === 'response.failed') {
    throw new UpstreamError({ kind: 'frame', detail: String(event.response?.error?.message ?? 'the response failed').slice(0, 500) });
  }
  if (typeof event.type !== 'string') throw new UpstreamError({ kind: 'malformed', detail: 'a stream event has no type' });
  return { event: chunk as ResponsesStreamDelta['event'] };
}

/** A whole (non-streamed) response object, as the terminal event a stream would have ended with. */
function responseOfJson(body: unknown): ResponsesStreamDelta {
  if (!body || typeof body !== 'object') throw new UpstreamError({ kind: 'malformed', detail: 'the response is not an object' });
  const response = body as { object?: unknown; status?: unknown; error?: unknown };
  if (response.object !== 'response') {
    if (response.error !== undefined && response.error !== null) responsesEventOf(body);
    throw new UpstreamError({ kind: 'malformed', detail: 'the body is not a response object' });
  }
  if (response.status === 'failed') responsesEventOf({ type: 'response.failed', response: body });
  const type = response.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  return { event: { type, response: body } };
}
