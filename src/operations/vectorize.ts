import type { SvgStreamEvent, VectorizationRequest } from '../contract/svgs.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { resolveModel } from './resolve-model.ts';
import { svgJobBase } from './svg-job.ts';
import { admitSvgJob } from './svg-run.ts';
import type { EventPipe } from '../engines/event-pipe.ts';

/** POST /v1/svgs/vectorizations: one SVG from a raster or SVG image. */
export async function vectorizeImage(deps: OperationDeps, ctx: OperationContext, body: VectorizationRequest): Promise<EventPipe<SvgStreamEvent>> {
  const model = resolveModel(deps.catalog, ctx.principal, body.model, 'svg_vectorize');
  const image = await deps.media.prepareImage(body.image, 'image');
  const job = { ...svgJobBase(ctx, model, body), operation: 'svg_vectorize' as const, image, autoCrop: body.auto_crop ?? false, targetSize: body.target_size };
  return admitSvgJob(deps, ctx, job);
}
