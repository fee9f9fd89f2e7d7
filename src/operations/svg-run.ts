import { ApiError, asApiError, errorOfEnvelope, toEnvelope } from '../contract/errors.ts';
import { newId } from '../contract/ids.ts';
import type { SvgDocument, SvgResponse, SvgStreamEvent } from '../contract/svgs.ts';
import { wireUsage, type TokenUsage, type Usage } from '../contract/usage.ts';
import { outputsOf, type Engine, type EngineEvent, type SvgJob } from '../engines/engine.ts';
import { EventPipe, type EventSink } from '../engines/event-pipe.ts';
import type { AnimationReport } from '../svg/animation/measure.ts';
import { SvgParseError } from '../svg/parse.ts';
import { finishDraft, finishSvg } from '../svg/pipeline.ts';
import type { SafeSvg } from '../svg/safe-svg.ts';
import { admit } from './admission.ts';
import type { OperationContext, OperationDeps } from './context.ts';
import { engineFor } from './engine-for.ts';
import { servedInOrder, servingOrder, type AdmittedRun } from './fallbacks.ts';

type ContentEvent = Extract<SvgStreamEvent, { type: 'content' }>;
type ErrorEvent = Extract<SvgStreamEvent, { type: 'error' }>;
type ContentOf<E> = Extract<E, { type: 'content' }>;
type DraftOf<E> = Extract<E, { type: 'draft' }>;

function errorEvent(error: ApiError, requestId: string): ErrorEvent {
  return { type: 'error', ...toEnvelope(error, requestId) };
}

/**
 * Admits an SVG job (standing, limits and reservation: admit) and runs it with its billing: each
 * delivered output counted before it is sent, and however the run ends, what was delivered
 * settled and the rest released before the stream finishes. The model's own engine says what a
 * token-priced job may cost (the sandbox stands in for it on test keys, the costs stay the model's).
 * A model that cannot serve (503 before any output) hands the job to its fallbacks (fallbacks.ts).
 */
export async function admitSvgJob(deps: OperationDeps, ctx: OperationContext, job: SvgJob): Promise<EventPipe<SvgStreamEvent>> {
  const order = servingOrder(deps, ctx, job.model, { operation: job.operation, images: imagesOf(job), references: job.operation === 'svg_generate' ? job.references.length : 0 });
  if (order.length === 1) {
    const { events } = await admitOn(deps, ctx, job);
    ctx.served?.(job.model.entry.id);
    return events;
  }
  // The first entry's admission comes first, as without fallbacks: a 402 or 429 is answered before any model work.
  const first = await admitOn(deps, ctx, job);
  return servedInOrder(ctx, order, (model) => (model === job.model ? Promise.resolve(first) : admitOn(deps, ctx, { ...job, model })), (event: SvgStreamEvent, events) => {
    events.unshift(event);
    return events;
  });
}

/** The job admitted and run on its model's engine (the sandbox for a test key). */
async function admitOn(deps: OperationDeps, ctx: OperationContext, job: SvgJob): Promise<AdmittedRun<EventPipe<SvgStreamEvent>>> {
  const tokens = job.model.entry.billing.kind === 'token_usage' ? deps.engines.engineFor(job.model).tokenBounds?.(job) : undefined;
  const admitted = await admit(deps, ctx, { model: job.model, operation: job.operation, outputs: outputsOf(job), tokens, streaming: job.streaming });
  // Billing rides on the run's own hooks rather than a generator around it: every generator an
  // event passes through costs a promise and a step, which a stream held open for a minute promotes.
  const events = runSvgJob(job, engineFor(deps, ctx, job.model), {
    delivered: (usage) => admitted.deliver(usage),
    measureAnimation: deps.engines.measureAnimation,
    failed: (code) => ctx.notes?.failed(code),
    ended: () => admitted.close(),
  });
  return { events, admitted };
}

/** Images the job sends its model: references of a generation, reference images of an edit. */
function imagesOf(job: SvgJob): number {
  if (job.operation === 'svg_generate') return job.references.length;
  if (job.operation === 'svg_edit') return job.referenceImages.length;
  return job.operation === 'svg_vectorize' ? 1 : 0;
}

