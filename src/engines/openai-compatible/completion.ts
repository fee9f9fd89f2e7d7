import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { DRAWING_ELEMENTS, draftFromModelText } from '../../svg/model-output.ts';
import { ThinkSplitter } from './think-splitter.ts';
import { UpstreamError, type UpstreamClient, type UpstreamUsage } from './upstream-client.ts';
import { mapUpstreamFailure, refusedParameter } from './upstream-errors.ts';

/** Drafts after the first: at most one per this many milliseconds. */
export const DRAFT_INTERVAL_MS = 100;

export type ChatContent = string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[];
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: ChatContent;
}

/** One upstream call. */
export interface CallSpec {
  messages: ChatMessage[];
  maxTokens: number;
  /** Sampling fields, sent only where the model supports them (the caller decides). */
  sampling: Record<string, number | string>;
  /** Emit draft previews of the SVG being written, with this viewBox when it has none. */
  drafts?: { fallbackViewBox: string };
}

export interface CallResult {
  text: string;
  reasoning: string;
  usage?: UpstreamUsage;
  finishReason?: string;
  refusal?: string;
}

export type CallEvent = { type: 'accepted' } | { type: 'reasoning'; text: string } | { type: 'draft'; svg: string };

export interface CallContext {
  /**
   * Stream the upstream's answer (drafts and reasoning as they come). False for a client that
   * does not stream: one JSON answer is cheaper to read, and nobody would see the pieces.
   */
  stream: boolean;
  client: UpstreamClient;
  model: string;
  extraBody: Record<string, unknown>;
  signal: AbortSignal;
  firstTokenTimeoutMs: number;
  deadlineAt: number;
  logger?: Logger;
  modelId: string;
}

/**
 * Runs one completion to its end, streaming reasoning and draft previews through `onEvent`.
 * `stream_options` is dropped once for a server that refuses it; one more attempt follows a
 * connect failure, a short 429 or a 5xx — only while nothing of this call reached the client.
 * Throws the ApiError the client should see, or the caller's abort.
 */
export async function runCall(context: CallContext, spec: CallSpec, onEvent: (event: CallEvent) => void): Promise<CallResult> {
  let streamOptions = true;
  let retried = false;
  for (;;) {
    const attempt = new Attempt(spec, onEvent);
    try {
      const body = {
        ...context.extraBody,
        model: context.model,
        messages: spec.messages,
        max_tokens: spec.maxTokens,
        ...spec.sampling,
        stream: context.stream,
        ...(context.stream && streamOptions ? { stream_options: { include_usage: true } } : {}),
      };
      // Unstreamed, the first token arrives with the last: only the total deadline applies.
      const firstTokenTimeoutMs = context.stream ? context.firstTokenTimeoutMs : Math.max(0, context.deadlineAt - Date.now());
      for await (const delta of context.client.complete({ body, signal: context.signal, firstTokenTimeoutMs, deadlineAt: context.deadlineAt })) {
        attempt.take(delta);
      }
      return attempt.result();
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      if (streamOptions && refusedParameter(error, 'stream_options')) {
        streamOptions = false;
        continue;
      }
      const mapped = mapUpstreamFailure(error);
      if (mapped.misconfigured) context.logger?.error({ err: error, model: context.modelId }, 'the upstream refused our credentials: check the model entry\'s api_key_env');
      else context.logger?.warn({ err: error, model: context.modelId }, 'upstream call failed');
      if (mapped.retryable && !retried && !attempt.forwarded) {
        retried = true;
        if (mapped.waitSeconds > 0) await sleep(mapped.waitSeconds * 1000, undefined, { signal: context.signal });
        continue;
      }
      throw mapped.error;
    }
  }
}

/**
 * A drawing element's start tag, closed: what the first draft needs at the least (a quick test
 * that spares a lenient parse of the document for every earlier tag).
 */
const CLOSED_SHAPE_TAG = new RegExp(`<(?:${DRAWING_ELEMENTS.join('|')})[\\s/>][^<]*>`, 'gi');

/** One attempt's state: the answer so far, and what of it reached the client. */
class Attempt {
  private text = '';
  private reasoning = '';
  private readonly splitter = new ThinkSplitter();
  private usage?: UpstreamUsage;
  private finishReason?: string;
  private refusal = '';
  private lastDraftAt = 0;
  private lastDraft?: string;
  private svgBegun = false;
  /** A `>` arrived since the last draft was made: an element may have completed. */
  private unseenClose = false;
  /** Where the search for a drawing start tag goes on from. */
  private shapeScanFrom = 0;
  /** Reasoning or a draft of this attempt was emitted: retrying would show the client two answers. */
  forwarded = false;

  constructor(
    private readonly spec: CallSpec,
    private readonly onEvent: (event: CallEvent) => void,
  ) {}

  take(delta: import('./upstream-client.ts').CompletionDelta): void {
    if (delta.accepted) this.onEvent({ type: 'accepted' });
    if (delta.usage) this.usage = delta.usage;
    if (delta.finishReason) this.finishReason = delta.finishReason;
    if (delta.refusal) this.refusal += delta.refusal;
    if (delta.reasoning) this.think(delta.reasoning);
    if (delta.content) {
      const { content, reasoning } = this.splitter.push(delta.content);
      if (reasoning) this.think(reasoning);
      if (content) {
        this.text += content;
        this.maybeDraft(content);
      }
    }
  }

  result(): CallResult {
    const rest = this.splitter.flush();
    this.text += rest.content;
    this.reasoning += rest.reasoning;
    return {
      text: this.text,
      reasoning: this.reasoning,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.finishReason ? { finishReason: this.finishReason } : {}),
      ...(this.refusal ? { refusal: this.refusal } : {}),
    };
  }

  private think(text: string): void {
    this.reasoning += text;
    this.forwarded = true;
    this.onEvent({ type: 'reasoning', text });
  }

  /**
   * Whether the answer has a closed drawing start tag. Each call reads on from the last `<`
   * seen (the only tag that can still complete), so a long preamble is read once, not per chunk.
   */
  private shapeTagClosed(): boolean {
    CLOSED_SHAPE_TAG.lastIndex = this.shapeScanFrom;
    if (CLOSED_SHAPE_TAG.test(this.text)) return true;
    this.shapeScanFrom = Math.max(this.shapeScanFrom, this.text.lastIndexOf('<'));
    return false;
  }

  /** The first draft as soon as something drawable is complete, then one per DRAFT_INTERVAL_MS at most. */
  private maybeDraft(added: string): void {
    if (!this.spec.drafts) return;
    // Until an <svg begins, prose costs one small search per chunk, not a parse.
    if (!this.svgBegun) {
      this.svgBegun = /<svg/i.test(this.text.slice(-(added.length + 4)));
      if (!this.svgBegun) return;
    }
    // An element completes with a `>`: until one arrives, nothing new is drawable.
    if (added.includes('>')) this.unseenClose = true;
    if (!this.unseenClose) return;
    const now = performance.now();
    if (this.lastDraft !== undefined && now - this.lastDraftAt < DRAFT_INTERVAL_MS) return;
    this.unseenClose = false;
    // Before the first draft, a whole repair waits for a drawing element's start tag to close.
    if (this.lastDraft === undefined && !this.shapeTagClosed()) return;
    const svg = draftFromModelText(this.text, this.spec.drafts.fallbackViewBox);
    if (svg === undefined || svg === this.lastDraft) return;
    this.lastDraft = svg;
    this.lastDraftAt = now;
    this.forwarded = true;
    this.onEvent({ type: 'draft', svg });
  }
}
