import { Type, type Static } from '@sinclair/typebox';
import {
  ImageInput,
  MAX_OUTPUT_TOKENS,
  MaxOutputTokens,
  ModelField,
  PresencePenalty,
  ReasoningEffortField,
  ReferenceItem,
  Stream,
  SvgAttributes,
  SvgInput,
  Temperature,
  TopP,
} from './common.ts';
import { ErrorEnvelope } from './errors.ts';
import { Nullable, StringEnum, TOO_LARGE } from './schema-helpers.ts';
import { Usage } from './usage.ts';

// Request and response shapes of the four native SVG operations.

/** Prompts the spec leaves unbounded are capped here; longer ones are 413 payload_too_large. */
export const PROMPT_MAX_LENGTH = 100_000;
export const EDIT_PROMPT_MAX_LENGTH = 4000;
export const EDIT_SVG_MAX_LENGTH = 200_000;
export const MAX_REFERENCES = 16;
export const MAX_REFERENCE_IMAGES = 4;
export const MAX_OUTPUTS = 16;

const Prompt = (description: string, maxLength = PROMPT_MAX_LENGTH) =>
  Type.String({ minLength: 1, maxLength, ...TOO_LARGE, description });

export const GenerationRequest = Type.Object(
  {
    model: ModelField,
    prompt: Prompt('Primary description of the graphic.'),
    instructions: Type.Optional(Prompt('Separate style or formatting guidance.')),
    references: Type.Optional(
      Type.Array(ReferenceItem, {
        maxItems: MAX_REFERENCES,
        description: "Reference images; at most the model's own limit (4 for standard models, 16 for high-fidelity ones).",
      }),
    ),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_OUTPUTS, default: 1 })),
    stream: Type.Optional(Stream),
    temperature: Type.Optional(Temperature),
    top_p: Type.Optional(TopP),
    presence_penalty: Type.Optional(PresencePenalty),
    max_output_tokens: Type.Optional(MaxOutputTokens),
    reasoning_effort: Type.Optional(ReasoningEffortField),
    attributes: Type.Optional(SvgAttributes),
  },
  { additionalProperties: false, title: 'GenerationRequest' },
);
export type GenerationRequest = Static<typeof GenerationRequest>;

export const VectorizationRequest = Type.Object(
  {
    model: ModelField,
    image: ImageInput,
    auto_crop: Type.Optional(
      Type.Boolean({ default: false, description: 'Crop to the dominant subject before vectorizing.' }),
    ),
    target_size: Type.Optional(
      Type.Integer({ minimum: 128, maximum: 4096, description: 'Square resize target in pixels.' }),
    ),
    reasoning_effort: Type.Optional(ReasoningEffortField),
    stream: Type.Optional(Stream),
    temperature: Type.Optional(Temperature),
    top_p: Type.Optional(TopP),
    presence_penalty: Type.Optional(PresencePenalty),
    max_output_tokens: Type.Optional(MaxOutputTokens),
    attributes: Type.Optional(SvgAttributes),
  },
  { additionalProperties: false, title: 'VectorizationRequest' },
);
export type VectorizationRequest = Static<typeof VectorizationRequest>;

const OutputTokenSetting = Nullable(Type.Integer({ minimum: 1, maximum: MAX_OUTPUT_TOKENS }));

export const EditSettings = Nullable(
  Type.Object(
    {
      max_output_tokens: Type.Optional(OutputTokenSetting),
      orchestrator_max_output_tokens: Type.Optional(OutputTokenSetting),
      shallow_max_output_tokens: Type.Optional(OutputTokenSetting),
      temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    },
    { additionalProperties: false },
  ),
);

export const EditRequest = Type.Object(
  {
    model: ModelField,
    prompt: Prompt('The edit instruction.', EDIT_PROMPT_MAX_LENGTH),
    svg: Type.Optional(
      Type.String({ minLength: 1, maxLength: EDIT_SVG_MAX_LENGTH, ...TOO_LARGE, description: 'Inline SVG markup.' }),
    ),
    svg_source: Type.Optional(Nullable(SvgInput)),
    reference_images: Type.Optional(Nullable(Type.Array(ImageInput, { maxItems: MAX_REFERENCE_IMAGES }))),
    max_review_steps: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 5, default: 0, description: 'Review and redo steps after the initial edit.' }),
    ),
    reasoning_effort: Type.Optional(ReasoningEffortField),
    settings: Type.Optional(EditSettings),
    stream: Type.Optional(Stream),
  },
  {
    additionalProperties: false,
    title: 'EditRequest',
    'x-inkwell-exactly-one': ['svg', 'svg_source'],
    description: "Exactly one of 'svg' and 'svg_source' must be given (and not null).",
  },
);
export type EditRequest = Static<typeof EditRequest>;

