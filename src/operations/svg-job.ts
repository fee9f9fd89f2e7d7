import type { ReasoningEffort, SvgAttributes } from '../contract/common.ts';
import type { CatalogModel } from '../config/catalog.ts';
import type { SvgJobBase } from '../engines/engine.ts';
import type { OperationContext } from './context.ts';
import { requestSeed } from './seed.ts';

/** The request fields every SVG operation reads the same way (each names what it has). */
export interface CommonRequestFields {
  stream?: boolean;
  reasoning_effort?: ReasoningEffort;
  temperature?: number | null;
  top_p?: number;
  presence_penalty?: number | null;
  max_output_tokens?: number | null;
  attributes?: SvgAttributes;
}

/**
 * The fields of an SVG job that come from the request context and the common request fields,
 * filled one way for every operation. `body` is the whole request (the seed hashes all of it);
 * `fields` are its common fields where an operation keeps them elsewhere (an edit's `settings`).
 */
export function svgJobBase(ctx: OperationContext, model: CatalogModel, body: object, fields: CommonRequestFields = body): SvgJobBase {
  return {
    requestId: ctx.requestId,
    model,
    seed: requestSeed(ctx.principal.keyId, body),
    viewBox: fields.attributes?.viewBox ?? null,
    reasoningEffort: fields.reasoning_effort,
    temperature: fields.temperature ?? undefined,
    topP: fields.top_p,
    presencePenalty: fields.presence_penalty,
    maxOutputTokens: fields.max_output_tokens ?? undefined,
    mockHeader: ctx.mockHeader,
    streaming: fields.stream ?? false,
    signal: ctx.signal,
  };
}