/** What the caller of runSvgJob hears about while the job runs. */
export interface RunHooks {
  /** Called for each output about to be delivered, before its content event is handed on. */
  delivered?(usage: TokenUsage | undefined): Promise<void>;
  /**
   * Measures an animation off the event loop (the render workers): its timing, and with `render`
   * its checks and svg_score from rendered frames. Required for `svg_animate` jobs.
   */
  measureAnimation?(svg: string, render: boolean, signal: AbortSignal): Promise<AnimationReport>;
  /** Told the code of the `error` event that closes a run with failures. */
  failed?(code: string): void;
  /**
   * Runs once the run is over, however it ended (a failure, the consumer leaving), before the
   * stream finishes: what was delivered is settled and the rest released here.
   */
  ended?(): Promise<void>;
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
 *
 * The stream is pulled or pushed (EventPipe). An engine whose run can push (its EventChannel)
 * pushes its events through here to the consumer as they come, so a stream waiting for a model's
 * next token holds no promise at any layer; other engines are pulled here and pushed on.
 */
export function runSvgJob(job: SvgJob, engine: Engine, hooks: RunHooks = {}): EventPipe<SvgStreamEvent> {
  return new SvgRun(job, engine, hooks).events;
}

/** One job's run: the engine's events in, the wire events out, in order. */
class SvgRun implements EventSink<EngineEvent> {
  readonly events: EventPipe<SvgStreamEvent>;
  private readonly wire: WireOutputs;
  private source: AsyncIterator<EngineEvent> | undefined;
  /** A wire event went out: a failure from here on is an `error` event, not a thrown error. */
  private started = false;
  private readonly backlog: EngineEvent[] = [];
  /** How the engine's events ended, once they have (handled after the backlog). */
  private sourceEnd: { error?: unknown } | undefined;
  /** Closing (the end handled, or the consumer left): nothing more goes out. */
  private over = false;
  private settled: Promise<void> | undefined;
  /** A content event being delivered (counted, an animation measured): the events after it wait. */
  private delivering: Promise<void> | undefined;

  constructor(
    private readonly job: SvgJob,
    private readonly engine: Engine,
    private readonly hooks: RunHooks,
  ) {
    this.wire = new WireOutputs(job, hooks);
    this.events = new EventPipe({ begin: () => this.begin(), left: () => this.leave() });
  }

  event(event: EngineEvent): void {
    if (this.over || this.sourceEnd) return;
    if (this.delivering) this.backlog.push(event);
    else this.take(event);
  }

  end(error?: unknown): void {
    if (this.over || this.sourceEnd) return;
    this.sourceEnd = error === undefined ? {} : { error };
    if (!this.delivering) void this.close();
  }

  private begin(): void {
    let source: AsyncIterator<EngineEvent>;
    try {
      source = this.engine.runSvg(this.job)[Symbol.asyncIterator]();
    } catch (error) {
      return this.end(error);
    }
    this.source = source;
    if (source instanceof EventPipe) source.listen(this);
    else void this.pump(source);
  }

  /**
   * An engine that only yields: each event pulled and taken as if pushed. A content event's
   * delivery is waited for before the next pull, as the engine waited for its consumer before.
   */
  private async pump(source: AsyncIterator<EngineEvent>): Promise<void> {
    // The result is let go before each wait, and its event taken out of it (the promise that
    // brought it is old by then, and an old object keeps what it reaches through every scavenge).
    let step: IteratorResult<EngineEvent> | undefined;
    try {
      while (!this.over) {
        step = await source.next();
        if (step.done) break;
        this.event(step.value);
        (step as { value: unknown }).value = undefined;
        step = undefined;
        if (this.delivering) await this.delivering;
      }
    } catch (error) {
      return this.end(error);
    }
    this.end();
  }

