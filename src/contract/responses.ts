import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ModelField } from './common.ts';
import { Nullable, StringEnum } from './schema-helpers.ts';

/**
 * POST /v1/responses: the stateless subset of Open Responses (spec/openresponses-openapi.json,
 * version 2026-04-24) that the service accepts, plus `custom` tools.
 */

const TEXT_MAX = 10_485_760;
const CallId = Type.String({ minLength: 1, maxLength: 64 });
const ToolName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' });
const ItemStatus = StringEnum(['in_progress', 'completed', 'incomplete'] as const);
const OptionalId = Type.Optional(Nullable(Type.String()));

function closed<T extends Record<string, TSchema>>(properties: T, title?: string) {
  return Type.Object(properties, { additionalProperties: false, ...(title ? { title } : {}) });
}

/** A discriminated union on `type`, validated branch-first so errors name the right field. */
function tagged<T extends TSchema[]>(branches: [...T], expected: string) {
  return Type.Unsafe<Static<T[number]>>({
    type: 'object',
    oneOf: branches,
    discriminator: { propertyName: 'type' },
    'x-inkwell-expected': expected,
  });
}

const InputText = closed({ type: Type.Literal('input_text'), text: Type.String({ maxLength: TEXT_MAX }) });
const InputImage = closed({
  type: Type.Literal('input_image'),
  image_url: Type.String({ minLength: 1, maxLength: 20_971_520, description: 'http(s) URL or data: URL.' }),
  detail: Type.Optional(Nullable(StringEnum(['low', 'high', 'auto'] as const))),
});
const OutputText = closed({
  type: Type.Literal('output_text'),
  text: Type.String({ maxLength: TEXT_MAX }),
  annotations: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
});
const Refusal = closed({ type: Type.Literal('refusal'), refusal: Type.String({ maxLength: TEXT_MAX }) });
const SummaryText = closed({ type: Type.Literal('summary_text'), text: Type.String({ maxLength: TEXT_MAX }) });

const ContentPart = tagged(
  [InputText, InputImage, OutputText, Refusal],
  "a content part of type 'input_text', 'input_image', 'output_text' or 'refusal'",
);

const MessageItemParam = closed({
  type: Type.Literal('message'),
  id: OptionalId,
  role: StringEnum(['user', 'system', 'developer', 'assistant'] as const),
  content: Type.Union([Type.String({ maxLength: TEXT_MAX }), Type.Array(ContentPart)], {
    'x-inkwell-expected': 'a string or an array of content parts',
  }),
  status: Type.Optional(Nullable(Type.String())),
  phase: Type.Optional(StringEnum(['commentary', 'final_answer'] as const)),
});

const FunctionCallParam = closed({
  type: Type.Literal('function_call'),
  id: OptionalId,
  call_id: CallId,
  name: ToolName,
  arguments: Type.String(),
  status: Type.Optional(Nullable(ItemStatus)),
});
const ToolOutput = Type.Union([Type.String({ maxLength: TEXT_MAX }), Type.Array(ContentPart)], {
  'x-inkwell-expected': 'a string or an array of content parts',
});
const FunctionCallOutputParam = closed({
  type: Type.Literal('function_call_output'),
  id: OptionalId,
  call_id: CallId,
  output: ToolOutput,
  status: Type.Optional(Nullable(ItemStatus)),
});
const CustomToolCallParam = closed({
  type: Type.Literal('custom_tool_call'),
  id: OptionalId,
  call_id: CallId,
  name: ToolName,
  input: Type.String(),
  status: Type.Optional(Nullable(ItemStatus)),
});
const CustomToolCallOutputParam = closed({
  type: Type.Literal('custom_tool_call_output'),
  id: OptionalId,
  call_id: CallId,
  output: ToolOutput,
});
/** Reasoning is replayed by reference only: private text and encrypted content are refused. */
const ReasoningParam = closed({
  type: Type.Literal('reasoning'),
  id: Type.String({ minLength: 1 }),
  summary: Type.Optional(Type.Array(SummaryText)),
});

