import type { CatalogEntry } from '../../config/schema.ts';
import type { OpenAiCompatibleOptions } from './options.ts';
import type { UpstreamUsage } from '../upstream/client.ts';

// The engine's one home for what a call may use and what it used: the output cap it sends, the
// allowances it counts, the sampling fields it passes on, and the usage it counts itself when a
// server reports none. The calls and the reservations (cost.ts) read them here, so the two can
// never disagree.

/** Output tokens of a call when neither the request nor the entry names a cap. */
export const DEFAULT_OUTPUT_TOKENS = 8192;
/** Input tokens counted per image, when the entry does not say (`image_input_tokens`). */
export const DEFAULT_IMAGE_INPUT_TOKENS = 1536;
/** Input tokens reserved per call for the system prompt and message framing (`prompt_overhead_tokens`). */
export const DEFAULT_PROMPT_OVERHEAD_TOKENS = 2048;

/** The entry's own output cap: `options.max_output_tokens`, else `max_output_length`, else the default. */
export function entryOutputCap(entry: CatalogEntry, options: OpenAiCompatibleOptions): number {
  return options.max_output_tokens ?? entry.max_output_length ?? DEFAULT_OUTPUT_TOKENS;
}

/**
 * The `max_tokens` of an SVG call: the cap asked for (`max_output_tokens` of the request or its
 * settings), else the entry's, plus what a reasoning model may think on top of its answer.
 */
export function outputBudget(entry: CatalogEntry, options: OpenAiCompatibleOptions, requested: number | null | undefined): number {
  return (requested ?? entryOutputCap(entry, options)) + reasoningTokens(options);
}

/**
 * The `max_output_tokens` of a Responses call: the request's (reasoning included, as Responses
 * counts it), else the entry's cap plus what a reasoning model may think.
 */
export function responsesOutputBudget(entry: CatalogEntry, options: OpenAiCompatibleOptions, requested: number | null | undefined): number {
  return requested ?? entryOutputCap(entry, options) + reasoningTokens(options);
}

/** Tokens a reasoning model may think on top of its answer (0 for one that does not reason). */
export function reasoningTokens(options: OpenAiCompatibleOptions): number {
  return options.reasoning ? options.reasoning_budget_tokens : 0;
}

/** Input tokens one image counts for. */
export function imageTokens(options: OpenAiCompatibleOptions): number {
  return options.image_input_tokens ?? DEFAULT_IMAGE_INPUT_TOKENS;
}

/** Input tokens of one call's template. */
export function promptOverheadTokens(options: OpenAiCompatibleOptions): number {
  return options.prompt_overhead_tokens ?? DEFAULT_PROMPT_OVERHEAD_TOKENS;
}

/** Sampling values a request may carry, by their wire names. */
export interface SamplingValues {
  temperature?: number | null;
  top_p?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
}

/**
 * The sampling fields the entry lists as supported (`supported_sampling_parameters`), as sent
 * upstream; `frequency_penalty` goes with `presence_penalty`. Fields a request left out stay out.
 */
export function supportedSampling(entry: CatalogEntry, values: SamplingValues): Record<string, number> {
  const supported = new Set<string>(entry.supported_sampling_parameters ?? []);
  const sampling: Record<string, number> = {};
  const take = (wire: string, value: number | null | undefined, listed = wire) => {
    if (typeof value === 'number' && supported.has(listed)) sampling[wire] = value;
  };
  take('temperature', values.temperature);
  take('top_p', values.top_p);
  take('presence_penalty', values.presence_penalty);
  take('frequency_penalty', values.frequency_penalty, 'presence_penalty');
  return sampling;
}

/** Tokens in texts by a common encoding, counted off the event loop. */
export type CountTokens = (texts: string[]) => Promise<number>;

/**
 * Usage counted locally, for a server that reports none: the prompt's texts plus each image at
 * the entry's allowance in, the answer's texts (and its reasoning) out — so real work is never
 * settled as zero.
 */
export async function localUsage(count: CountTokens, options: OpenAiCompatibleOptions, prompt: { texts: string[]; images: number }, answer: string[]): Promise<UpstreamUsage> {
  const [input, output] = await Promise.all([count(prompt.texts), count(answer)]);
  return { promptTokens: input + prompt.images * imageTokens(options), completionTokens: output, cachedTokens: 0 };
}
