import { Pool } from 'undici';
import { Reception, type Reader } from './upstream-reception.ts';

/**
 * A thin client for `POST /chat/completions` on an OpenAI-compatible server, streaming (and
 * `POST /responses` for a server that speaks the Responses API itself). It is
 * our own rather than the `openai` SDK because the engine needs what the SDK hides or refuses:
 * separate connect, first-token and total deadlines; `Retry-After` on every failure; error
 * frames inside a 200 stream in both shapes servers send (`{"error":…}`, vLLM's
 * `{"object":"error",…}`); `data:` keep-alives that are not JSON (skipped, not fatal); usage from
 * whichever chunk carries it; and Node 20 (the SDK's current major needs Node 22).
 */
export interface UpstreamEndpoint {
  baseUrl: string;
  apiKey?: string;
  connectTimeoutMs: number;
  /** An answer larger than this fails the call (oversize): a runaway upstream cannot fill the memory. */
  maxResponseBytes?: number;
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
  | { kind: 'status'; status: number; retryAfterSeconds?: number; detail: string }
  | { kind: 'frame'; detail: string }
  | { kind: 'malformed'; detail: string }
  | { kind: 'oversize'; limitBytes: number }
  | { kind: 'dropped' }
  | { kind: 'first-token-timeout' }
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

export interface CompletionCall {
  body: Record<string, unknown>;
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

/** A server that keeps the response open after [DONE] is cut off after this long. */
const DRAIN_AFTER_DONE_MS = 100;

const COMPLETIONS: Reader<CompletionDelta> = {
  json: completionOf,
  chunk: chunkDelta,
  isToken: (delta) => Boolean(delta.content || delta.reasoning || delta.refusal || delta.toolCalls),
};

/** Lifecycle events say the server is working; anything else is the model answering. */
const NOT_TOKENS = new Set(['response.created', 'response.in_progress', 'response.queued']);
const RESPONSES: Reader<ResponsesStreamDelta> = {
  json: responseOfJson,
  chunk: responsesEventOf,
  isToken: (delta) => delta.event !== undefined && !NOT_TOKENS.has(delta.event.type),
};

export class UpstreamClient {
  /** One upstream origin: a Pool of keep-alive connections to it (cheaper per call than an Agent, which looks the origin up each time). */
  private readonly pool: Pool;
  private readonly completionsPath: string;
  private readonly responsesPath: string;
  private readonly headers: Record<string, string>;
  private readonly onCallEnd?: (report: UpstreamCallReport) => void;
  private readonly maxResponseBytes: number;

  constructor(endpoint: UpstreamEndpoint) {
    this.onCallEnd = endpoint.onCallEnd;
    this.maxResponseBytes = endpoint.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    const base = new URL(endpoint.baseUrl);
    const prefix = base.pathname.replace(/\/+$/, '');
    this.completionsPath = `${prefix}/chat/completions`;
    this.responsesPath = `${prefix}/responses`;
    this.pool = new Pool(base.origin, { connect: { timeout: endpoint.connectTimeoutMs }, keepAliveTimeout: 30_000 });
    this.headers = {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
    };
  }

  /**
   * Streams one completion. Yields normalized deltas; throws UpstreamError for anything the
   * upstream did wrong, or the caller's abort reason when the caller went away.
   */
  complete(call: CompletionCall): AsyncGenerator<CompletionDelta> {
    return this.post(this.completionsPath, call, COMPLETIONS);
  }

  /**
   * Streams one native Responses call (`POST {base_url}/responses`): its events as sent, after
   * `accepted`. Error events and `response.failed` throw UpstreamError (kind `frame`); the rest
   * of the contract is complete()'s.
   */
  respond(call: CompletionCall): AsyncGenerator<ResponsesStreamDelta> {
    return this.post(this.responsesPath, call, RESPONSES);
  }

  private async *post<T extends { accepted?: true }>(path: string, call: CompletionCall, reader: Reader<T>): AsyncGenerator<T> {
    const startedAt = performance.now();
    let failure: UpstreamFailure | undefined;
    let timedOut: UpstreamFailure | undefined;
    let firstToken: NodeJS.Timeout | undefined;
    const gotToken = () => {
      clearTimeout(firstToken);
      firstToken = undefined;
    };
    const limitBytes = this.maxResponseBytes;
    const reception = new Reception(reader, gotToken, limitBytes, () => new UpstreamError({ kind: 'oversize', limitBytes }));
    const expire = (failure: UpstreamFailure) => () => {
      timedOut ??= failure;
      reception.abort(FINISHED);
    };
    const onAbort = () => reception.abort(call.signal.reason);
    const deadline = setTimeout(expire({ kind: 'deadline' }), Math.max(0, call.deadlineAt - Date.now()));
    firstToken = setTimeout(expire({ kind: 'first-token-timeout' }), call.firstTokenTimeoutMs);
    const fail = (error: unknown, otherwise: UpstreamFailure): never => {
      if (call.signal.aborted) throw call.signal.reason ?? error;
      if (timedOut) throw new UpstreamError(timedOut, { cause: error });
      if (error instanceof UpstreamError) throw error;
      throw new UpstreamError(otherwise, { cause: error });
    };

    try {
      if (call.signal.aborted) throw call.signal.reason;
      call.signal.addEventListener('abort', onAbort, { once: true });
      this.pool.dispatch({ path, method: 'POST', headers: this.headers, body: JSON.stringify(call.body), headersTimeout: 0, bodyTimeout: 0 }, reception);
      while (reception.status === undefined && !reception.error) await reception.changed();
      if (reception.status === undefined) return fail(reception.error!.reason, { kind: 'connect' });
      if (reception.status !== 200) {
        while (!reception.complete && !reception.error) await reception.changed();
        const retryAfterSeconds = parseRetryAfter(reception.headers!['retry-after']);
        throw new UpstreamError({
          kind: 'status',
          status: reception.status,
          detail: errorMessageOf(reception.errorText()),
          ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
        });
      }
      yield { accepted: true } as T;
      for (;;) {
        // What arrived before a failure is the caller's all the same (as it would have been, read chunk by chunk).
        const deltas = reception.take();
        for (const delta of deltas) yield delta;
        if (deltas.length > 0) continue; // more may have come while the caller took these
        if (reception.error) return fail(reception.error.reason, { kind: 'dropped' });
        if (reception.complete) return;
        await reception.changed();
      }
    } catch (error) {
      if (error instanceof UpstreamError) failure = error.failure;
      throw error;
    } finally {
      clearTimeout(deadline);
      clearTimeout(firstToken);
      call.signal.removeEventListener('abort', onAbort);
      const ended = reception.status === 200 && reception.complete && !reception.error;
      // Leaving early (the consumer stopped) closes the upstream connection too. After [DONE] the
      // server ends the response at once; one that keeps it open is cut off a little later.
      if (!ended) reception.abort(FINISHED);
      else if (!reception.closed) setTimeout(() => reception.abort(FINISHED), DRAIN_AFTER_DONE_MS).unref();
      this.onCallEnd?.(callReport((performance.now() - startedAt) / 1000, ended, failure));
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
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

/** A whole (non-streamed) completion as one delta. */
function completionOf(body: unknown): CompletionDelta {
  if (!body || typeof body !== 'object') throw new UpstreamError({ kind: 'malformed', detail: 'the completion is not an object' });
  const completion = body as { choices?: unknown; usage?: unknown; error?: unknown; object?: unknown };
  if (completion.error !== undefined || completion.object === 'error') chunkDelta(completion);
  const choice = Array.isArray(completion.choices) ? (completion.choices[0] as Record<string, unknown> | undefined) : undefined;
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
