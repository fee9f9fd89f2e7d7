import type { CatalogModel } from '../config/catalog.ts';
import type { SvgJob } from '../engines/engine.ts';
import type { ImageRef, SvgRef } from '../media/inputs.ts';
import { SVG_MAX_BYTES } from '../media/limits.ts';
import type { TokenBounds } from '../billing/pricing.ts';

/** Defaults a catalog entry can replace in `options`. */
const PROMPT_OVERHEAD_TOKENS = 2048;
const IMAGE_INPUT_TOKENS = 1536;
const DEFAULT_MAX_OUTPUT_TOKENS = 65_536;

function option(model: CatalogModel, name: string, fallback: number): number {
  const value = model.entry.options[name];
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : fallback;
}

const bytes = (text: string | undefined) => (text ? Buffer.byteLength(text, 'utf8') : 0);

function sourceBytes(source: SvgRef): number {
  if ('markup' in source) return bytes(source.markup);
  return SVG_MAX_BYTES; // fetched by URL: at most what the fetcher accepts
}

/**
 * The most tokens a request can use, from its own bounds. A token never covers less than one
 * byte of text, so the UTF-8 size of the text inputs bounds their tokens; each image counts a
 * fixed allowance (`image_input_tokens`), the prompt template `prompt_overhead_tokens`. Output is
 * `max_output_tokens`, else the model's `max_output_length`, per output; an edit's review steps
 * are further model calls and multiply both.
 */
export function tokenBounds(job: SvgJob, model: CatalogModel): TokenBounds {
  const overhead = option(model, 'prompt_overhead_tokens', PROMPT_OVERHEAD_TOKENS);
  const perImage = option(model, 'image_input_tokens', IMAGE_INPUT_TOKENS);
  const images = (list: ImageRef[]) => list.length * perImage;
  let input: number;
  let outputs = 1;
  let calls = 1;
  switch (job.operation) {
    case 'svg_generate':
      input = bytes(job.prompt) + bytes(job.instructions) + images(job.references);
      outputs = job.outputs;
      break;
    case 'svg_vectorize':
      input = perImage;
      break;
    case 'svg_edit':
      input = bytes(job.prompt) + sourceBytes(job.source) + images(job.referenceImages);
      calls = 1 + job.maxReviewSteps;
      break;
    case 'svg_animate':
      input = bytes(job.prompt) + sourceBytes(job.source);
      break;
  }
  const maxOutput = job.maxOutputTokens ?? model.entry.max_output_length ?? DEFAULT_MAX_OUTPUT_TOKENS;
  return { inputTokens: (overhead + input) * outputs * calls, outputTokens: maxOutput * outputs * calls };
}
