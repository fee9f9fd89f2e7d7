import { newId } from '../../../contract/ids.ts';
import type {
  CustomToolCallItem,
  FunctionCallItem,
  OutputItem,
  OutputMessage,
  ReasoningItem,
  ResponseResource,
  ResponsesRequest,
  ResponsesStreamEvent,
  ResponsesUsage,
  UnsequencedEvent,
} from '../../../contract/responses.ts';

type ItemStatus = OutputItem['status'];

/** An item being written, under the key its source knows it by (a chat slot, an upstream item id). */
type Building =
  | { kind: 'message'; index: number; item: OutputMessage; part?: { kind: 'output_text' | 'refusal'; index: number; text: string } }
  | { kind: 'function_call'; index: number; item: FunctionCallItem }
  | { kind: 'custom_tool_call'; index: number; item: CustomToolCallItem }
  | { kind: 'reasoning'; index: number; item: ReasoningItem };

export interface Outcome {
  status: 'completed' | 'incomplete';
  /** Why an incomplete response stopped: `max_output_tokens` or `content_filter`. */
  reason?: string;
  usage: ResponsesUsage;
}

const copy = <T>(value: T): T => structuredClone(value);

/**
 * Writes one response as Open Responses events, whatever the upstream spoke: the response and
 * item ids are ours (`resp_`, `msg_`, `fc_`, `ctc_`, `rs_`), `sequence_number` increases from 0,
 * and an item carries the same id in its added, delta, done and terminal events. Every event
 * carries a copy of what it shows, so later deltas never change an event already handed out.
 * Items are closed when the response finishes, in output order.
 */
export class ResponseBuilder {
  private sequence = 0;
  private started = false;
  private readonly response: ResponseResource;
  private readonly building = new Map<string, Building>();
  /** An item event went out: retrying the upstream call now would show the client two answers. */
  forwarded = false;

  constructor(request: ResponsesRequest, modelId: string) {
    this.response = skeleton(request, modelId);
  }

  get id(): string {
    return this.response.id;
  }

  /** `response.created` and `response.in_progress`, once: the model accepted the request. */
  start(): ResponsesStreamEvent[] {
    if (this.started) return [];
    this.started = true;
    return [this.stamp({ type: 'response.created', response: copy(this.response) }), this.stamp({ type: 'response.in_progress', response: copy(this.response) })];
  }

  /** Whether the item under `key` is being written. */
  has(key: string): boolean {
    return this.building.has(key);
  }

  /** Appends answer text to the message under `key` (opening it, or a new text part, as needed). */
  text(key: string, delta: string): ResponsesStreamEvent[] {
    return delta === '' ? [] : this.contentDelta(key, 'output_text', delta);
  }

  /** Appends refusal text to the message under `key`. */
  refusal(key: string, delta: string): ResponsesStreamEvent[] {
    return delta === '' ? [] : this.contentDelta(key, 'refusal', delta);
  }

  /** Opens a reasoning item (empty summary: its text is never shown) unless it is open. */
  reasoning(key: string): ResponsesStreamEvent[] {
    if (this.building.has(key)) return [];
    const item: ReasoningItem = { type: 'reasoning', id: newId('reasoning'), summary: [], status: 'in_progress' };
    return this.open(key, { kind: 'reasoning', index: this.response.output.length, item });
  }

  /** Opens a tool call; its arguments (or custom input) follow through callDelta. */
  call(key: string, call: { kind: 'function_call' | 'custom_tool_call'; callId: string; name: string }): ResponsesStreamEvent[] {
    const index = this.response.output.length;
    if (call.kind === 'function_call') {
      const item: FunctionCallItem = { type: 'function_call', id: newId('functionCall'), call_id: call.callId, name: call.name, arguments: '', status: 'in_progress' };
      return this.open(key, { kind: 'function_call', index, item });
    }
    const item: CustomToolCallItem = { type: 'custom_tool_call', id: newId('customToolCall'), call_id: call.callId, name: call.name, input: '', status: 'in_progress' };
    return this.open(key, { kind: 'custom_tool_call', index, item });
  }

