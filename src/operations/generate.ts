import { ApiError } from '../contract/errors.ts';
import type { GenerationRequest } from '../contract/svgs.ts';
import type { SvgStreamEvent } from '../contract/svgs.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { engineFor } from './engine-for.ts';
import { assertTakesImages, resolveModel } from './resolve-model.ts';
import { requestSeed } from './seed.ts';
import { admitSvgJob } from './svg-run.ts';

/** POST /v1/svgs/generations: n documents from a prompt and optional references. */
export async function generateSvgs(deps: OperationDeps, ctx: OperationContext, body: GenerationRequest): Promise<AsyncGenerator<SvgStreamEvent>> {
  const model = resolveModel(deps.catalog, ctx.principal, body.model, 'svg_generate');
  const inputs = body.references ?? [];
  if (inputs.length > model.entry.max_references) {
    throw new ApiError('invalid_request', {
      param: 'references',
      message: `The model '${model.entry.id}' accepts at most ${model.entry.max_references} references; ${inputs.length} were given.`,
    });
  }
  assertTakesImages(model, inputs.length, 'references');
  const references = await Promise.all(inputs.map((input, i) => deps.media.prepareImage(input, `references[${i}]`)));
  return admitSvgJob(
    deps,
    ctx,
    {
      operation: 'svg_generate',
      requestId: ctx.requestId,
      model,
      seed: requestSeed(ctx.principal.keyId, body),
      viewBox: body.attributes?.viewBox ?? null,
      prompt: body.prompt,
      instructions: body.instructions,
      references,
      outputs: body.n ?? 1,
      reasoningEffort: body.reasoning_effort,
      temperature: body.temperature,
      topP: body.top_p,
      presencePenalty: body.presence_penalty,
      maxOutputTokens: body.max_output_tokens,
      mockHeader: ctx.mockHeader,
      streaming: body.stream ?? false,
      signal: ctx.signal,
    },
    engineFor(deps, ctx, model),
  );
}