export const AnimationRequest = Type.Object(
  {
    model: ModelField,
    svg_source: SvgInput,
    prompt: Type.Optional(Prompt('What to animate; the model chooses a suitable animation when omitted.')),
    reasoning_effort: Type.Optional(ReasoningEffortField),
    temperature: Type.Optional(Temperature),
    max_output_tokens: Type.Optional(MaxOutputTokens),
    stream: Type.Optional(Stream),
  },
  { additionalProperties: false, title: 'AnimationRequest' },
);
export type AnimationRequest = Static<typeof AnimationRequest>;

const DurationMs = Nullable(Type.Integer({ minimum: 0 }));

export const SvgDocument = Type.Object(
  {
    mime_type: Type.Literal('image/svg+xml'),
    svg: Type.String({ minLength: 1 }),
    loop_period_ms: Type.Optional(DurationMs),
    opening_animation_ms: Type.Optional(DurationMs),
  },
  { additionalProperties: false, title: 'SvgDocument' },
);
export type SvgDocument = Static<typeof SvgDocument>;

export const SvgResponse = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    created: Type.Integer({ minimum: 0 }),
    data: Type.Array(SvgDocument, { minItems: 1 }),
    credits: Type.Optional(Type.Integer({ minimum: 0, description: 'Credits debited; fixed-credit models only.' })),
    usage: Type.Optional(Usage),
    svg_score: Type.Optional(Nullable(Type.Number())),
  },
  { additionalProperties: false, title: 'SvgResponse' },
);
export type SvgResponse = Static<typeof SvgResponse>;

/* Stream events. Payloads allow extra properties (forward compatibility), as the spec says. */

const OutputIndex = Type.Integer({ minimum: 0, description: 'Zero-based output position; present when n > 1.' });
const OutputId = Type.String({ description: 'Stable identifier of one output.' });
const StatusText = Type.String({ description: 'Status text.' });
const open = (title: string) => ({ additionalProperties: true, title });

export const GeneratingEvent = Type.Object(
  {
    type: Type.Literal('generating'),
    id: Type.Optional(OutputId),
    index: Type.Optional(OutputIndex),
    svg: Type.Optional(Type.String()),
    text: Type.Optional(StatusText),
    usage: Type.Optional(Usage),
  },
  open('SvgStreamGeneratingEvent'),
);
export const ReasoningEvent = Type.Object(
  {
    type: Type.Literal('reasoning'),
    id: Type.Optional(OutputId),
    index: Type.Optional(OutputIndex),
    svg: Type.Optional(Type.String()),
    text: Type.Optional(Type.String()),
    usage: Type.Optional(Usage),
  },
  open('SvgStreamReasoningEvent'),
);
export const DraftEvent = Type.Object(
  {
    type: Type.Literal('draft'),
    id: OutputId,
    svg: Type.String({
      description: 'Preview markup: a snapshot is the document so far with its root left open; a delta appends to it.',
    }),
    index: Type.Optional(OutputIndex),
    text: Type.Optional(Type.String()),
    usage: Type.Optional(Usage),
    update_type: Type.Optional(StringEnum(['delta', 'snapshot'] as const)),
  },
  open('SvgStreamDraftEvent'),
);
export const ContentEvent = Type.Object(
  {
    type: Type.Literal('content'),
    id: OutputId,
    svg: Type.String({ minLength: 1, description: 'The complete, sanitized SVG document of this output.' }),
    index: Type.Optional(OutputIndex),
    text: Type.Optional(Type.String()),
    usage: Type.Optional(Usage),
    credits: Type.Optional(Type.Integer({ minimum: 0, description: 'Credits debited for this output (fixed-credit models).' })),
    loop_period_ms: Type.Optional(DurationMs),
    opening_animation_ms: Type.Optional(DurationMs),
    svg_score: Type.Optional(Nullable(Type.Number({ description: 'Animation quality score (animations only).' }))),
  },
  open('SvgStreamContentEvent'),
);
export const SvgStreamErrorEvent = Type.Object(
  { type: Type.Literal('error'), ...ErrorEnvelope.properties },
  { additionalProperties: true, title: 'SvgStreamErrorEvent' },
);

export const SvgStreamEvent = Type.Union([GeneratingEvent, ReasoningEvent, DraftEvent, ContentEvent, SvgStreamErrorEvent], {
  title: 'SvgStreamEvent',
});
export type SvgStreamEvent = Static<typeof SvgStreamEvent>;

