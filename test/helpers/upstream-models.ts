// Catalog entries on the scripted upstream (test/fakes/upstream.ts) for the e2e suites that
// generate, edit and animate with the openai-compatible engine.

/** Credits per delivered output of the fixed-credit entries. */
export const SVG_CREDITS = { svg_generate: 3, svg_vectorize: 0, svg_edit: 5, svg_animate: 7 };

/** Token rates of the metered entries, in millicents per million tokens. */
export const SVG_TOKEN_RATES = { input: 10_000, cached_input: 1000, cache_write: 12_500, output: 40_000 };

export const FIXED_BILLING = { kind: 'fixed_credit', credits: SVG_CREDITS };
export const METERED_BILLING = { kind: 'token_usage', rates: SVG_TOKEN_RATES };

/** The upstream's deadlines and concurrency for one suite. */
export interface UpstreamTiming {
  first_token_timeout_ms: number;
  total_timeout_ms: number;
  max_concurrency: number;
}

/** An openai-compatible entry that generates, edits and animates from text and SVG (no references), served by the upstream at `baseUrl`. */
export function svgModelEntry(id: string, baseUrl: string, billing: Record<string, unknown>, timing: UpstreamTiming) {
  return {
    id,
    engine: 'openai-compatible',
    operations: ['svg_generate', 'svg_edit', 'svg_animate'],
    billing,
    max_references: 0,
    input_modalities: ['text', 'svg'],
    max_output_length: 4096,
    options: { base_url: baseUrl, model: 'fake-model', ...timing },
  };
}
