import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ModelField } from './common.ts';
import { FreeFormObject, Nullable, StringEnum } from './schema-helpers.ts';

// POST /v1/responses: the stateless subset of Open Responses (its OpenAPI document, version
// 2026-04-24) that the service accepts, plus `custom` tools.

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
  annotations: Type.Optional(Type.Array(FreeFormObject('An annotation, kept as given.'))),
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
/**
 * Reasoning is replayed by reference only: private text and encrypted content are refused (and
 * a non-empty summary, by checkResponsesRequest). `status` is accepted, as returned.
 */
const ReasoningParam = closed({
  type: Type.Literal('reasoning'),
  id: Type.String({ minLength: 1 }),
  summary: Type.Optional(Type.Array(SummaryText)),
  status: Type.Optional(Nullable(ItemStatus)),
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
  parameters: Type.Optional(Nullable(FreeFormObject('JSON Schema of the arguments.'))),
  strict: Type.Optional(Nullable(Type.Boolean())),
});
const CustomToolParam = closed({
  type: Type.Literal('custom'),
  name: ToolName,
  description: Type.Optional(Nullable(Type.String())),
  format: Type.Optional(Nullable(FreeFormObject('Format of the input (grammar or text).'))),
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
      schema: FreeFormObject('JSON Schema of the output.'),
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
    // An empty input asks the model nothing: refused here, before it reaches a model server.
    input: Type.Union([Type.String({ minLength: 1, maxLength: TEXT_MAX }), Type.Array(InputItem, { minItems: 1 })], {
      'x-inkwell-expected': 'a non-empty string or a non-empty array of input items',
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

/*
 * The response object, its items and the stream events, as the Open Responses document
 * (2026-04-24) defines them. Inkwell adds only what the SVG API spec names beyond it: `custom`
 * tools, `custom_tool_call` items and the `response.custom_tool_call_input.*` events, and
 * `status_code` (with `request_id`, `retry_after`) in the `error` event.
 */

const Annotation = Type.Object({}, { additionalProperties: true });

const OutputTextPart = Type.Object(
  {
    type: Type.Literal('output_text'),
    text: Type.String(),
    annotations: Type.Array(Annotation),
    logprobs: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { additionalProperties: false, title: 'OutputTextPart' },
);
const RefusalPart = Type.Object(
  { type: Type.Literal('refusal'), refusal: Type.String() },
  { additionalProperties: false, title: 'RefusalPart' },
);
export const OutputContentPart = Type.Union([OutputTextPart, RefusalPart], { title: 'OutputContentPart' });
export type OutputContentPart = Static<typeof OutputContentPart>;

export const OutputMessage = Type.Object(
  {
    type: Type.Literal('message'),
    id: Type.String(),
    status: ItemStatus,
    role: Type.Literal('assistant'),
    content: Type.Array(OutputContentPart),
  },
  { additionalProperties: false, title: 'OutputMessage' },
);
export const FunctionCallItem = Type.Object(
  {
    type: Type.Literal('function_call'),
    id: Type.String({ description: 'The item id (fc_…); distinct from call_id.' }),
    call_id: Type.String({ description: 'Pairs the call with the function_call_output the caller replays.' }),
    name: Type.String(),
    arguments: Type.String({ description: 'JSON-encoded arguments.' }),
    status: ItemStatus,
  },
  { additionalProperties: false, title: 'FunctionCallItem' },
);
export const CustomToolCallItem = Type.Object(
  {
    type: Type.Literal('custom_tool_call'),
    id: Type.String({ description: 'The item id (ctc_…); distinct from call_id.' }),
    call_id: Type.String(),
    name: Type.String(),
    input: Type.String(),
    status: ItemStatus,
  },
  { additionalProperties: false, title: 'CustomToolCallItem' },
);
/** Reasoning happened: the item says so, with an empty summary; its text is never returned. */
export const ReasoningItem = Type.Object(
  {
    type: Type.Literal('reasoning'),
    id: Type.String(),
    summary: Type.Array(Type.Object({ type: Type.Literal('summary_text'), text: Type.String() }, { additionalProperties: false }), { maxItems: 0 }),
    status: ItemStatus,
  },
  { additionalProperties: false, title: 'ReasoningItem' },
);
export const OutputItem = Type.Union([OutputMessage, FunctionCallItem, CustomToolCallItem, ReasoningItem], { title: 'OutputItem' });
export type OutputItem = Static<typeof OutputItem>;
export type OutputMessage = Static<typeof OutputMessage>;
export type FunctionCallItem = Static<typeof FunctionCallItem>;
export type CustomToolCallItem = Static<typeof CustomToolCallItem>;
export type ReasoningItem = Static<typeof ReasoningItem>;

export const ResponsesUsage = Type.Object(
  {
    input_tokens: Type.Integer({ minimum: 0 }),
    output_tokens: Type.Integer({ minimum: 0 }),
    total_tokens: Type.Integer({ minimum: 0 }),
    input_tokens_details: Type.Object({ cached_tokens: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    output_tokens_details: Type.Object({ reasoning_tokens: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  },
  { additionalProperties: false, title: 'ResponsesUsage' },
);
export type ResponsesUsage = Static<typeof ResponsesUsage>;

const ToolOut = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('function'),
        name: Type.String(),
        description: Nullable(Type.String()),
        parameters: Nullable(Type.Object({}, { additionalProperties: true })),
        strict: Nullable(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal('custom'),
        name: Type.String(),
        description: Nullable(Type.String()),
        format: Nullable(Type.Object({}, { additionalProperties: true })),
      },
      { additionalProperties: false },
    ),
  ],
  { title: 'ResponseTool' },
);

const NamedToolOut = Type.Object(
  { type: StringEnum(['function', 'custom'] as const), name: Type.String() },
  { additionalProperties: false },
);
const ToolChoiceOut = Type.Union(
  [
    ToolChoiceMode,
    NamedToolOut,
    Type.Object(
      { type: Type.Literal('allowed_tools'), tools: Type.Array(NamedToolOut), mode: ToolChoiceMode },
      { additionalProperties: false },
    ),
  ],
  { title: 'ResponseToolChoice' },
);

const TextFormatOut = Type.Union([
  Type.Object({ type: Type.Literal('text') }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('json_object') }, { additionalProperties: false }),
  Type.Object(
    {
      type: Type.Literal('json_schema'),
      name: Type.String(),
      description: Nullable(Type.String()),
      schema: Type.Null({ description: 'Open Responses echoes no schema here (the request carried it).' }),
      strict: Type.Boolean(),
    },
    { additionalProperties: false },
  ),
]);

export const ResponseResource = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('response'),
    created_at: Type.Integer(),
    completed_at: Nullable(Type.Integer()),
    status: StringEnum(['in_progress', 'completed', 'failed', 'incomplete'] as const),
    incomplete_details: Nullable(Type.Object({ reason: Type.String() }, { additionalProperties: false })),
    model: Type.String(),
    previous_response_id: Type.Null(),
    instructions: Nullable(Type.String()),
    output: Type.Array(OutputItem),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
    tools: Type.Array(ToolOut),
    tool_choice: ToolChoiceOut,
    truncation: StringEnum(['auto', 'disabled'] as const),
    parallel_tool_calls: Type.Boolean(),
    text: Type.Object(
      { format: TextFormatOut, verbosity: Type.Optional(StringEnum(['low', 'medium', 'high'] as const)) },
      { additionalProperties: false },
    ),
    top_p: Type.Number(),
    presence_penalty: Type.Number(),
    frequency_penalty: Type.Number(),
    top_logprobs: Type.Integer(),
    temperature: Type.Number(),
    reasoning: Nullable(
      Type.Object(
        {
          effort: Nullable(StringEnum(['none', 'low', 'medium', 'high', 'xhigh'] as const)),
          summary: Nullable(StringEnum(['concise', 'detailed', 'auto'] as const)),
        },
        { additionalProperties: false },
      ),
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

/* Streaming events: every one carries `sequence_number`, increasing from 0 within a stream. */

const Seq = { sequence_number: Type.Integer({ minimum: 0 }) };
const Index = Type.Integer({ minimum: 0 });

function event<T extends string, P extends Record<string, TSchema>>(type: T, fields: P) {
  return Type.Object({ type: Type.Literal(type), ...Seq, ...fields }, { additionalProperties: false });
}

const lifecycle = <T extends string>(type: T) => event(type, { response: ResponseResource });
const itemRef = { item_id: Type.String(), output_index: Index };
const Logprobs = Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true })));

/** The `error` object of a failure after the stream began: the envelope's fields, status included. */
export const StreamError = Type.Object(
  {
    type: Type.String({ description: 'The error code again (Open Responses names the field `type`).' }),
    code: Nullable(Type.String()),
    message: Type.String(),
    param: Nullable(Type.String()),
    status_code: Type.Integer({ minimum: 400, maximum: 599, description: 'The HTTP status the request would have had.' }),
    request_id: Type.Optional(Type.String()),
    retry_after: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false, title: 'ResponsesStreamError' },
);

export const ResponsesStreamEvent = Type.Union(
  [
    lifecycle('response.created'),
    lifecycle('response.in_progress'),
    lifecycle('response.completed'),
    lifecycle('response.failed'),
    lifecycle('response.incomplete'),
    event('response.output_item.added', { output_index: Index, item: OutputItem }),
    event('response.output_item.done', { output_index: Index, item: OutputItem }),
    event('response.content_part.added', { ...itemRef, content_index: Index, part: OutputContentPart }),
    event('response.content_part.done', { ...itemRef, content_index: Index, part: OutputContentPart }),
    event('response.output_text.delta', { ...itemRef, content_index: Index, delta: Type.String(), logprobs: Logprobs }),
    event('response.output_text.done', { ...itemRef, content_index: Index, text: Type.String(), logprobs: Logprobs }),
    event('response.refusal.delta', { ...itemRef, content_index: Index, delta: Type.String() }),
    event('response.refusal.done', { ...itemRef, content_index: Index, refusal: Type.String() }),
    event('response.function_call_arguments.delta', { ...itemRef, delta: Type.String() }),
    event('response.function_call_arguments.done', { ...itemRef, arguments: Type.String() }),
    event('response.custom_tool_call_input.delta', { ...itemRef, delta: Type.String() }),
    event('response.custom_tool_call_input.done', { ...itemRef, input: Type.String() }),
    event('error', { error: StreamError }),
  ],
  { title: 'ResponsesStreamEvent' },
);
export type ResponsesStreamEvent = Static<typeof ResponsesStreamEvent>;
/** An event before its place in the stream is known: the builder stamps `sequence_number`. */
export type UnsequencedEvent = ResponsesStreamEvent extends infer E ? (E extends unknown ? Omit<E, 'sequence_number'> : never) : never;
export type ResponsesStreamError = Static<typeof StreamError>;

/** Every image part of a request's input, in document order, with the path of its `image_url`. */
export function* inputImages(body: ResponsesRequest): Generator<{ part: { image_url: string; detail?: string | null }; param: string }> {
  if (!Array.isArray(body.input)) return;
  for (let i = 0; i < body.input.length; i++) {
    const item = body.input[i] as { content?: unknown; output?: unknown };
    for (const [field, parts] of [['content', item.content], ['output', item.output]] as const) {
      if (!Array.isArray(parts)) continue;
      for (let j = 0; j < parts.length; j++) {
        const part = parts[j] as { type: string; image_url?: string; detail?: string | null };
        if (part.type === 'input_image') yield { part: part as { image_url: string }, param: `input[${i}].${field}[${j}].image_url` };
      }
    }
  }
}
