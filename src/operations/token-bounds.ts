import type { CatalogModel } from '../config/catalog.ts';
import { MAX_OUTPUT_TOKENS } from '../contract/common.ts';
import { SVG_MAX_BYTES } from '../contract/media-size.ts';
import { outputsOf, REVIEW_OUTPUT_TOKENS, type SvgJob } from '../engines/engine.ts';
import type { ImageRef, SvgRef } from '../media/inputs.ts';
import type { TokenBounds } from '../billing/pricing.ts';
import type { ResponsesRequest } from '../contract/responses.ts';
import { reasoningBudgetOf } from '../engines/openai-compatible/options.ts';

/** Defaults a catalog entry can replace in `options` (`prompt_overhead_tokens`, `image_input_tokens`). */
const PROMPT_OVERHEAD_TOKENS = 2048;
const IMAGE_INPUT_TOKENS = 1536;

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
 * `max_output_tokens`, else the entry's `options.max_output_tokens`, else its
 * `max_output_length`, per output, plus `options.reasoning_budget_tokens` when `options.reasoning`
 * is on (reasoning counts against the output). An edit with review steps makes more calls: per
 * step a review (the rendering as one image, its verdict capped by
 * `orchestrator_max_output_tokens`) and a redo (whose input also holds the document being fixed
 * and the verdict), and one last review.
 */
export function tokenBounds(job: SvgJob, model: CatalogModel): TokenBounds {
  const overhead = option(model, 'prompt_overhead_tokens', PROMPT_OVERHEAD_TOKENS);
  const perImage = option(model, 'image_input_tokens', IMAGE_INPUT_TOKENS);
  const reasoning = reasoningBudgetOf(model.entry.options);
  const images = (list: ImageRef[]) => list.length * perImage;
  // A model without max_output_length is bounded by the most max_output_tokens a request may ask.
  const cap = (requested: number | null | undefined) =>
    (requested ?? option(model, 'max_output_tokens', model.entry.max_output_length ?? MAX_OUTPUT_TOKENS)) + reasoning;
  const outputs = outputsOf(job);
  let input: number;
  let output = cap(job.maxOutputTokens);
  switch (job.operation) {
    case 'svg_generate':
      input = overhead + bytes(job.prompt) + bytes(job.instructions) + images(job.references);
      break;
    case 'svg_vectorize':
      input = overhead + perImage;
      break;
    case 'svg_edit': {
      input = overhead + bytes(job.prompt) + sourceBytes(job.source) + images(job.referenceImages);
      const steps = job.maxReviewSteps;
      if (steps > 0) {
        const review = cap(job.settings.orchestratorMaxOutputTokens ?? REVIEW_OUTPUT_TOKENS);
        const redo = cap(job.settings.shallowMaxOutputTokens ?? job.maxOutputTokens);
        const reviewInput = overhead + bytes(job.prompt) + perImage;
        const redoInput = overhead + bytes(job.prompt) + Math.max(output, redo) + review;
        input += (steps + 1) * reviewInput + steps * redoInput;
        output += (steps + 1) * review + steps * redo;
      }
      break;
    }
    case 'svg_animate':
      input = overhead + bytes(job.prompt) + sourceBytes(job.source);
      break;
  }
  return { inputTokens: input * outputs, outputTokens: output * outputs };
}

/** Template text a custom tool adds on its way to a Chat Completions server (its wrapper schema). */
const CUSTOM_TOOL_TOKENS = 256;

/**
 * The most tokens a POST /v1/responses request can use, from its own bounds (the same rule as
 * SVG requests): `prompt_overhead_tokens` + the UTF-8 bytes of the JSON text of its input,
 * instructions, tools and output format (keys and punctuation included, which more than covers
 * a chat template's framing of each message; image data excluded) + `image_input_tokens` per
 * image + a custom tool's wrapper. Output is `max_output_tokens` (reasoning included, as
 * Responses counts it), else the entry's cap plus the reasoning budget of a reasoning model —
 * the limit the engine sends upstream.
 */
export function responsesTokenBounds(request: ResponsesRequest, model: CatalogModel, images: number): TokenBounds {
  const overhead = option(model, 'prompt_overhead_tokens', PROMPT_OVERHEAD_TOKENS);
  const perImage = option(model, 'image_input_tokens', IMAGE_INPUT_TOKENS);
  const reasoning = reasoningBudgetOf(model.entry.options);
  const text = JSON.stringify(
    { instructions: request.instructions, input: request.input, tools: request.tools, format: request.text?.format },
    (key, value: unknown) => (key === 'image_url' ? '' : value),
  );
  const customTools = (request.tools ?? []).filter((tool) => tool.type === 'custom').length;
  const input = overhead + bytes(text) + images * perImage + customTools * CUSTOM_TOOL_TOKENS;
  const output = request.max_output_tokens ?? option(model, 'max_output_tokens', model.entry.max_output_length ?? MAX_OUTPUT_TOKENS) + reasoning;
  return { inputTokens: input, outputTokens: output };
}
