import { Type, type Static } from '@sinclair/typebox';

// Token usage twice: as an engine measures it (what billing prices and the limits correct by),
// and as an SVG response reports it on the wire.

/** Token counts as measured by the engine; cached and cache-write counts are part of input. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
}

/**
 * The most tokens a job may use, in and out: what its engine says it can cost, so a token-priced
 * reservation (and the token rate limits) hold exactly that.
 */
export interface TokenBounds {
  inputTokens: number;
  outputTokens: number;
}

export const Usage = Type.Object(
  {
    input_tokens: Type.Integer({ minimum: 0 }),
    output_tokens: Type.Integer({ minimum: 0 }),
    total_tokens: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false, title: 'SvgUsage' },
);
export type Usage = Static<typeof Usage>;

/** Wire usage from measured usage. */
export function wireUsage(usage: TokenUsage): Usage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
