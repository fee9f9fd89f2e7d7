import { ApiError, asApiError, errorOfEnvelope, toEnvelope } from '../contract/errors.ts';
import { newId } from '../contract/ids.ts';
import type { SvgDocument, SvgResponse, SvgStreamEvent } from '../contract/svgs.ts';
import { wireUsage, type TokenUsage, type Usage } from '../contract/usage.ts';
import { outputsOf, type Engine, type EngineEvent, type SvgJob } from '../engines/engine.ts';
import type { AnimationReport } from '../svg/animation/measure.ts';
import { SvgParseError } from '../svg/parse.ts';
import { finishDraft, finishSvg } from '../svg/pipeline.ts';
import type { SafeSvg } from '../svg/safe-svg.ts';
import { admit, type Admitted } from './admission.ts';
import type { OperationContext, OperationDeps, OperationNotes } from './context.ts';

type ContentEvent = Extract<SvgStreamEvent, { type: 'content' }>;
type ErrorEvent = Extract<SvgStreamEvent, { type: 'error' }>;

function errorEvent(error: ApiError, requestId: string): ErrorEvent {
  return { type: 'error', ...toEnvelope(error, requestId) };
}

/**
 * Admits an SVG job (standing, limits and reservation: admit) and runs it with its billing: each
 * delivered output counted before it is sent, and however the run ends, what was delivered
 * settled and the rest released before the stream finishes. The model's own engine says what a
 * token-priced job may cost (the sandbox stands in for it on test keys, the costs stay the model's).
 */
export async function admitSvgJob(deps: OperationDeps, ctx: OperationContext, job: SvgJob, engine: Engine): Promise<AsyncGenerator<SvgStreamEvent>> {
  const tokens = job.model.entry.billing.kind === 'token_usage' ? deps.engines.engineFor(job.model).tokenBounds?.(job) : undefined;
  const admitted = await admit(deps, ctx, { model: job.model, operation: job.operation, outputs: outputsOf(job), tokens, streaming: job.streaming });
  return billedRun(job, engine, admitted, deps.engines.measureAnimation, ctx.notes);
}

async function* billedRun(
  job: SvgJob,
  engine: Engine,
  admitted: Admitted,
  measureAnimation: RunHooks['measureAnimation'],
  notes: OperationNotes | undefined,
): AsyncGenerator<SvgStreamEvent> {
  try {
    for await (const event of runSvgJob(job, engine, { delivered: (usage) => admitted.deliver(usage), measureAnimation })) {
      if (event.type === 'error') notes?.failed(event.code);
      yield event;
    }
  } finally {
    await admitted.close();
  }
}

/** What the caller of runSvgJob hears about while the job runs. */
export interface RunHooks {
  /** Called for each output about to be delivered, before its content event is yielded. */
  delivered?(usage: TokenUsage | undefined): Promise<void>;
  /**
   * Measures an animation off the event loop (the render workers): its timing, and with `render`
   * its checks and svg_score from rendered frames. Required for `svg_animate` jobs.
   */
  measureAnimation?(svg: string, render: boolean, signal: AbortSignal): Promise<AnimationReport>;
}

/**
 * Runs one SVG job on an engine and turns its events into the wire stream: output ids and
 * indexes, sanitized drafts and documents with the requested viewBox, credits or usage on each
 * content event. A failure before the first event is thrown (the caller answers with a JSON
 * error); a failure after it becomes a terminal `error` event, as does a partly failed batch.
 *
 * Animations, whatever the engine: `loop_period_ms` and `opening_animation_ms` are measured from
 * the delivered (sanitized) document, and an output in which nothing animates fails with
 * `502 model_error` (not charged). `svg_score` is the engine's own when it reports one (a `score`
 * event: engines whose output is correct by construction, such as the sandbox, score it without
 * rendering); otherwise frames are rendered and checked, and an output whose frames do not differ
 * fails the same way.
 */