  /** A piece of a call's arguments (function) or input (custom tool). */
  callDelta(key: string, delta: string): ResponsesStreamEvent[] {
    const building = this.building.get(key);
    if (!building || delta === '') return [];
    const ref = { item_id: building.item.id, output_index: building.index };
    if (building.kind === 'function_call') {
      building.item.arguments += delta;
      return [this.stamp({ type: 'response.function_call_arguments.delta', ...ref, delta })];
    }
    if (building.kind === 'custom_tool_call') {
      building.item.input += delta;
      return [this.stamp({ type: 'response.custom_tool_call_input.delta', ...ref, delta })];
    }
    return [];
  }

  /** What the item under `key` holds so far: its text, arguments or input. */
  written(key: string): string {
    const building = this.building.get(key);
    if (!building) return '';
    switch (building.kind) {
      case 'message':
        return building.item.content.map((part) => (part.type === 'output_text' ? part.text : part.refusal)).join('') + (building.part?.text ?? '');
      case 'function_call':
        return building.item.arguments;
      case 'custom_tool_call':
        return building.item.input;
      case 'reasoning':
        return '';
    }
  }

  /** Closes the item under `key`: its done events, with this status. */
  close(key: string, status: ItemStatus = 'completed'): ResponsesStreamEvent[] {
    const building = this.building.get(key);
    if (!building) return [];
    this.building.delete(key);
    const events: ResponsesStreamEvent[] = [];
    const ref = { item_id: building.item.id, output_index: building.index };
    if (building.kind === 'message') {
      events.push(...this.closePart(building));
    } else if (building.kind === 'function_call') {
      events.push(this.stamp({ type: 'response.function_call_arguments.done', ...ref, arguments: building.item.arguments }));
    } else if (building.kind === 'custom_tool_call') {
      events.push(this.stamp({ type: 'response.custom_tool_call_input.done', ...ref, input: building.item.input }));
    }
    building.item.status = status;
    events.push(this.stamp({ type: 'response.output_item.done', output_index: building.index, item: copy(building.item) }));
    return events;
  }

  /** Closes every open item (in output order) and ends with `response.completed` or `.incomplete`. */
  finish(outcome: Outcome): ResponsesStreamEvent[] {
    const events = this.start();
    const open = [...this.building.entries()].sort((a, b) => a[1].index - b[1].index);
    const itemStatus: ItemStatus = outcome.status === 'completed' ? 'completed' : 'incomplete';
    for (const [key] of open) events.push(...this.close(key, itemStatus));
    const response = this.response;
    response.status = outcome.status;
    response.usage = outcome.usage;
    if (outcome.status === 'completed') response.completed_at = Math.floor(Date.now() / 1000);
    else response.incomplete_details = { reason: outcome.reason ?? 'max_output_tokens' };
    events.push(this.stamp({ type: outcome.status === 'completed' ? 'response.completed' : 'response.incomplete', response: copy(response) }));
    return events;
  }

  private open(key: string, building: Building): ResponsesStreamEvent[] {
    this.building.set(key, building);
    this.response.output.push(building.item);
    this.forwarded = true;
    return [...this.start(), this.stamp({ type: 'response.output_item.added', output_index: building.index, item: copy(building.item) })];
  }

  private contentDelta(key: string, kind: 'output_text' | 'refusal', delta: string): ResponsesStreamEvent[] {
    const events: ResponsesStreamEvent[] = [];
    let building = this.building.get(key);
    if (!building) {
      const item: OutputMessage = { type: 'message', id: newId('responseMessage'), status: 'in_progress', role: 'assistant', content: [] };
      events.push(...this.open(key, { kind: 'message', index: this.response.output.length, item }));
      building = this.building.get(key)!;
    }
    if (building.kind !== 'message') return events;
    if (building.part && building.part.kind !== kind) events.push(...this.closePart(building));
    const ref = { item_id: building.item.id, output_index: building.index };
    if (!building.part) {
      building.part = { kind, index: building.item.content.length, text: '' };
      events.push(this.stamp({ type: 'response.content_part.added', ...ref, content_index: building.part.index, part: partOf(kind, '') }));
    }
    building.part.text += delta;
    const content_index = building.part.index;
    events.push(
      this.stamp(kind === 'output_text' ? { type: 'response.output_text.delta', ...ref, content_index, delta, logprobs: [] } : { type: 'response.refusal.delta', ...ref, content_index, delta }),
    );
    return events;
  }