/** A message may arrive without `type`; normalizeResponsesBody adds it before validation. */
export const InputItem = tagged(
  [
    MessageItemParam,
    FunctionCallParam,
    FunctionCallOutputParam,
    CustomToolCallParam,
    CustomToolCallOutputParam,
    ReasoningParam,
  ],
  "an item of type 'message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output' or 'reasoning'",
);

const FunctionToolParam = closed({
  type: Type.Literal('function'),
  name: ToolName,
  description: Type.Optional(Nullable(Type.String())),
  parameters: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
  strict: Type.Optional(Nullable(Type.Boolean())),
});
const CustomToolParam = closed({
  type: Type.Literal('custom'),
  name: ToolName,
  description: Type.Optional(Nullable(Type.String())),
  format: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
});
export const ToolParam = tagged([FunctionToolParam, CustomToolParam], "a tool of type 'function' or 'custom'");

const NamedTool = tagged(
  [
    closed({ type: Type.Literal('function'), name: Type.String({ minLength: 1 }) }),
    closed({ type: Type.Literal('custom'), name: Type.String({ minLength: 1 }) }),
  ],
  "a tool choice of type 'function' or 'custom' with a name",
);
const ToolChoiceMode = StringEnum(['none', 'auto', 'required'] as const);
export const ToolChoiceParam = Type.Union(
  [
    ToolChoiceMode,
    NamedTool,
    closed({
      type: Type.Literal('allowed_tools'),
      tools: Type.Array(NamedTool, { minItems: 1, maxItems: 128 }),
      mode: Type.Optional(ToolChoiceMode),
    }),
  ],
  { 'x-inkwell-expected': "'none', 'auto', 'required', or an object naming a tool" },
);

const TextFormatParam = Type.Union(
  [
    closed({ type: Type.Literal('text') }),
    closed({ type: Type.Literal('json_object') }),
    closed({
      type: Type.Literal('json_schema'),
      name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9_-]+$' }),
      description: Type.Optional(Type.String()),
      schema: Type.Object({}, { additionalProperties: true }),
      strict: Type.Optional(Nullable(Type.Boolean())),
    }),
  ],
  { 'x-inkwell-expected': "a format of type 'text', 'json_object' or 'json_schema'" },
);

export const REQUEST_UNSUPPORTED_FIELDS: Record<string, string> = {
  background: "'background' is not supported: this endpoint is stateless and answers in the request.",
  include: "'include' is not supported: this endpoint returns no optional or encrypted content.",
  websocket: "'websocket' is not supported: use HTTP JSON or Server-Sent Events.",
  conversation: "'conversation' is not supported: replay the whole history in 'input'.",
};

export const ResponsesRequest = Type.Object(
  {
    model: ModelField,
    input: Type.Union([Type.String({ maxLength: TEXT_MAX }), Type.Array(InputItem)], {
      'x-inkwell-expected': 'a string or an array of input items',
    }),
    instructions: Type.Optional(Nullable(Type.String({ maxLength: TEXT_MAX }))),
    tools: Type.Optional(Nullable(Type.Array(ToolParam, { maxItems: 128 }))),
    tool_choice: Type.Optional(Nullable(ToolChoiceParam)),
    parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
    stream: Type.Optional(Type.Boolean({ default: false })),
    stream_options: Type.Optional(Nullable(closed({ include_obfuscation: Type.Optional(Type.Boolean()) }))),
    store: Type.Optional(
      Type.Literal(false, { 'x-inkwell-expected': 'false (stored responses are not supported)' }),
    ),
    previous_response_id: Type.Optional(
      Type.Null({ 'x-inkwell-expected': 'null (replay the whole history in input instead)' }),
    ),
    temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
    presence_penalty: Type.Optional(Nullable(Type.Number({ minimum: -2, maximum: 2 }))),
    frequency_penalty: Type.Optional(Nullable(Type.Number({ minimum: -2, maximum: 2 }))),
    top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
    max_output_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 16 }))),
    max_tool_calls: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    reasoning: Type.Optional(
      Nullable(
        closed({
          effort: Type.Optional(Nullable(StringEnum(['none', 'low', 'medium', 'high', 'xhigh'] as const))),
          summary: Type.Optional(Nullable(StringEnum(['concise', 'detailed', 'auto'] as const))),
        }),
      ),
    ),
    text: Type.Optional(
      Nullable(
        closed({
          format: Type.Optional(Nullable(TextFormatParam)),
          verbosity: Type.Optional(StringEnum(['low', 'medium', 'high'] as const)),
        }),
      ),
    ),
    truncation: Type.Optional(StringEnum(['auto', 'disabled'] as const)),
    service_tier: Type.Optional(StringEnum(['auto', 'default', 'flex', 'priority'] as const)),
    metadata: Type.Optional(
      Nullable(
        Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), {
          maxProperties: 16,
        }),
      ),
    ),
    safety_identifier: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    prompt_cache_key: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  },
  {
    additionalProperties: false,
    title: 'ResponsesRequest',
    description: 'Stateless: store must be false or omitted, previous_response_id null or omitted; background, include and websocket are refused.',
    'x-inkwell-field-messages': REQUEST_UNSUPPORTED_FIELDS,
  },
);
export type ResponsesRequest = Static<typeof ResponsesRequest>;

