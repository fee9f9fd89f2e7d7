import { newId } from '../../../contract/ids.ts';
import type { ResponsesStreamEvent } from '../../../contract/responses.ts';
import { ThinkSplitter } from '../think-splitter.ts';
import type { CompletionDelta, ToolCallDelta, UpstreamUsage } from '../../upstream/client.ts';
import type { ResponseBuilder } from './builder.ts';
import { CustomInputReader } from './custom-input.ts';

const MESSAGE = 'message';
const REASONING = 'reasoning';

/** One tool call being streamed, by its place in the answer. */
interface Slot {
  key: string;
  id?: string;
  name?: string;
  /** Arguments received before the name (rare): written once the call can be opened. */
  pending: string;
  opened: boolean;
  custom?: CustomInputReader;
  raw: string;
}

/** What a finished chat call measured. */
export interface ChatEnd {
  status: 'completed' | 'incomplete';
  reason?: string;
  usage?: UpstreamUsage;
  /** Answer and reasoning text, tool names and arguments (for counting when no usage is reported). */
  written: string[];
  reasoning: string;
}

/**
 * Reads one streamed Chat Completions answer into the builder: reasoning (`reasoning_content`,
 * `reasoning`, or inline `<think>`) opens a reasoning item whose text is never shown; content
 * and refusals become the assistant message; `tool_calls` deltas — arguments split across
 * chunks, several calls at once — become `function_call` items (`custom_tool_call` for declared
 * custom tools, whose `{"input": …}` is unwrapped as it streams). With `parallel_tool_calls:
 * false` only the first call is kept.
 */
export class ChatAnswerReader {
  private readonly splitter = new ThinkSplitter();
  private readonly slots = new Map<number, Slot>();
  private readonly order: Slot[] = [];
  private reasoningText = '';
  private text = '';
  private refusalText = '';
  private answered = false;
  private finishReason?: string;
  private usage?: UpstreamUsage;

  constructor(
    private readonly builder: ResponseBuilder,
    private readonly customTools: ReadonlySet<string>,
    private readonly singleCall: boolean,
  ) {}

  take(delta: CompletionDelta): ResponsesStreamEvent[] {
    const events: ResponsesStreamEvent[] = [];
    if (delta.usage) this.usage = delta.usage;
    if (delta.finishReason) this.finishReason = delta.finishReason;
    if (delta.reasoning) events.push(...this.think(delta.reasoning));
    if (delta.content) {
      const { content, reasoning } = this.splitter.push(delta.content);
      if (reasoning) events.push(...this.think(reasoning));
      if (content) events.push(...this.answer(), ...this.builder.text(MESSAGE, content));
      this.text += content;
    }
    if (delta.refusal) {
      this.refusalText += delta.refusal;
      events.push(...this.answer(), ...this.builder.refusal(MESSAGE, delta.refusal));
    }
    for (const call of delta.toolCalls ?? []) events.push(...this.toolCall(call));
    return events;
  }

  /** The end of the answer: held text, the rest of custom inputs, empty arguments made `{}`. */
  end(): { events: ResponsesStreamEvent[]; end: ChatEnd } {
    const events: ResponsesStreamEvent[] = [];
    const rest = this.splitter.flush();
    if (rest.reasoning) events.push(...this.think(rest.reasoning));
    if (rest.content) {
      this.text += rest.content;
      events.push(...this.answer(), ...this.builder.text(MESSAGE, rest.content));
    }
    const written = [this.text, this.reasoningText, this.refusalText];
    for (const slot of this.order) {
      if (!slot.opened) continue; // a call that never named its tool cannot be returned
      written.push(slot.name ?? '', slot.raw);
      if (slot.custom) events.push(...this.builder.callDelta(slot.key, slot.custom.finish().rest));
      else if (slot.raw.trim() === '') events.push(...this.builder.callDelta(slot.key, '{}'));
    }
    const end: ChatEnd = { status: 'completed', written, reasoning: this.reasoningText };
    if (this.finishReason === 'length') Object.assign(end, { status: 'incomplete', reason: 'max_output_tokens' });
    if (this.finishReason === 'content_filter') Object.assign(end, { status: 'incomplete', reason: 'content_filter' });
    if (this.usage) end.usage = this.usage;
    return { events, end };
  }

  private think(text: string): ResponsesStreamEvent[] {
    this.reasoningText += text;
    // Reasoning after the answer began (rare) is counted, not shown as a second item.
    return this.answered ? [] : this.builder.reasoning(REASONING);
  }

  /** The answer begins: the reasoning item (if any) is done. */
  private answer(): ResponsesStreamEvent[] {
    if (this.answered) return [];
    this.answered = true;
    return this.builder.close(REASONING);
  }

  private toolCall(delta: ToolCallDelta): ResponsesStreamEvent[] {
    let slot = this.slots.get(delta.index);
    // A server that numbers every call 0 (or none) still starts a new call with a new id.
    if (slot && delta.id !== undefined && slot.id !== undefined && delta.id !== slot.id) slot = undefined;
    if (!slot) {
      if (this.singleCall && this.order.length > 0) return [];
      slot = { key: `call:${this.order.length}`, pending: '', opened: false, raw: '' };
      this.slots.set(delta.index, slot);
      this.order.push(slot);
    }
    if (delta.id !== undefined) slot.id ??= delta.id;
    if (delta.name !== undefined) slot.name ??= delta.name;
    const events: ResponsesStreamEvent[] = [];
    const piece = delta.arguments ?? '';
    slot.raw += piece;
    if (!slot.opened) {
      slot.pending += piece;
      if (slot.name === undefined) return events;
      slot.opened = true;
      const custom = this.customTools.has(slot.name);
      if (custom) slot.custom = new CustomInputReader();
      events.push(
        ...this.answer(),
        ...this.builder.call(slot.key, { kind: custom ? 'custom_tool_call' : 'function_call', callId: slot.id ?? newId('toolCall'), name: slot.name }),
      );
      events.push(...this.write(slot, slot.pending));
      slot.pending = '';
      return events;
    }
    return this.write(slot, piece);
  }

  private write(slot: Slot, piece: string): ResponsesStreamEvent[] {
    if (piece === '') return [];
    return this.builder.callDelta(slot.key, slot.custom ? slot.custom.push(piece) : piece);
  }
}
