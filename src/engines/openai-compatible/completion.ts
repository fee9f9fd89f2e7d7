import type { EngineEvent } from '../engine.ts';
import { DraftMaker, type DraftOptions } from './drafts.ts';
import { ThinkSplitter } from './think-splitter.ts';
import { resultOf, upstreamCall, type CallPolicy } from '../upstream/call.ts';
import type { CompletionDelta, UpstreamUsage } from '../upstream/client.ts';
import { StreamedText } from './streamed-text.ts';

export type ChatContent = string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[];
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: ChatContent;
}

/** One upstream call. */
export interface CallSpec {
  /** The output the call works on: its reasoning and drafts are that output's engine events. */
  index: number;
  messages: ChatMessage[];
  maxTokens: number;
  /** Sampling fields, sent only where the model supports them (the caller decides). */
  sampling: Record<string, number | string>;
  /** Emit draft previews of the SVG being written (finished documents, as the content will be). */
  drafts?: DraftOptions;
}

export interface CallResult {
  text: string;
  reasoning: string;
  usage?: UpstreamUsage;
  finishReason?: string;
  refusal?: string;
}

/**
 * What a call reports as it goes: the upstream accepted it, or one of the output's engine events,
 * made here once and handed on as they are. A draft passes from here to the client's socket in
 * one call; an event object made again on the way was seen allocated in the old generation (V8
 * tenured its allocation site), where it kept its draft through every scavenge until the next
 * full collection (bench/README.md, *Nothing of a token outlives the young generation*).
 */
export type CallEvent = { type: 'accepted' } | Extract<EngineEvent, { type: 'reasoning' | 'draft' }>;

/** What the calls of one output share: their policy (servers, signal, deadline) and how they are made. */
export interface CallContext {
  /**
   * Stream the upstream's answer (drafts and reasoning as they come). False for a client that
   * does not stream: one JSON answer is cheaper to read, and nobody would see the pieces.
   */
  stream: boolean;
  /** Its `streamOptions` is `stream`. */
  policy: CallPolicy;
  extraBody: Record<string, unknown>;
  firstTokenTimeoutMs: number;
}

/**
 * Runs one completion to its end, streaming reasoning and draft previews through `onEvent`, with
 * the engine's one failure policy (upstreamCall): a retry only while nothing of this call
 * reached the client. Throws the ApiError the client should see, or the caller's abort.
 */
export function runCall(context: CallContext, spec: CallSpec, onEvent: (event: CallEvent) => void): Promise<CallResult> {
  let attempt: Attempt | undefined;
  const { policy, stream } = context;
  return resultOf(
    upstreamCall(
      policy,
      async function* (member, streamOptions, deadlineAt) {
        const current = (attempt = new Attempt(spec, onEvent));
        const body = {
          ...context.extraBody,
          model: member.model,
          messages: spec.messages,
          max_tokens: spec.maxTokens,
          ...spec.sampling,
          stream,
          ...(streamOptions ? { stream_options: { include_usage: true } } : {}),
        };
        // Unstreamed, the first token arrives with the last: only the total deadline applies.
        const firstTokenTimeoutMs = stream ? context.firstTokenTimeoutMs : Math.max(0, deadlineAt - Date.now());
        await member.client.completeInto({ body, signal: policy.signal, firstTokenTimeoutMs, deadlineAt }, (deltas) => {
          for (const delta of deltas) current.take(delta);
        });
        return current.result();
      },
      () => attempt?.forwarded ?? false,
    ),
  );
}

/** One attempt's state: the answer so far, and what of it reached the client. */
class Attempt {
  /** The answer, copied as it comes and read once at the end: a chunk costs in proportion to itself. */
  private readonly content = new StreamedText();
  private readonly thoughts = new StreamedText();
  private readonly splitter = new ThinkSplitter();
  private readonly drafts?: DraftMaker;
  private usage?: UpstreamUsage;
  private finishReason?: string;
  private refusal = '';
  /** Reasoning or a draft of this attempt was emitted: retrying would show the client two answers. */
  forwarded = false;

  private readonly index: number;

  constructor(
    spec: CallSpec,
    private readonly onEvent: (event: CallEvent) => void,
  ) {
    this.index = spec.index;
    if (spec.drafts) this.drafts = new DraftMaker(spec.drafts, this.content);
  }

  take(delta: CompletionDelta): void {
    if (delta.accepted) this.onEvent({ type: 'accepted' });
    if (delta.usage) this.usage = delta.usage;
    if (delta.finishReason) this.finishReason = delta.finishReason;
    if (delta.refusal) this.refusal += delta.refusal;
    if (delta.reasoning) this.think(delta.reasoning);
    if (delta.content) {
      const { content, reasoning } = this.splitter.push(delta.content);
      if (reasoning) this.think(reasoning);
      if (content) {
        this.content.push(content);
        const draft = this.drafts?.push(content);
        if (draft !== undefined) {
          this.forwarded = true;
          this.onEvent({ type: 'draft', index: this.index, svg: draft });
        }
      }
    }
  }

  result(): CallResult {
    const rest = this.splitter.flush();
    if (rest.content) this.content.push(rest.content);
    if (rest.reasoning) this.thoughts.push(rest.reasoning);
    return {
      text: this.content.text(),
      reasoning: this.thoughts.text(),
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.finishReason ? { finishReason: this.finishReason } : {}),
      ...(this.refusal ? { refusal: this.refusal } : {}),
    };
  }

  private think(text: string): void {
    this.thoughts.push(text);
    this.forwarded = true;
    this.onEvent({ type: 'reasoning', index: this.index, text });
  }
}
