import type { AnimationRequest, SvgStreamEvent } from '../contract/svgs.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { resolveModel } from './resolve-model.ts';
import { svgJobBase } from './svg-job.ts';
import { admitSvgJob } from './svg-run.ts';
import type { EventPipe } from '../engines/event-pipe.ts';

/** POST /v1/svgs/animations: the supplied SVG, animated. */
export async function animateSvg(deps: OperationDeps, ctx: OperationContext, body: AnimationRequest): Promise<EventPipe<SvgStreamEvent>> {
  const model = resolveModel(deps.catalog, ctx.principal, body.model, 'svg_animate');
  const source = deps.media.prepareSvg(undefined, body.svg_source, 'svg_source');
  const job = { ...svgJobBase(ctx, model, body), operation: 'svg_animate' as const, prompt: body.prompt, source };
  return admitSvgJob(deps, ctx, job);
}