/**
 * Clients of the `openai` SDK send messages as `{role, content}` without `type`; Open Responses
 * names that shape a message, so it is given its `type` before validation.
 */
export function normalizeResponsesBody(body: unknown): void {
  if (typeof body !== 'object' || body === null || !('input' in body)) return;
  const input = (body as { input: unknown }).input;
  if (!Array.isArray(input)) return;
  for (const item of input) {
    if (typeof item === 'object' && item !== null && !('type' in item) && 'role' in item) {
      (item as Record<string, unknown>).type = 'message';
    }
  }
}

/* The response object and its items. */

const OutputTextPart = Type.Object(
  {
    type: Type.Literal('output_text'),
    text: Type.String(),
    annotations: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false, title: 'OutputTextPart' },
);

export const OutputMessage = Type.Object(
  {
    type: Type.Literal('message'),
    id: Type.String(),
    status: ItemStatus,
    role: Type.Literal('assistant'),
    content: Type.Array(OutputTextPart),
  },
  { additionalProperties: false, title: 'OutputMessage' },
);
export const FunctionCallItem = Type.Object(
  {
    type: Type.Literal('function_call'),
    id: Type.String(),
    call_id: Type.String(),
    name: Type.String(),
    arguments: Type.String({ description: 'JSON-encoded arguments.' }),
    status: ItemStatus,
  },
  { additionalProperties: false, title: 'FunctionCallItem' },
);
export const CustomToolCallItem = Type.Object(
  {
    type: Type.Literal('custom_tool_call'),
    id: Type.String(),
    call_id: Type.String(),
    name: Type.String(),
    input: Type.String(),
    status: ItemStatus,
  },
  { additionalProperties: false, title: 'CustomToolCallItem' },
);
export const ReasoningItem = Type.Object(
  {
    type: Type.Literal('reasoning'),
    id: Type.String(),
    summary: Type.Array(Type.Object({ type: Type.Literal('summary_text'), text: Type.String() })),
  },
  { additionalProperties: false, title: 'ReasoningItem' },
);
export const OutputItem = Type.Union([OutputMessage, FunctionCallItem, CustomToolCallItem, ReasoningItem]);
export type OutputItem = Static<typeof OutputItem>;

export const ResponsesUsage = Type.Object(
  {
    input_tokens: Type.Integer({ minimum: 0 }),
    output_tokens: Type.Integer({ minimum: 0 }),
    total_tokens: Type.Integer({ minimum: 0 }),
    input_tokens_details: Type.Object({ cached_tokens: Type.Integer({ minimum: 0 }) }),
    output_tokens_details: Type.Object({ reasoning_tokens: Type.Integer({ minimum: 0 }) }),
  },
  { additionalProperties: false, title: 'ResponsesUsage' },
);

const ToolOut = Type.Union([
  Type.Object({
    type: Type.Literal('function'),
    name: Type.String(),
    description: Nullable(Type.String()),
    parameters: Nullable(Type.Object({}, { additionalProperties: true })),
    strict: Nullable(Type.Boolean()),
  }),
  Type.Object({
    type: Type.Literal('custom'),
    name: Type.String(),
    description: Nullable(Type.String()),
    format: Nullable(Type.Object({}, { additionalProperties: true })),
  }),
]);

