import type { CatalogEntry } from '../../../config/schema.ts';
import { ApiError } from '../../../contract/errors.ts';
import type { ResponsesRequest } from '../../../contract/responses.ts';
import { supportedSampling } from '../budget.ts';
import type { OpenAiCompatibleOptions } from '../options.ts';

/**
 * Responses → Chat Completions, for servers that speak only the latter (vLLM, llama.cpp,
 * Ollama, SGLang…). The translation:
 *
 * | Responses                                    | Chat Completions                                    |
 * |----------------------------------------------|-----------------------------------------------------|
 * | `instructions`                               | a first `system` message                            |
 * | `input` (a string)                           | one `user` message                                  |
 * | message `user` / `system` / `developer`      | `user` / `system` / `system` message                |
 * | message `assistant` (+ the calls after it)   | one `assistant` message with `tool_calls`           |
 * | `input_text`, `output_text`, `refusal` parts | text (joined by newlines when there is no image)    |
 * | `input_image` (checked, downscaled)          | `image_url` part with a data: URL (user messages)   |
 * | `function_call`                              | `tool_calls[]` entry `{id: call_id, function}`      |
 * | `custom_tool_call`                           | `tool_calls[]` entry, arguments `{"input": …}`      |
 * | `*_output` (paired by `call_id`)             | `tool` message right after its call's message       |
 * | `reasoning` (by id)                          | dropped: stateless, no reasoning text is kept       |
 * | `function` tool                              | `function` tool                                     |
 * | `custom` tool                                | `function` tool taking `{input: string}`            |
 * | `tool_choice` mode / named / `allowed_tools` | same mode / `{type:function}` / only those tools    |
 * | `parallel_tool_calls`                        | `parallel_tool_calls`                               |
 * | `text.format` json_schema / json_object      | `response_format`                                   |
 * | `reasoning.effort` (reasoning models)        | `reasoning_effort`                                  |
 * | `max_output_tokens`                          | `max_tokens` (set by the runner)                    |
 */

