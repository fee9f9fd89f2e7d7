import type { CatalogEntry } from '../../config/schema.ts';
import { MAX_OUTPUT_TOKENS } from '../../contract/common.ts';
import { ApiError } from '../../contract/errors.ts';
import { SVG_MAX_BYTES } from '../../contract/media-size.ts';
import type { ResponsesRequest } from '../../contract/responses.ts';
import type { TokenBounds } from '../../contract/usage.ts';
import type { ImageRef, SvgRef } from '../../media/inputs.ts';
import { outputsOf, REVIEW_OUTPUT_TOKENS, type SvgJob } from '../engine.ts';
import { imageTokens, outputBudget, promptOverheadTokens, reasoningTokens, responsesOutputBudget } from './budget.ts';
import type { OpenAiCompatibleOptions } from './options.ts';

// What a job on this engine may cost, from the same caps its calls send upstream (budget.ts):
// a token-priced reservation holds exactly this, and the token rate limits count it.

const bytes = (text: string | undefined) => (text ? Buffer.byteLength(text, 'utf8') : 0);

function sourceBytes(source: SvgRef): number {
  if ('markup' in source) return bytes(source.markup);
  return SVG_MAX_BYTES; // fetched by URL: at most what the fetcher accepts
}

/**
 * The most tokens an SVG job can use, from its own bounds. A token never covers less than one
 * byte of text, so the UTF-8 size of the text inputs bounds their tokens; each image counts
 * `image_input_tokens`, the prompt template `prompt_overhead_tokens`. Output is each call's
 * `max_tokens` (outputBudget) per output. An edit with review steps makes more calls: per step a
 * review (the rendering as one image, its verdict capped by `orchestrator_max_output_tokens`)
 * and a redo (whose input also holds the document being fixed and the verdict), and one last
 * review.
 */
export function svgTokenBounds(job: SvgJob, entry: CatalogEntry, options: OpenAiCompatibleOptions): TokenBounds {
  const overhead = promptOverheadTokens(options);
  const perImage = imageTokens(options);
  const images = (list: ImageRef[]) => list.length * perImage;
  const cap = (requested: number | null | undefined) => outputBudget(entry, options, requested);
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
      const steps = options.vision ? job.maxReviewSteps : 0;
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
  const outputs = outputsOf(job);
  return { inputTokens: input * outputs, outputTokens: output * outputs };
}

/** Template text a custom tool adds on its way to a Chat Completions server (its wrapper schema). */
const CUSTOM_TOOL_TOKENS = 256;

/**
 * The most tokens a POST /v1/responses request can use (the same rule as SVG jobs):
 * `prompt_overhead_tokens` + the UTF-8 bytes of the JSON text of its input, instructions, tools
 * and output format (keys and punctuation included, which more than covers a chat template's
 * framing of each message; image data excluded) + `image_input_tokens` per image + a custom
 * tool's wrapper. Output is the call's `max_output_tokens` (responsesOutputBudget). A
 * `max_output_tokens` past what the model can write (its `max_output_length`, else the API's
 * largest, plus its reasoning budget) is refused: 400 on `max_output_tokens`.
 */
export function responsesTokenBounds(request: ResponsesRequest, images: number, entry: CatalogEntry, options: OpenAiCompatibleOptions): TokenBounds {
  const most = (entry.max_output_length ?? MAX_OUTPUT_TOKENS) + reasoningTokens(options);
  if (request.max_output_tokens !== undefined && request.max_output_tokens !== null && request.max_output_tokens > most) {
    throw new ApiError('invalid_request', {
      param: 'max_output_tokens',
      message: `Invalid value for 'max_output_tokens': the model '${entry.id}' writes at most ${most} tokens.`,
    });
  }
  const text = JSON.stringify(
    { instructions: request.instructions, input: request.input, tools: request.tools, format: request.text?.format },
    (key, value: unknown) => (key === 'image_url' ? '' : value),
  );
  const customTools = (request.tools ?? []).filter((tool) => tool.type === 'custom').length;
  const input = promptOverheadTokens(options) + bytes(text) + images * imageTokens(options) + customTools * CUSTOM_TOOL_TOKENS;
  return { inputTokens: input, outputTokens: responsesOutputBudget(entry, options, request.max_output_tokens) };
}