  private closePart(building: Extract<Building, { kind: 'message' }>): ResponsesStreamEvent[] {
    const part = building.part;
    if (!part) return [];
    building.part = undefined;
    const ref = { item_id: building.item.id, output_index: building.index, content_index: part.index };
    const done = partOf(part.kind, part.text);
    building.item.content.push(done);
    return [
      this.stamp(part.kind === 'output_text' ? { type: 'response.output_text.done', ...ref, text: part.text, logprobs: [] } : { type: 'response.refusal.done', ...ref, refusal: part.text }),
      this.stamp({ type: 'response.content_part.done', ...ref, part: copy(done) }),
    ];
  }

  private stamp(event: UnsequencedEvent): ResponsesStreamEvent {
    return { ...event, sequence_number: this.sequence++ } as ResponsesStreamEvent;
  }
}

function partOf(kind: 'output_text' | 'refusal', text: string): OutputMessage['content'][number] {
  // No logprobs in the part: a replayed output item must be accepted as input as it was returned.
  return kind === 'output_text' ? { type: 'output_text', text, annotations: [] } : { type: 'refusal', refusal: text };
}

/** The response object before any output: every field Open Responses requires, echoing the request. */
function skeleton(request: ResponsesRequest, modelId: string): ResponseResource {
  return {
    id: newId('response'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    completed_at: null,
    status: 'in_progress',
    incomplete_details: null,
    model: modelId,
    previous_response_id: null,
    instructions: request.instructions ?? null,
    output: [],
    error: null,
    tools: (request.tools ?? []).map((tool) =>
      tool.type === 'function'
        ? { type: 'function', name: tool.name, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict ?? null }
        : { type: 'custom', name: tool.name, description: tool.description ?? null, format: tool.format ?? null },
    ),
    tool_choice: toolChoiceOf(request.tool_choice),
    truncation: request.truncation ?? 'disabled',
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    text: textOf(request.text),
    top_p: request.top_p ?? 1,
    presence_penalty: request.presence_penalty ?? 0,
    frequency_penalty: request.frequency_penalty ?? 0,
    top_logprobs: request.top_logprobs ?? 0,
    temperature: request.temperature ?? 1,
    // Summaries are never produced, so none is reported as used.
    reasoning: request.reasoning ? { effort: request.reasoning.effort ?? null, summary: null } : null,
    usage: null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: request.max_tool_calls ?? null,
    store: false,
    background: false,
    service_tier: 'default',
    metadata: { ...(request.metadata ?? {}) },
    safety_identifier: request.safety_identifier ?? null,
    prompt_cache_key: request.prompt_cache_key ?? null,
  };
}

function toolChoiceOf(choice: ResponsesRequest['tool_choice']): ResponseResource['tool_choice'] {
  if (choice === undefined || choice === null) return 'auto';
  if (typeof choice === 'string') return choice;
  if (choice.type === 'allowed_tools') {
    return { type: 'allowed_tools', tools: choice.tools.map((tool) => ({ type: tool.type, name: tool.name })), mode: choice.mode ?? 'auto' };
  }
  return { type: choice.type, name: choice.name };
}

function textOf(text: ResponsesRequest['text']): ResponseResource['text'] {
  const format = text?.format;
  const out: ResponseResource['text'] = {
    format:
      !format || format.type === 'text'
        ? { type: 'text' }
        : format.type === 'json_object'
          ? { type: 'json_object' }
          : { type: 'json_schema', name: format.name, description: format.description ?? null, schema: null, strict: format.strict ?? false },
  };
  if (text?.verbosity) out.verbosity = text.verbosity;
  return out;
}