export type ChatPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } };
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export type ChatTurn =
  | { role: 'system' | 'user'; content: string | ChatPart[] }
  | { role: 'assistant'; content: string; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatRequest {
  /** The body without model, max_tokens and stream fields (the runner adds them). */
  body: Record<string, unknown>;
  messages: ChatTurn[];
  /** Names of the declared custom tools: their calls come back as `custom_tool_call` items. */
  customTools: Set<string>;
  /** Images sent, for local token counting. */
  images: number;
}


type Part = { type: string; text?: string; refusal?: string; image_url?: string; detail?: string | null };
type InputItem = Exclude<ResponsesRequest['input'], string>[number];
type MessageItem = Extract<InputItem, { type: 'message' }>;
type CallItem = Extract<InputItem, { type: 'function_call' | 'custom_tool_call' }>;
type AssistantTurn = Extract<ChatTurn, { role: 'assistant' }>;
type ToolParam = NonNullable<ResponsesRequest['tools']>[number];
type TextFormat = NonNullable<ResponsesRequest['text']>['format'];

export function toChatRequest(
  request: ResponsesRequest,
  entry: CatalogEntry,
  options: OpenAiCompatibleOptions,
  imageUrls: ReadonlyMap<object, string>,
): ChatRequest {
  const messages: ChatTurn[] = [];
  let images = 0;
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else images = appendHistory(messages, request.input, imageUrls);

  // The body's fields in this order: messages, tools, tool_choice, parallel_tool_calls, response_format, sampling, reasoning_effort.
  const body: Record<string, unknown> = { messages };
  const customTools = addTools(body, request);
  const responseFormat = responseFormatOf(request.text?.format);
  if (responseFormat) body.response_format = responseFormat;
  Object.assign(body, supportedSampling(entry, request));
  if (options.reasoning && request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  return { body, messages, customTools, images };
}

/**
 * The input items as turns, appended to `messages`: a message is one turn; calls gather into the
 * assistant turn before them (or a new, empty one), and each call's output follows that turn as a
 * `tool` message (outputs are found by `call_id`, wherever they stand). Returns the images sent.
 */
function appendHistory(messages: ChatTurn[], input: InputItem[], imageUrls: ReadonlyMap<object, string>): number {
  const outputs = new Map<string, { output: string | Part[]; param: string }>();
  input.forEach((item, i) => {
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      outputs.set(item.call_id, { output: item.output as string | Part[], param: `input[${i}].output` });
    }
  });
  let images = 0;
  let assistant: AssistantTurn | undefined;
  /** Ends the open assistant turn: it, then one `tool` message per call (empty when no output came). */
  const flush = () => {
    if (!assistant) return;
    messages.push(assistant);
    for (const call of assistant.tool_calls ?? []) {
      const answer = outputs.get(call.id);
      const content = answer === undefined ? '' : typeof answer.output === 'string' ? answer.output : textOf(answer.output, answer.param);
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
    assistant = undefined;
  };
  input.forEach((item, i) => {
    if (item.type === 'message') {
      flush();
      const turn = messageTurn(item, `input[${i}].content`, imageUrls);
      if (turn.role === 'assistant') assistant = turn;
      else {
        messages.push(turn);
        if (typeof turn.content !== 'string') images += turn.content.filter((part) => part.type === 'image_url').length;
      }
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      assistant ??= { role: 'assistant', content: '' };
      (assistant.tool_calls ??= []).push(toolCall(item));
    }
    // Outputs follow their call (flush); reasoning items carry nothing to send.
  });
  flush();
  return images;
}

/** One message as a turn: developer messages are system ones; only user messages keep images (as parts). */
function messageTurn(item: MessageItem, param: string, imageUrls: ReadonlyMap<object, string>): AssistantTurn | Extract<ChatTurn, { role: 'system' | 'user' }> {
  const parts = typeof item.content === 'string' ? undefined : (item.content as Part[]);
  if (item.role === 'assistant') return { role: 'assistant', content: parts ? textOf(parts, param) : (item.content as string) };
  if (item.role !== 'user') return { role: 'system', content: parts ? textOf(parts, param) : (item.content as string) };
  if (!parts) return { role: 'user', content: item.content as string };
  if (!parts.some((part) => part.type === 'input_image')) return { role: 'user', content: textOf(parts, param) };
  return {
    role: 'user',
    content: parts.map((part): ChatPart => {
      if (part.type !== 'input_image') return { type: 'text', text: part.type === 'refusal' ? (part.refusal ?? '') : (part.text ?? '') };
      return { type: 'image_url', image_url: { url: imageUrls.get(part)!, ...(part.detail ? { detail: part.detail } : {}) } };
    }),
  };
}

/** Text of content parts (images refused where the role takes none). */
function textOf(parts: Part[], param: string): string {
  return parts
    .map((part, j) => {
      if (part.type === 'input_image') {
        throw new ApiError('invalid_request', {
          param: `${param}[${j}]`,
          message: 'Only user messages may carry images when the model is served through Chat Completions.',
        });
      }
      return part.type === 'refusal' ? (part.refusal ?? '') : (part.text ?? '');
    })
    .join('\n');
}

/** A call as a `tool_calls` entry; a custom tool's input travels as the arguments `{"input": …}`. */
function toolCall(item: CallItem): ChatToolCall {
  const args = item.type === 'function_call' ? item.arguments : JSON.stringify({ input: item.input });
  return { id: item.call_id, type: 'function', function: { name: item.name, arguments: args } };
}

/** Writes the tools and tool choice into the body; returns the names of the custom tools. */
function addTools(body: Record<string, unknown>, request: ResponsesRequest): Set<string> {
  const customTools = new Set<string>();
  const { declared, choice } = offeredTools(request);
  if (declared.length > 0) {
    body.tools = declared.map((tool) => {
      if (tool.type === 'function') return functionTool(tool);
      customTools.add(tool.name);
      return { type: 'function', function: { name: tool.name, description: customDescription(tool.description, tool.format), parameters: CUSTOM_PARAMETERS } };
    });
    if (choice !== undefined) body.tool_choice = choice;
    if (typeof request.parallel_tool_calls === 'boolean') body.parallel_tool_calls = request.parallel_tool_calls;
  } else if (choice === 'none') {
    body.tool_choice = 'none';
  }
  return customTools;
}

/** The tools the model may call (`allowed_tools` narrows them) and the Chat Completions tool_choice. */
function offeredTools(request: ResponsesRequest): { declared: ToolParam[]; choice: unknown } {
  let declared = request.tools ?? [];
  let choice: unknown;
  const requested = request.tool_choice;
  if (requested && typeof requested === 'object' && requested.type === 'allowed_tools') {
    const allowed = new Set(requested.tools.map((tool) => `${tool.type}:${tool.name}`));
    declared = declared.filter((tool) => allowed.has(`${tool.type}:${tool.name}`));
    choice = requested.mode ?? 'auto';
  } else if (requested && typeof requested === 'object') {
    choice = { type: 'function', function: { name: requested.name } };
  } else if (typeof requested === 'string') {
    choice = requested;
  }
  return { declared, choice };
}

function functionTool(tool: Extract<ToolParam, { type: 'function' }>): Record<string, unknown> {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.strict === true ? { strict: true } : {}),
    },
  };
}

/** `text.format` as a `response_format`, or undefined for plain text. */
function responseFormatOf(format: TextFormat | undefined): Record<string, unknown> | undefined {
  if (format?.type === 'json_object') return { type: 'json_object' };
  if (format?.type === 'json_schema') {
    return {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(format.description ? { description: format.description } : {}), ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}) },
    };
  }
  return undefined;
}

const CUSTOM_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The whole input of the tool, as free-form text.' } },
  required: ['input'],
  additionalProperties: false,
};

function customDescription(description: string | null | undefined, format: Record<string, unknown> | null | undefined): string {
  const parts = [description ?? '', 'Call it with the whole input as the string argument `input`.'];
  if (format && format.type === 'grammar' && typeof format.definition === 'string') {
    parts.push(`The input must match this ${typeof format.syntax === 'string' ? format.syntax : ''} grammar:\n${format.definition}`);
  }
  return parts.filter(Boolean).join('\n');
}
