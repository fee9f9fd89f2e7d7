import type { SvgStreamEvent, VectorizationRequest } from '../contract/svgs.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { engineFor } from './engine-for.ts';
import { resolveModel } from './resolve-model.ts';
import { requestSeed } from './seed.ts';
import { admitSvgJob } from './svg-run.ts';

/** POST /v1/svgs/vectorizations: one SVG from a raster or SVG image. */
export async function vectorizeImage(deps: OperationDeps, ctx: OperationContext, body: VectorizationRequest): Promise<AsyncGenerator<SvgStreamEvent>> {
  const model = resolveModel(deps.catalog, ctx.principal, body.model, 'svg_vectorize');
  const image = await deps.media.prepareImage(body.image, 'image');
  return admitSvgJob(
    deps,
    ctx,
    {
      operation: 'svg_vectorize',
      requestId: ctx.requestId,
      model,
      seed: requestSeed(ctx.principal.keyId, body),
      viewBox: body.attributes?.viewBox ?? null,
      image,
      autoCrop: body.auto_crop ?? false,
      targetSize: body.target_size,
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
