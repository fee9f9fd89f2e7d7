import { Type, type Static } from '@sinclair/typebox';
import type { CatalogEntry } from '../../config/schema.ts';
import { SVG_MAX_BYTES } from '../../contract/media-size.ts';
import { entryOptionsParser, ServerOptionFields } from '../upstream/options.ts';

/** Thinking tokens a reasoning model gets when its entry does not say (`reasoning_budget_tokens`). */
export const DEFAULT_REASONING_BUDGET_TOKENS = 8192;

/**
 * The reasoning budget an entry's raw `options` give a call: its `reasoning_budget_tokens` (or
 * the default) when `reasoning` is on, else 0. Reservations use it before the engine parses them.
 */
export function reasoningBudgetOf(options: Record<string, unknown>): number {
  if (options.reasoning !== true) return 0;
  const budget = options.reasoning_budget_tokens;
  return typeof budget === 'number' && Number.isSafeInteger(budget) && budget >= 0 ? budget : DEFAULT_REASONING_BUDGET_TOKENS;
}

/**
 * A catalog entry's `options` for the openai-compatible engine, validated when the service
 * starts: a mistake fails the start, naming the entry and the field, never a request.
 */
export const OpenAiCompatibleOptions = Type.Object(
  {
    ...ServerOptionFields,
    vision: Type.Boolean({ default: false, description: 'The model takes image input: references are sent to it, and it can review edits.' }),
    responses_api: Type.Boolean({
      default: false,
      description: 'The server speaks the Responses API itself (POST {base_url}/responses): /v1/responses is passed through to it instead of being translated to Chat Completions.',
    }),
    reasoning: Type.Boolean({ default: false, description: 'The model reasons before it answers: reasoning_effort is sent, and reasoning_budget_tokens are added to the output budget.' }),
    reasoning_budget_tokens: Type.Integer({
      minimum: 0,
      maximum: 262_144,
      default: DEFAULT_REASONING_BUDGET_TOKENS,
      description: 'Tokens a reasoning model may spend thinking: with reasoning on, added to each call\'s max_tokens and to the output reservation.',
    }),
    first_token_timeout_ms: Type.Integer({
      minimum: 100,
      maximum: 3_600_000,
      default: 120_000,
      description: 'Milliseconds a streamed call may wait from sending to its first token (an unstreamed one has only the total deadline); past it 504 request_timeout.',
    }),
    idle_timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 3_600_000,
        description: 'Milliseconds a streamed answer may go without an event once its first token came (keep-alive comments do not count); past it 504 request_timeout. Default: first_token_timeout_ms.',
      }),
    ),
    total_timeout_ms: Type.Integer({
      minimum: 1000,
      maximum: 3_600_000,
      default: 600_000,
      description: 'Milliseconds all upstream calls of one output may take, retries, failovers and edit reviews included (for /v1/responses, of the request), from when its first call gets a server; past it 504 request_timeout.',
    }),
    // At most 8 MiB: an event may take 6 × this on the wire (JSON escapes), which stays under the client's 64 MiB transport cap.
    max_output_bytes: Type.Integer({
      minimum: 1024,
      maximum: 8 * 1024 * 1024,
      default: SVG_MAX_BYTES,
      description: 'Most text the model may write in one call (answer, reasoning, refusal and tool-call arguments, in UTF-8 bytes); past it the call is closed and answered 502 model_error, never retried. The default is the SVG input limit, so the service never sends what it would refuse as input.',
    }),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 262_144, description: 'Output budget when the request names none (default: the entry\'s max_output_length, else 8192).' })),
    extra_body: Type.Record(Type.String(), Type.Unknown(), { default: {}, description: 'Server-specific request fields, e.g. chat_template_kwargs.' }),
    reference_max_side: Type.Integer({ minimum: 64, maximum: 4096, default: 1024, description: 'Reference images are downscaled to at most this many pixels a side.' }),
    prompt_overhead_tokens: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Input tokens reserved per upstream call for the system prompt and message framing, on top of the request\'s own text (default 2048).' }),
    ),
    image_input_tokens: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Input tokens counted per image, in reservations and when the server reports no usage (default 1536).' }),
    ),
  },
  { additionalProperties: false },
);
export type OpenAiCompatibleOptions = Static<typeof OpenAiCompatibleOptions>;

/** The entry's options with defaults filled in, or a ConfigError naming the entry and field. */
export const parseOptions: (entry: CatalogEntry) => OpenAiCompatibleOptions = entryOptionsParser<OpenAiCompatibleOptions>(OpenAiCompatibleOptions);
