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

export function toChatRequest(
  request: ResponsesRequest,
  entry: CatalogEntry,
  options: OpenAiCompatibleOptions,
  imageUrls: ReadonlyMap<object, string>,
): ChatRequest {
  const messages: ChatTurn[] = [];
  let images = 0;
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });

  /** Text of content parts (images refused where the role takes none). */
  const textOf = (parts: Part[], param: string): string =>
    parts
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

  if (typeof request.input === 'string') {
    messages.push({ role: 'user', content: request.input });
  } else {
    const outputs = new Map<string, { output: string | Part[]; param: string }>();
    request.input.forEach((item, i) => {
      if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
        outputs.set(item.call_id, { output: item.output as string | Part[], param: `input[${i}].output` });
      }
    });
    let assistant: Extract<ChatTurn, { role: 'assistant' }> | undefined;
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
    request.input.forEach((item, i) => {
      switch (item.type) {
        case 'message': {
          flush();
          const param = `input[${i}].content`;
          const parts = typeof item.content === 'string' ? undefined : (item.content as Part[]);
          if (item.role === 'assistant') {
            assistant = { role: 'assistant', content: parts ? textOf(parts, param) : (item.content as string) };
          } else if (item.role === 'user') {
            if (!parts) messages.push({ role: 'user', content: item.content as string });
            else if (!parts.some((part) => part.type === 'input_image')) messages.push({ role: 'user', content: textOf(parts, param) });
            else {
              messages.push({
                role: 'user',
                content: parts.map((part): ChatPart => {
                  if (part.type !== 'input_image') return { type: 'text', text: part.type === 'refusal' ? (part.refusal ?? '') : (part.text ?? '') };
                  images++;
                  return { type: 'image_url', image_url: { url: imageUrls.get(part)!, ...(part.detail ? { detail: part.detail } : {}) } };
                }),
              });
            }
          } else {
            messages.push({ role: 'system', content: parts ? textOf(parts, param) : (item.content as string) });
          }
          break;
        }
        case 'function_call':
        case 'custom_tool_call': {
          assistant ??= { role: 'assistant', content: '' };
          const args = item.type === 'function_call' ? item.arguments : JSON.stringify({ input: item.input });
          (assistant.tool_calls ??= []).push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: args } });
          break;
        }
        default:
          // Outputs follow their call (flush); reasoning items carry nothing to send.
          break;
      }
    });
    flush();
  }

  const body: Record<string, unknown> = { messages };
  const customTools = new Set<string>();
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
  if (declared.length > 0) {
    body.tools = declared.map((tool) => {
      if (tool.type === 'function') {
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
      customTools.add(tool.name);
      return { type: 'function', function: { name: tool.name, description: customDescription(tool.description, tool.format), parameters: CUSTOM_PARAMETERS } };
    });
    if (choice !== undefined) body.tool_choice = choice;
    if (typeof request.parallel_tool_calls === 'boolean') body.parallel_tool_calls = request.parallel_tool_calls;
  } else if (choice === 'none') {
    body.tool_choice = 'none';
  }

  const format = request.text?.format;
  if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
  if (format?.type === 'json_schema') {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: format.name, schema: format.schema, ...(format.description ? { description: format.description } : {}), ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}) },
    };
  }
  Object.assign(body, supportedSampling(entry, request));
  if (options.reasoning && request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  return { body, messages, customTools, images };
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
