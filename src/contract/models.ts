import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './schema-helpers.ts';

// The model catalog's wire shapes.

export const OPERATIONS = ['open_responses', 'svg_generate', 'svg_edit', 'svg_animate', 'svg_vectorize'] as const;
export type Operation = (typeof OPERATIONS)[number];
export const SVG_OPERATIONS = ['svg_generate', 'svg_vectorize', 'svg_edit', 'svg_animate'] as const;
export type SvgOperation = (typeof SVG_OPERATIONS)[number];

export const MODALITIES = ['text', 'image', 'svg'] as const;
export const SAMPLING_PARAMETERS = ['temperature', 'top_p', 'top_k', 'repetition_penalty', 'presence_penalty', 'stop'] as const;

const PositiveRate = (description: string) => Type.Integer({ minimum: 1, description });

export const TokenRates = Type.Object(
  {
    cache_write: PositiveRate('Millicents per million input tokens written to the prompt cache.'),
    cached_input: PositiveRate('Millicents per million input tokens read from the prompt cache.'),
    input: PositiveRate('Millicents per million input tokens neither read from nor written to the prompt cache.'),
    output: PositiveRate('Millicents per million output tokens, reasoning included.'),
  },
  { additionalProperties: false, description: 'Millicents per million tokens.' },
);
export type TokenRates = Static<typeof TokenRates>;

export const FixedCreditBilling = Type.Object(
  { kind: Type.Literal('fixed_credit'), unit: Type.Literal('credits_per_output') },
  { additionalProperties: false, title: 'FixedCreditBilling' },
);
export const TokenUsageBilling = Type.Object(
  {
    kind: Type.Literal('token_usage'),
    currency: Type.Literal('USD'),
    pricing_model: Type.Literal('token_usage_v1'),
    unit: Type.Literal('millicents_per_million_tokens'),
    rates: TokenRates,
  },
  { additionalProperties: false, title: 'TokenUsageBilling' },
);
export const ModelBilling = Type.Union([FixedCreditBilling, TokenUsageBilling], {
  description: 'Discriminated by `kind`; read it before computing cost.',
});
export type ModelBilling = Static<typeof ModelBilling>;

const Credits = Type.Integer({ minimum: 0 });
export const PricingCredits = Type.Object(
  {
    svg_generate: Credits,
    svg_vectorize: Credits,
    svg_edit: Type.Optional(Credits),
    svg_animate: Type.Optional(Credits),
  },
  { additionalProperties: false, description: 'Credits debited per generated output for each operation.' },
);
export type PricingCredits = Static<typeof PricingCredits>;

const Usd = Type.String({ minLength: 1 });
export const LegacyPricing = Type.Object(
  {
    svg_generate: Usd,
    svg_vectorize: Usd,
    svg_edit: Type.Optional(Usd),
    svg_animate: Type.Optional(Usd),
  },
  { additionalProperties: false, deprecated: true, description: 'Deprecated USD strings; use pricing_credits.' },
);

/** The catalog's Model object, exactly as the spec defines it. */
export const Model = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    object: Type.Literal('model'),
    created: Type.Integer({ minimum: 0 }),
    owned_by: Type.String(),
    billing: ModelBilling,
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    context_length: Type.Optional(Type.Integer({ exclusiveMinimum: 0 })),
    max_output_length: Type.Optional(Type.Integer({ exclusiveMinimum: 0 })),
    input_modalities: Type.Optional(Type.Array(StringEnum(MODALITIES))),
    output_modalities: Type.Optional(Type.Array(StringEnum(MODALITIES))),
    supported_operations: Type.Optional(Type.Array(StringEnum(OPERATIONS))),
    supported_sampling_parameters: Type.Optional(Type.Array(StringEnum(SAMPLING_PARAMETERS))),
    pricing_credits: Type.Optional(PricingCredits),
    pricing: Type.Optional(LegacyPricing),
  },
  { additionalProperties: false, title: 'Model' },
);
export type Model = Static<typeof Model>;

export const ModelList = Type.Object(
  { data: Type.Array(Model), object: Type.Literal('list') },
  { additionalProperties: false, title: 'ModelList' },
);
export type ModelList = Static<typeof ModelList>;

export const ModelParams = Type.Object({ model: Type.String({ minLength: 1 }) }, { additionalProperties: false });