export const ResponseResource = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('response'),
    created_at: Type.Integer(),
    completed_at: Nullable(Type.Integer()),
    status: StringEnum(['in_progress', 'completed', 'failed', 'incomplete'] as const),
    incomplete_details: Nullable(Type.Object({ reason: Type.String() })),
    model: Type.String(),
    previous_response_id: Type.Null(),
    instructions: Nullable(Type.String()),
    output: Type.Array(OutputItem),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
    tools: Type.Array(ToolOut),
    tool_choice: Type.Union([ToolChoiceMode, Type.Object({}, { additionalProperties: true })]),
    truncation: StringEnum(['auto', 'disabled'] as const),
    parallel_tool_calls: Type.Boolean(),
    text: Type.Object({ format: Type.Object({ type: Type.String() }, { additionalProperties: true }) }, {
      additionalProperties: true,
    }),
    top_p: Type.Number(),
    presence_penalty: Type.Number(),
    frequency_penalty: Type.Number(),
    top_logprobs: Type.Integer(),
    temperature: Type.Number(),
    reasoning: Nullable(
      Type.Object({ effort: Nullable(Type.String()), summary: Nullable(Type.String()) }),
    ),
    usage: Nullable(ResponsesUsage),
    max_output_tokens: Nullable(Type.Integer()),
    max_tool_calls: Nullable(Type.Integer()),
    store: Type.Literal(false),
    background: Type.Literal(false),
    service_tier: Type.String(),
    metadata: Type.Record(Type.String(), Type.String()),
    safety_identifier: Nullable(Type.String()),
    prompt_cache_key: Nullable(Type.String()),
  },
  { additionalProperties: false, title: 'ResponseResource' },
);
export type ResponseResource = Static<typeof ResponseResource>;

/* Streaming events: every one carries `sequence_number`. */

const Seq = { sequence_number: Type.Integer({ minimum: 0 }) };

function event<T extends string>(type: T, fields: Record<string, TSchema>) {
  return Type.Object({ type: Type.Literal(type), ...Seq, ...fields }, { additionalProperties: false });
}

const lifecycle = (type: string) => event(type, { response: ResponseResource });
const itemRef = { item_id: Type.String(), output_index: Type.Integer({ minimum: 0 }) };

export const ResponsesStreamEvent = Type.Union([
  lifecycle('response.created'),
  lifecycle('response.in_progress'),
  lifecycle('response.completed'),
  lifecycle('response.failed'),
  lifecycle('response.incomplete'),
  event('response.output_item.added', { output_index: Type.Integer({ minimum: 0 }), item: OutputItem }),
  event('response.output_item.done', { output_index: Type.Integer({ minimum: 0 }), item: OutputItem }),
  event('response.content_part.added', { ...itemRef, content_index: Type.Integer({ minimum: 0 }), part: OutputTextPart }),
  event('response.content_part.done', { ...itemRef, content_index: Type.Integer({ minimum: 0 }), part: OutputTextPart }),
  event('response.output_text.delta', { ...itemRef, content_index: Type.Integer({ minimum: 0 }), delta: Type.String() }),
  event('response.output_text.done', { ...itemRef, content_index: Type.Integer({ minimum: 0 }), text: Type.String() }),
  event('response.function_call_arguments.delta', { ...itemRef, delta: Type.String() }),
  event('response.function_call_arguments.done', { ...itemRef, arguments: Type.String() }),
  event('response.custom_tool_call_input.delta', { ...itemRef, delta: Type.String() }),
  event('response.custom_tool_call_input.done', { ...itemRef, input: Type.String() }),
  event('error', {
    error: Type.Object(
      {
        type: Type.String(),
        code: Nullable(Type.String()),
        message: Type.String(),
        param: Nullable(Type.String()),
        status_code: Type.Integer({ minimum: 400, maximum: 599 }),
      },
      { additionalProperties: true },
    ),
  }),
], { title: 'ResponsesStreamEvent' });
