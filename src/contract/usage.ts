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
