import type { EditRequest, SvgStreamEvent } from '../contract/svgs.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { assertTakesImages, resolveModel } from './resolve-model.ts';
import { svgJobBase } from './svg-job.ts';
import { admitSvgJob } from './svg-run.ts';
import type { EventPipe } from '../engines/event-pipe.ts';

/** POST /v1/svgs/edits: the supplied SVG changed as the instruction says. */
export async function editSvg(deps: OperationDeps, ctx: OperationContext, body: EditRequest): Promise<EventPipe<SvgStreamEvent>> {
  const model = resolveModel(deps.catalog, ctx.principal, body.model, 'svg_edit');
  const source = deps.media.prepareSvg(body.svg, body.svg_source, 'svg_source');
  assertTakesImages(model, body.reference_images?.length ?? 0, 'reference_images');
  const referenceImages = await Promise.all(
    (body.reference_images ?? []).map((input, i) => deps.media.prepareImage(input, `reference_images[${i}]`)),
  );
  const settings = body.settings ?? {};
  const job = {
    // An edit's output cap and temperature are among its `settings`.
    ...svgJobBase(ctx, model, body, { stream: body.stream, reasoning_effort: body.reasoning_effort, ...settings }),
    operation: 'svg_edit' as const,
    prompt: body.prompt,
    source,
    referenceImages,
    maxReviewSteps: body.max_review_steps ?? 0,
    settings: { orchestratorMaxOutputTokens: settings.orchestrator_max_output_tokens, shallowMaxOutputTokens: settings.shallow_max_output_tokens },
  };
  return admitSvgJob(deps, ctx, job);
}