export async function* runSvgJob(job: SvgJob, engine: Engine, hooks: RunHooks = {}): AsyncGenerator<SvgStreamEvent> {
  const outputs = outputsOf(job);
  const outputIds = Array.from({ length: outputs }, () => newId('svgOutput'));
  const indexed = outputs > 1;
  const credits = job.model.creditsFor(job.operation);
  const where = (index: number) => ({ id: outputIds[index]!, ...(indexed ? { index } : {}) });
  const failures: ApiError[] = [];
  let svgScore: number | null | undefined;
  let started = false;
  let delivered = 0;

  const translate = (event: EngineEvent): SvgStreamEvent | undefined => {
    switch (event.type) {
      case 'generating':
        return { type: 'generating', ...where(event.index), ...(event.text ? { text: event.text } : {}) };
      case 'reasoning':
        return { type: 'reasoning', ...where(event.index), text: event.text };
      case 'draft': {
        // A JSON client never sees a preview: making one safe would be work for nobody.
        if (!job.streaming) return undefined;
        // Every draft is a whole document (a snapshot): it renders as sent, with no fix-up.
        const svg = event.svg ?? finishDraft(event.markup, job.viewBox);
        return svg === undefined ? undefined : { type: 'draft', ...where(event.index), svg, update_type: 'snapshot' };
      }
      case 'content': {
        let svg: SafeSvg;
        try {
          svg = event.svg ?? finishSvg(event.markup, job.viewBox);
        } catch (error) {
          if (!(error instanceof SvgParseError)) throw error;
          failures.push(new ApiError('model_error', { message: `The model returned an unusable SVG: ${error.message}` }));
          return undefined;
        }
        delivered++;
        const content: ContentEvent = { type: 'content', ...where(event.index), svg };
        if (credits !== undefined) content.credits = credits;
        else if (event.usage) content.usage = wireUsage(event.usage);
        if (event.loopPeriodMs !== undefined) content.loop_period_ms = event.loopPeriodMs;
        if (event.openingAnimationMs !== undefined) content.opening_animation_ms = event.openingAnimationMs;
        if (svgScore !== undefined) content.svg_score = svgScore;
        return content;
      }
      case 'failed':
        failures.push(event.error);
        return undefined;
      case 'score':
        svgScore = event.svgScore;
        return undefined;
    }
  };

  /** An animation's content event: measured, checked and scored before it is delivered. */
  const animation = async (event: Extract<EngineEvent, { type: 'content' }>): Promise<SvgStreamEvent | undefined> => {
    const content = translate(event) as ContentEvent | undefined;
    if (!content) return undefined;
    if (!hooks.measureAnimation) throw new Error('runSvgJob needs hooks.measureAnimation for svg_animate jobs');
    const engineScore = svgScore;
    let report: AnimationReport;
    try {
      report = await hooks.measureAnimation(content.svg, engineScore === undefined, job.signal);
    } catch (error) {
      if (job.signal.aborted) throw error;
      delivered--;
      failures.push(asApiError(error));
      return undefined;
    }
    const refuse = (message: string) => {
      delivered--;
      failures.push(new ApiError('model_error', { message }));
      return undefined;
    };
    if (!report.animated) return refuse('The animation does not move: the SVG has no CSS or SMIL animation that runs by itself.');
    if (report.checks && !report.checks.renders) return refuse('The animation could not be rendered.');
    if (report.checks && !report.checks.moves) return refuse('The animation does not move: its frames sampled over the opening and the loop are all the same.');
    content.loop_period_ms = report.loopPeriodMs;
    content.opening_animation_ms = report.openingAnimationMs;
    content.svg_score = engineScore ?? report.score ?? null;
    return content;
  };

  try {
    for await (const event of engine.runSvg(job)) {
      const wire = event.type === 'content' && job.operation === 'svg_animate' ? await animation(event) : translate(event);
      if (!wire) continue;
      if (wire.type === 'content') await hooks.delivered?.(event.type === 'content' ? event.usage : undefined);
      started = true;
      yield wire;
    }
  } catch (error) {
    // The client left: nobody to tell; the abort ends the run as it is.
    if (job.signal.aborted) throw error;
    const apiError = asApiError(error);
    if (!started) throw apiError;
    failures.push(apiError);
  }
  if (failures.length > 0) {
    if (delivered === 0 && !started) throw failures[0]!;
    const first = failures[0]!;
    const failed = outputs - delivered;
    const error =
      delivered > 0 && outputs > 1
        ? new ApiError(first.code, {
            status: first.status,
            message: `${failed} of ${outputs} outputs failed: ${first.message}`,
            retryAfter: first.retryAfter,
          })
        : first;
    yield errorEvent(error, job.requestId);
  }
}

/**
 * Consumes a wire stream into the non-streaming SvgResponse. A batch that delivered some
 * documents answers 200 with fewer than n; one that delivered none answers with the error.
 */
export async function collectSvgResponse(events: AsyncIterable<SvgStreamEvent>, withScore: boolean): Promise<SvgResponse> {
  const documents: { index: number; document: SvgDocument }[] = [];
  let credits: number | undefined;
  let usage: Usage | undefined;
  let svgScore: number | null | undefined;
  let failure: ErrorEvent | undefined;
  for await (const event of events) {
    if (event.type === 'error') failure = event as ErrorEvent;
    if (event.type !== 'content') continue;
    if (event.svg_score !== undefined) svgScore = event.svg_score;
    const document: SvgDocument = { mime_type: 'image/svg+xml', svg: event.svg };
    if (event.loop_period_ms !== undefined) document.loop_period_ms = event.loop_period_ms;
    if (event.opening_animation_ms !== undefined) document.opening_animation_ms = event.opening_animation_ms;
    documents.push({ index: event.index ?? 0, document });
    if (event.credits !== undefined) credits = (credits ?? 0) + event.credits;
    if (event.usage) {
      usage = {
        input_tokens: (usage?.input_tokens ?? 0) + event.usage.input_tokens,
        output_tokens: (usage?.output_tokens ?? 0) + event.usage.output_tokens,
        total_tokens: (usage?.total_tokens ?? 0) + event.usage.total_tokens,
      };
    }
  }
  if (documents.length === 0) {
    if (!failure) throw new ApiError('model_error', { message: 'The model produced no output.' });
    throw errorOfEnvelope(failure);
  }
  documents.sort((a, b) => a.index - b.index);
  const response: SvgResponse = {
    id: newId('svgResponse'),
    created: Math.floor(Date.now() / 1000),
    data: documents.map((d) => d.document),
  };
  if (credits !== undefined) response.credits = credits;
  if (usage) response.usage = usage;
  if (withScore) response.svg_score = svgScore ?? null;
  return response;
}
