import { Pool } from 'undici';
import { SVG_MAX_BYTES } from '../../contract/media-size.ts';
import type { Reader } from './reception.ts';
import { errorMessageOf, Exchange, UpstreamError, type CompletionCall, type ExchangeSettings, type UpstreamCallReport } from './exchange.ts';
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
  /** What every call shares: the pool, the bounds of an answer, the deadlines, the end-of-call report. */
  private readonly settings: ExchangeSettings;

  constructor(endpoint: UpstreamEndpoint) {
    const outputBytes = endpoint.maxOutputBytes ?? SVG_MAX_BYTES;
    const base = new URL(endpoint.baseUrl);
    const prefix = base.pathname.replace(/\/+$/, '');
    this.prefix = prefix;
    this.host = base.host;
    this.completionsPath = `${prefix}/chat/completions`;
    this.responsesPath = `${prefix}/responses`;
    this.modelsPath = `${prefix}/models`;
    // undici's own connect timeout runs on a coarse timer (it fires up to a second late): the
    // client keeps a precise one per call (exchange.ts), and undici's is left to close the socket.
    this.pool = new Pool(base.origin, { connect: { timeout: endpoint.connectTimeoutMs }, keepAliveTimeout: 30_000 });
    this.headers = {
      'content-type': 'application/json',
      accept: 'text/event-stream, application/json',
      ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
    };
    this.settings = {
      pool: this.pool,
      headers: this.headers,
      limits: {
        outputBytes,
        frameBytes: JSON_ESCAPE_FACTOR * outputBytes + FRAME_ALLOWANCE_BYTES,
        responseBytes: endpoint.maxResponseBytes ?? MAX_RESPONSE_BYTES,
      },
      connectTimeoutMs: endpoint.connectTimeoutMs,
      idleTimeoutMs: endpoint.idleTimeoutMs,
      onCallEnd: endpoint.onCallEnd,
    };
  }

  /**
   * Streams one completion. Yields normalized deltas, in batches (those read together); throws UpstreamError for anything the
   * upstream did wrong, or the caller's abort reason when the caller went away.
   */
  complete(call: CompletionCall): AsyncGenerator<CompletionDelta[]> {
    return this.exchange(call, COMPLETIONS).stream(this.completionsPath);
  }

  /**
   * complete(), its deltas handed to `deliver` as they are read rather than yielded: one promise
   * for the whole answer instead of one per read, and no generator step of every caller either
   * (what waits between two tokens is what thousands of open streams cost the collector).
   */
  completeInto(call: CompletionCall, deliver: (deltas: CompletionDelta[]) => void): Promise<void> {
    return this.exchange(call, COMPLETIONS).into(this.completionsPath, deliver);
  }

  /**
   * Streams one native Responses call (`POST {base_url}/responses`): its events as sent, after
   * `accepted`. Error events and `response.failed` throw UpstreamError (kind `frame`); the rest
   * of the contract is complete()'s.
   */
  respond(call: CompletionCall): AsyncGenerator<ResponsesStreamDelta[]> {
    return this.exchange(call, RESPONSES).stream(this.responsesPath);
  }

  /**
   * Any other endpoint of the server (`endpoint` is relative to the base URL, e.g.
   * `images/generations`), read by `reader`: the same deadlines, limits and failures as complete().
   */
  call<T extends { accepted?: true }>(endpoint: string, call: CompletionCall, reader: Reader<T>): AsyncGenerator<T[]> {
    return this.exchange(call, reader).stream(`${this.prefix}/${endpoint}`);
  }

  private exchange<T extends { accepted?: true }>(call: CompletionCall, reader: Reader<T>): Exchange<T> {
    return new Exchange(this.settings, call, reader);
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
