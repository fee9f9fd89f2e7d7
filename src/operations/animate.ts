import type { AnimationRequest, SvgStreamEvent } from '../contract/svgs.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { engineFor } from './engine-for.ts';
import { resolveModel } from './resolve-model.ts';
import { requestSeed } from './seed.ts';
import { admitSvgJob } from './svg-run.ts';

/** POST /v1/svgs/animations: the supplied SVG, animated. */
export async function animateSvg(deps: OperationDeps, ctx: OperationContext, body: AnimationRequest): Promise<AsyncGenerator<SvgStreamEvent>> {
  const model = resolveModel(deps.catalog, ctx.principal, body.model, 'svg_animate');
  const source = deps.media.prepareSvg(undefined, body.svg_source, 'svg_source');
  return admitSvgJob(
    deps,
    ctx,
    {
      operation: 'svg_animate',
      requestId: ctx.requestId,
      model,
      seed: requestSeed(ctx.principal.keyId, body),
      viewBox: null,
      prompt: body.prompt,
      source,
      reasoningEffort: body.reasoning_effort,
      temperature: body.temperature,
      maxOutputTokens: body.max_output_tokens,
      mockHeader: ctx.mockHeader,
      streaming: body.stream ?? false,
      signal: ctx.signal,
    },
    engineFor(deps, ctx, model),
  );
}