  private take(event: EngineEvent): void {
    if (event.type === 'content') {
      this.delivering = this.deliver(event);
      return;
    }
    let out: SvgStreamEvent | undefined;
    try {
      out = this.wire.translate(event);
    } catch (error) {
      return this.fail(error);
    }
    if (out) this.emit(out);
  }

  private emit(out: SvgStreamEvent): void {
    this.started = true;
    this.events.push(out);
  }

  /** A content event made ready and counted, then what waited behind it, then the end if it came. */
  private async deliver(event: ContentOf<EngineEvent>): Promise<void> {
    try {
      const out = await this.wire.delivering(event);
      if (out && !this.over) this.emit(out);
    } catch (error) {
      this.fail(error);
    }
    this.delivering = undefined;
    while (!this.delivering && this.backlog.length > 0) this.take(this.backlog.shift()!);
    if (!this.delivering && this.sourceEnd && !this.over) await this.close();
  }

  /** A failure here (counting a delivery, making a wire event): the engine is stopped, the run ends with it. */
  private fail(error: unknown): void {
    this.backlog.length = 0;
    this.sourceEnd ??= { error };
    this.source?.return?.()?.catch(() => undefined);
    if (!this.delivering) void this.close();
  }

  /** The engine's events are over: the closing `error` event if outputs failed, billing settled, then the end. */
  private async close(): Promise<void> {
    if (this.over) return;
    this.over = true;
    const error = this.sourceEnd?.error;
    let failure: unknown;
    try {
      failure = this.closingFailure(error);
    } catch (closing) {
      failure = closing;
    }
    try {
      await this.settle();
    } catch (settling) {
      failure ??= settling;
    }
    this.events.finish(failure);
  }

  /** What the run's end is: a failure to throw (before any event), or none, after a closing `error` event if outputs failed. */
  private closingFailure(error: unknown): unknown {
    let failure: unknown;
    if (error !== undefined) {
      // The client left: nobody to tell; the abort ends the run as it is.
      if (this.job.signal.aborted) failure = error;
      else if (!this.started) failure = asApiError(error);
      else this.wire.failures.push(asApiError(error));
    }
    if (failure === undefined && this.wire.failures.length > 0) {
      if (this.wire.delivered === 0 && !this.started) failure = this.wire.failures[0]!;
      else {
        const closing = this.wire.closingError();
        this.hooks.failed?.(closing.code);
        this.events.push(errorEvent(closing, this.job.requestId));
      }
    }
    return failure;
  }

  /** The consumer left: the engine stopped, a delivery under way finished, then billing settled. */
  private async leave(): Promise<void> {
    this.over = true;
    this.backlog.length = 0;
    await this.source?.return?.();
    await this.delivering;
    await this.settle();
  }

  /** What was delivered is settled and the rest released, once, however the run ended. */
  private settle(): Promise<void> {
    this.settled ??= (async () => this.hooks.ended?.())();
    return this.settled;
  }
}

/** One run's engine events made wire events: ids and indexes, finished documents, what failed. */
class WireOutputs {
  /** Why outputs failed, in order: the first one names the run's closing error. */
  readonly failures: ApiError[] = [];
  delivered = 0;
  private readonly outputs: number;
  private readonly outputIds: string[];
  private readonly credits: number | undefined;
  /** An animation engine's own svg_score (a `score` event), carried onto the content that follows. */
  private svgScore: number | null | undefined;

  constructor(
    private readonly job: SvgJob,
    private readonly hooks: RunHooks,
  ) {
    this.outputs = outputsOf(job);
    this.outputIds = Array.from({ length: this.outputs }, () => newId('svgOutput'));
    this.credits = job.model.creditsFor(job.operation);
  }

  translate(event: EngineEvent): SvgStreamEvent | undefined {
    switch (event.type) {
      case 'generating':
        return { type: 'generating', ...this.where(event.index), ...(event.text ? { text: event.text } : {}) };
      case 'reasoning':
        return { type: 'reasoning', ...this.where(event.index), text: event.text };
      case 'draft':
        return this.draft(event);
      case 'content':
        return this.content(event);
      case 'failed':
        this.failures.push(event.error);
        return undefined;
      case 'score':
        this.svgScore = event.svgScore;
        return undefined;
    }
  }

