import { ApiError } from '../contract/errors.ts';
import type { GenerationRequest } from '../contract/svgs.ts';
import type { SvgStreamEvent } from '../contract/svgs.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { assertTakesImages, resolveModel } from './resolve-model.ts';
import { svgJobBase } from './svg-job.ts';
import { admitSvgJob } from './svg-run.ts';
import type { EventPipe } from '../engines/event-pipe.ts';

/** POST /v1/svgs/generations: n documents from a prompt and optional references. */
export async function generateSvgs(deps: OperationDeps, ctx: OperationContext, body: GenerationRequest): Promise<EventPipe<SvgStreamEvent>> {
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
  const job = { ...svgJobBase(ctx, model, body), operation: 'svg_generate' as const, prompt: body.prompt, instructions: body.instructions, references, outputs: body.n ?? 1 };
  return admitSvgJob(deps, ctx, job);
}
