import { Type, type Static } from '@sinclair/typebox';
import type { CatalogEntry } from '../../config/schema.ts';
import { REASONING_EFFORTS } from '../../contract/common.ts';
import { StringEnum } from '../../contract/schema-helpers.ts';
import { IMAGE_MAX_BYTES } from '../../contract/media-size.ts';
import { entryOptionsParser, ServerOptionFields } from '../upstream/options.ts';

/**
 * Added to every picture's prompt unless the entry replaces it (`style_prompt`): what makes a
 * picture trace well — few flat colours, clean edges, one subject on a plain background.
 */
export const DEFAULT_STYLE_PROMPT =
  'Flat vector illustration: a few solid colours, clean crisp shapes with smooth edges, no text, no photographic texture, no noise, no fine hatching; one subject, centred, on a plain white background.';

/** Sizes gpt-image models take: square, landscape and portrait. */
const DEFAULT_SIZES = ['1024x1024', '1536x1024', '1024x1536'];

/**
 * A catalog entry's `options` for the image-trace engine: an OpenAI-compatible Images API
 * (`POST {base_url}/images/generations`, and `/images/edits` for references) and the built-in
 * tracer. Validated when the service starts, like the chat engine's.
 */
export const ImageTraceOptions = Type.Object(
  {
    ...ServerOptionFields,
    sizes: Type.Array(Type.String({ pattern: '^[1-9][0-9]{1,4}x[1-9][0-9]{1,4}$' }), {
      minItems: 1,
      maxItems: 16,
      default: DEFAULT_SIZES,
      description: 'Picture sizes the model takes (WIDTHxHEIGHT): each request asks for the one whose shape is nearest its viewBox (a square without one).',
    }),
    quality: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Sent as `quality` (e.g. low, medium, high for gpt-image models; standard or hd for dall-e-3). Not sent when unset.' })),
    output_format: Type.Optional(StringEnum(['png', 'jpeg', 'webp'], { description: 'Sent as `output_format` (gpt-image models). Not sent when unset; png keeps transparency.' })),
    response_format: Type.Optional(
      StringEnum(['b64_json', 'url'], { description: 'Sent as `response_format`, for servers that take it (dall-e, LocalAI). Either answer is read; a URL is fetched from the server\'s own host only. Not sent when unset.' }),
    ),
    background: StringEnum(['transparent', 'remove', 'keep'], {
      default: 'remove',
      description: 'transparent: ask the API for a transparent background (`background: transparent`, gpt-image models), and remove a plain one if the picture still has it; remove: remove a plain background connected to the border before tracing, so an icon is not a square; keep: trace the picture as it is.',
    }),
    style_prompt: Type.String({ maxLength: 4000, default: DEFAULT_STYLE_PROMPT, description: 'Added after the request\'s prompt and instructions: the wording that asks for a picture that traces well. An empty string adds nothing.' }),
    images_per_call: Type.Integer({
      minimum: 1,
      maximum: 10,
      default: 1,
      description: 'Most pictures one call asks for (`n`): a request for more makes several calls at once. 1 for servers that take no `n` (dall-e-3, most local servers).',
    }),
    partial_images: Type.Integer({
      minimum: 0,
      maximum: 3,
      default: 0,
      description: 'For a streaming request, ask for this many partial pictures (`stream: true`, `partial_images`; gpt-image models): each is traced at low detail and sent as a draft. 0: the final picture gets a quick low-detail draft before its full trace.',
    }),
    trace_detail: StringEnum(REASONING_EFFORTS, { default: 'medium', description: 'The tracer\'s detail for the delivered SVG (as reasoning_effort on /v1/svg/vectorize): higher keeps more detail, in more bytes and time.' }),
    vision: Type.Boolean({ default: false, description: 'The model takes pictures as input: a request\'s references are sent to POST {base_url}/images/edits. Without it, references are refused (400).' }),
    timeout_ms: Type.Integer({
      minimum: 1000,
      maximum: 3_600_000,
      default: 300_000,
      description: 'Milliseconds one output\'s calls may take, retries and failovers included, from when the first gets a server; past it 504 request_timeout. Image models take from seconds to minutes.',
    }),
    idle_timeout_ms: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 3_600_000, description: 'For a streamed call (partial_images), milliseconds it may go without an event; past it 504 request_timeout. Default: timeout_ms.' }),
    ),
    max_image_bytes: Type.Integer({
      minimum: 1024,
      maximum: IMAGE_MAX_BYTES,
      default: IMAGE_MAX_BYTES,
      description: 'Largest picture the server may answer with, decoded; past it the call fails 502 model_error. The default is the service\'s own image input limit.',
    }),
    output_tokens_per_image: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      default: 6240,
      description: 'Token-priced entries: output tokens held per picture before the call (the server\'s usage is billed after it), and billed when a server reports no usage. The default is gpt-image-1\'s largest (high quality, 1536x1024).',
    }),
    image_input_tokens: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 1536, description: 'Token-priced entries: input tokens held (and billed without usage) per reference picture.' }),
    prompt_overhead_tokens: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 256, description: 'Token-priced entries: input tokens held (and billed without usage) per call beyond the prompt\'s own, for the style prompt.' }),
    extra_body: Type.Record(Type.String(), Type.Unknown(), { default: {}, description: 'Server-specific request fields, e.g. moderation or output_compression; sent with every call.' }),
  },
  { additionalProperties: false },
);
export type ImageTraceOptions = Static<typeof ImageTraceOptions>;

/** The entry's options with defaults filled in, or a ConfigError naming the entry and field. */
export const parseImageTraceOptions: (entry: CatalogEntry) => ImageTraceOptions = entryOptionsParser<ImageTraceOptions>(ImageTraceOptions);

/** A size as the API takes it, and its shape. */
export interface PictureSize {
  size: string;
  width: number;
  height: number;
}

/** The listed size whose shape is nearest the viewBox's (compared as log aspect ratios); the first square, else the first, without one. */
export function nearestSize(sizes: string[], viewBox: { width: number; height: number } | null): PictureSize {
  const parsed = sizes.map((size) => {
    const [width, height] = size.split('x').map(Number) as [number, number];
    return { size, width, height };
  });
  const aspect = viewBox ? viewBox.width / viewBox.height : 1;
  let best = parsed[0]!;
  for (const candidate of parsed) {
    if (Math.abs(Math.log(candidate.width / candidate.height / aspect)) < Math.abs(Math.log(best.width / best.height / aspect))) best = candidate;
  }
  return best;
}