  /** A content event made ready (an animation measured and checked first) and counted as delivered, or undefined if it failed. */
  async delivering(event: ContentOf<EngineEvent>): Promise<SvgStreamEvent | undefined> {
    const out = this.job.operation === 'svg_animate' ? await this.animation(event) : this.content(event);
    if (out) await this.hooks.delivered?.(event.usage);
    return out;
  }

  /** An animation's content event: measured, checked and scored before it is delivered. */
  async animation(event: ContentOf<EngineEvent>): Promise<SvgStreamEvent | undefined> {
    const content = this.content(event);
    if (!content) return undefined;
    if (!this.hooks.measureAnimation) throw new Error('runSvgJob needs hooks.measureAnimation for svg_animate jobs');
    const engineScore = this.svgScore;
    let report: AnimationReport;
    try {
      report = await this.hooks.measureAnimation(content.svg, engineScore === undefined, this.job.signal);
    } catch (error) {
      if (this.job.signal.aborted) throw error;
      return this.takeBack(asApiError(error));
    }
    const refuse = (message: string) => this.takeBack(new ApiError('model_error', { message }));
    if (!report.animated) return refuse('The animation does not move: the SVG has no CSS or SMIL animation that runs by itself.');
    if (report.checks && !report.checks.renders) return refuse('The animation could not be rendered.');
    if (report.checks && !report.checks.moves) return refuse('The animation does not move: its frames sampled over the opening and the loop are all the same.');
    content.loop_period_ms = report.loopPeriodMs;
    content.opening_animation_ms = report.openingAnimationMs;
    content.svg_score = engineScore ?? report.score ?? null;
    return content;
  }

  /** The terminal error of a run with failures: a partly failed batch says how many of n failed. */
  closingError(): ApiError {
    const first = this.failures[0]!;
    if (this.delivered === 0 || this.outputs === 1) return first;
    const message = `${this.outputs - this.delivered} of ${this.outputs} outputs failed: ${first.message}`;
    return new ApiError(first.code, { status: first.status, message, retryAfter: first.retryAfter });
  }

  private where(index: number) {
    return { id: this.outputIds[index]!, ...(this.outputs > 1 ? { index } : {}) };
  }

  private draft(event: DraftOf<EngineEvent>): SvgStreamEvent | undefined {
    // A JSON client never sees a preview: making one safe would be work for nobody.
    if (!this.job.streaming) return undefined;
    // Every draft is a whole document (a snapshot): it renders as sent, with no fix-up.
    const svg = event.svg ?? finishDraft(event.markup, this.job.viewBox);
    return svg === undefined ? undefined : { type: 'draft', ...this.where(event.index), svg, update_type: 'snapshot' };
  }

  private content(event: ContentOf<EngineEvent>): ContentEvent | undefined {
    let svg: SafeSvg;
    try {
      svg = event.svg ?? finishSvg(event.markup, this.job.viewBox);
    } catch (error) {
      if (!(error instanceof SvgParseError)) throw error;
      this.failures.push(new ApiError('model_error', { message: `The model returned an unusable SVG: ${error.message}` }));
      return undefined;
    }
    this.delivered++;
    const content: ContentEvent = { type: 'content', ...this.where(event.index), svg };
    if (this.credits !== undefined) content.credits = this.credits;
    else if (event.usage) content.usage = wireUsage(event.usage);
    if (event.loopPeriodMs !== undefined) content.loop_period_ms = event.loopPeriodMs;
    if (event.openingAnimationMs !== undefined) content.opening_animation_ms = event.openingAnimationMs;
    if (this.svgScore !== undefined) content.svg_score = this.svgScore;
    return content;
  }

  /** An output counted as delivered that a later check refused: not delivered after all. */
  private takeBack(error: ApiError): undefined {
    this.delivered--;
    this.failures.push(error);
    return undefined;
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
