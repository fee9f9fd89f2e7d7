import type { CatalogEntry } from '../../../config/schema.ts';
import type { ResponsesRequest, ResponsesStreamEvent } from '../../../contract/responses.ts';
import type { OpenAiCompatibleOptions } from '../options.ts';
import { responsesUsageOf, type UpstreamUsage } from '../../upstream/client.ts';
import { UpstreamError } from '../../upstream/exchange.ts';
import type { ResponseBuilder } from './builder.ts';
import { supportedSampling } from '../budget.ts';

/**
 * For a server that speaks the Responses API itself (`options.responses_api`): the request goes
 * to `POST {base_url}/responses` nearly as it came — stateless (`store: false`), streamed, with
 * our output cap — and its events are read back into our own builder, so ids, sequence numbers,
 * reasoning (an empty summary, never its text) and the event types are Inkwell's whatever the
 * server sent. What is dropped on the way up: replayed reasoning items (nothing to refer to on a
 * stateless server) and the ids of replayed items (ours, unknown to it); `input_image` URLs are
 * replaced by the checked, downscaled image as a data: URL, so the server never fetches a
 * caller's URL. Unknown event types (vendor extensions, hosted tools) are ignored.
 */
export function toResponsesBody(
  request: ResponsesRequest,
  entry: CatalogEntry,
  options: OpenAiCompatibleOptions,
  imageUrls: ReadonlyMap<object, string>,
  maxOutputTokens: number,
): Record<string, unknown> {
  const input =
    typeof request.input === 'string'
      ? request.input
      : request.input
          .filter((item) => item.type !== 'reasoning')
          .map((item) => {
            const { id: _id, status: _status, ...rest } = item as typeof item & { id?: unknown; status?: unknown };
            for (const field of ['content', 'output'] as const) {
              const parts = (rest as Record<string, unknown>)[field];
              if (!Array.isArray(parts)) continue;
              (rest as Record<string, unknown>)[field] = parts.map((part: { type: string }) =>
                part.type === 'input_image' ? { ...part, image_url: imageUrls.get(part) } : part,
              );
            }
            return rest;
          });
  const body: Record<string, unknown> = {
    ...options.extra_body,
    input,
    store: false,
    stream: true,
    max_output_tokens: maxOutputTokens,
    ...supportedSampling(entry, request),
  };
  const copied = ['instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'text', 'truncation', 'max_tool_calls', 'prompt_cache_key', 'safety_identifier'] as const;
  for (const field of copied) {
    const value = request[field];
    if (value !== undefined && value !== null) body[field] = value;
  }
  if (options.reasoning && request.reasoning?.effort) body.reasoning = { effort: request.reasoning.effort };
  return body;
}

type UpstreamItem = { type?: unknown; id?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown; input?: unknown; content?: unknown };

/** What a finished passthrough call measured. */
export interface PassthroughEnd {
  status: 'completed' | 'incomplete';
  reason?: string;
  usage?: UpstreamUsage;
  /** The answer's text (for counting when the server reports no usage). */
  written: string[];
}

/** Reads one native Responses stream into the builder. */
export class PassthroughReader {
  private readonly keys = new Map<number, string>();
  private readonly kinds = new Map<string, string>();
  private readonly seen = new Set<string>();
  private terminal?: { type: string; response: Record<string, unknown> };
  private readonly reasoningText: string[] = [];

  constructor(private readonly builder: ResponseBuilder) {}

  take(event: { type: string; [field: string]: unknown }): ResponsesStreamEvent[] {
    const b = this.builder;
    switch (event.type) {
      case 'response.output_item.added':
        return this.added(event.item as UpstreamItem, event.output_index);
      case 'response.output_text.delta':
        return this.message(event, (key) => b.text(key, String(event.delta ?? '')));
      case 'response.refusal.delta':
        return this.message(event, (key) => b.refusal(key, String(event.delta ?? '')));
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta': {
        const key = this.keyOf(event);
        return key && b.has(key) ? b.callDelta(key, String(event.delta ?? '')) : [];
      }
      case 'response.reasoning_text.delta':
      case 'response.reasoning.delta':
      case 'response.reasoning_summary_text.delta':
        if (typeof event.delta === 'string') this.reasoningText.push(event.delta);
        return [];
      case 'response.output_item.done':
        return this.done(event.item as UpstreamItem, event.output_index);
      case 'response.completed':
      case 'response.incomplete':
        this.terminal = { type: event.type, response: (event.response ?? {}) as Record<string, unknown> };
        return this.absorb(this.terminal.response.output);
      default:
        return [];
    }
  }

  /** After the stream: the outcome, or a dropped stream when it never reached a terminal event. */
  end(): PassthroughEnd {
    if (!this.terminal) throw new UpstreamError({ kind: 'dropped' });
    const response = this.terminal.response;
    const reason = (response.incomplete_details as { reason?: unknown } | null | undefined)?.reason;
    const end: PassthroughEnd = {
      status: this.terminal.type === 'response.incomplete' ? 'incomplete' : 'completed',
      written: [...this.reasoningText],
    };
    if (end.status === 'incomplete') end.reason = typeof reason === 'string' ? reason : 'max_output_tokens';
    const usage = responsesUsageOf(response.usage);
    if (usage) end.usage = usage;
    for (const key of this.seen) end.written.push(this.builder.written(key));
    return end;
  }

  private keyOf(event: Record<string, unknown>): string | undefined {
    if (typeof event.item_id === 'string' && event.item_id !== '') return `up:${event.item_id}`;
    return typeof event.output_index === 'number' ? this.keys.get(event.output_index) : undefined;
  }

  private itemKey(item: UpstreamItem, outputIndex: unknown): string {
    const key = typeof item.id === 'string' && item.id !== '' ? `up:${item.id}` : `at:${String(outputIndex)}`;
    if (typeof outputIndex === 'number') this.keys.set(outputIndex, key);
    return key;
  }

  private added(item: UpstreamItem | undefined, outputIndex: unknown): ResponsesStreamEvent[] {
    if (!item || typeof item !== 'object') return [];
    const key = this.itemKey(item, outputIndex);
    this.kinds.set(key, String(item.type));
    if (item.type === 'reasoning') return this.builder.reasoning(key);
    if ((item.type === 'function_call' || item.type === 'custom_tool_call') && typeof item.name === 'string') {
      this.seen.add(key);
      return this.builder.call(key, { kind: item.type, callId: typeof item.call_id === 'string' ? item.call_id : String(item.id ?? key), name: item.name });
    }
    return []; // a message opens with its first text; other item types are not ours to show
  }

  private message(event: Record<string, unknown>, write: (key: string) => ResponsesStreamEvent[]): ResponsesStreamEvent[] {
    const key = this.keyOf(event) ?? `at:${String(event.output_index)}`;
    if (this.kinds.has(key) && this.kinds.get(key) !== 'message') return [];
    this.kinds.set(key, 'message');
    this.seen.add(key);
    return write(key);
  }

  /** An item's final form: whatever its deltas did not carry is written, then it is closed. */
  private done(item: UpstreamItem | undefined, outputIndex: unknown): ResponsesStreamEvent[] {
    if (!item || typeof item !== 'object') return [];
    const key = this.itemKey(item, outputIndex);
    const events: ResponsesStreamEvent[] = [];
    if (item.type === 'message') {
      this.kinds.set(key, 'message');
      const text = Array.isArray(item.content)
        ? item.content.map((part: { type?: unknown; text?: unknown; refusal?: unknown }) => (part.type === 'output_text' ? String(part.text ?? '') : part.type === 'refusal' ? String(part.refusal ?? '') : '')).join('')
        : '';
      const written = this.builder.written(key);
      if (text.startsWith(written) && text.length > written.length) {
        this.seen.add(key);
        const refusal = Array.isArray(item.content) && item.content.every((part: { type?: unknown }) => part.type === 'refusal');
        const rest = text.slice(written.length);
        events.push(...(refusal ? this.builder.refusal(key, rest) : this.builder.text(key, rest)));
      }
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      if (!this.builder.has(key) && !this.seen.has(key)) events.push(...this.added(item, outputIndex));
      const final = item.type === 'function_call' ? item.arguments : item.input;
      const written = this.builder.written(key);
      if (typeof final === 'string' && final.startsWith(written) && final.length > written.length) events.push(...this.builder.callDelta(key, final.slice(written.length)));
    } else if (item.type === 'reasoning' && !this.builder.has(key) && !this.kinds.has(key)) {
      events.push(...this.builder.reasoning(key));
    }
    events.push(...this.builder.close(key));
    this.kinds.set(key, `${String(item.type)}:done`);
    return events;
  }

  /** Items of the terminal response that no event announced (a server that did not stream them). */
  private absorb(output: unknown): ResponsesStreamEvent[] {
    if (!Array.isArray(output)) return [];
    const events: ResponsesStreamEvent[] = [];
    output.forEach((item: UpstreamItem, index) => {
      if (!item || typeof item !== 'object') return;
      const key = typeof item.id === 'string' && item.id !== '' ? `up:${item.id}` : `at:${index}`;
      const state = this.kinds.get(key);
      if (state?.endsWith(':done')) return;
      if (!['message', 'function_call', 'custom_tool_call', 'reasoning'].includes(String(item.type))) return;
      events.push(...this.done(item, index));
    });
    return events;
  }
}
