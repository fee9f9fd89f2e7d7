import type { SafeSvg } from '../../svg/safe-svg.ts';
import { ConfigError } from '../../config/load.ts';
import type { CatalogEntry } from '../../config/schema.ts';
import { ApiError } from '../../contract/errors.ts';
import type { ImageRef } from '../../media/inputs.ts';
import type { MediaInputs } from '../../media/inputs.ts';
import { formatViewBox } from '../../svg/attributes.ts';
import { modelSvgVerdict, type ModelAnswer } from '../../svg/model-output.ts';
import { parseSvg } from '../../svg/parse.ts';
import type { TokenUsage } from '../../contract/usage.ts';
import { outputsOf, REVIEW_OUTPUT_TOKENS, type Engine, type EngineEvent, type SvgJob } from '../engine.ts';
import { runCall, type CallContext, type CallEvent, type CallResult, type ChatMessage } from './completion.ts';
import { EventChannel } from '../event-channel.ts';
import type { EventPipe } from '../event-pipe.ts';
import { parseOptions, type OpenAiCompatibleOptions } from './options.ts';
import { maxAttemptsOf } from '../upstream/options.ts';
import { prepareAnimation } from './animate.ts';
import { EDIT_SYSTEM_PROMPT, editUserPrompt, GENERATE_SYSTEM_PROMPT, generateUserPrompt, systemPrompt } from './prompts.ts';
import { runResponses } from './responses/run.ts';
import { reviewEdit } from './review.ts';
import type { SvgRenderer } from './renderer.ts';
import { localUsage, outputBudget, supportedSampling, type CountTokens } from './budget.ts';
import { responsesTokenBounds, svgTokenBounds } from './cost.ts';
import type { UpstreamSet } from '../upstream/routing/upstream-set.ts';
import { buildUpstreamSet, type ServerServices } from '../upstream/servers.ts';
import { CallDeadline, jobSignal } from '../upstream/call.ts';

/** What the engine needs from the rest of the service. */
export interface OpenAiCompatibleServices extends ServerServices {
  media: MediaInputs;
  /** A checked image as a data: URL a vision model takes, at most `maxSide` pixels a side. */
  referenceImage(ref: ImageRef, maxSide: number, signal: AbortSignal): Promise<string>;
  /** Renders sanitized SVG off the event loop: whether it shows anything, and a PNG for review. */
  renderer: SvgRenderer;
}

/** The viewBox asked for when a request names none. */
const DEFAULT_VIEWBOX = '0 0 512 512';
/**
 * Answers up to this many characters are finished on the event loop (a few milliseconds);
 * longer ones in the render workers, where a megabyte of markup costs no other request anything.
 */
const INLINE_ANSWER_CHARS = 64 * 1024;

/**
 * Generations and edits on any OpenAI-compatible chat server (vLLM, SGLang, llama.cpp server,
 * Ollama, LM Studio, hosted providers). Each output is one streamed completion, n of them in
 * parallel within the entry's max_concurrency; the answer goes through the model-output SVG
 * pipeline and is rendered to check that it shows something before it is delivered.
 */
export function createOpenAiCompatibleEngine(entry: CatalogEntry, services: OpenAiCompatibleServices): Engine {
  const options = parseOptions(entry);
  if (entry.input_modalities && entry.input_modalities.includes('image') !== options.vision) {
    throw new ConfigError(`Model ${entry.id}: options.vision is ${options.vision}, but input_modalities ${options.vision ? 'does not list' : 'lists'} image; make them agree.`);
  }
  const upstreams = buildUpstreamSet(
    entry,
    options,
    { idleTimeoutMs: options.idle_timeout_ms ?? options.first_token_timeout_ms, maxOutputBytes: options.max_output_bytes },
    services,
  );
  const engine = new OpenAiCompatibleEngine(entry, options, upstreams, services);
  return {
    runSvg: (job) => engine.run(job),
    tokenBounds: (job) => svgTokenBounds(job, entry, options),
    responsesTokenBounds: (request, images) => responsesTokenBounds(request, images, entry, options),
    // POST /v1/responses: translated to Chat Completions, or passed through (options.responses_api).
    respond: (job) =>
      runResponses(
        {
          entry,
          options,
          upstreams,
          maxAttempts: maxAttemptsOf(options, upstreams.size),
          referenceImage: services.referenceImage,
          countTokens: (texts, signal) => services.renderer.countTokens(texts, signal),
        },
        job,
      ),
    upstreams: () => upstreams.status(),
    close: () => upstreams.close(),
  };
}

class OpenAiCompatibleEngine {
  constructor(
    private readonly entry: CatalogEntry,
    private readonly options: OpenAiCompatibleOptions,
    private readonly upstreams: UpstreamSet,
    private readonly services: OpenAiCompatibleServices,
  ) {
    this.maxAttempts = maxAttemptsOf(options, upstreams.size);
  }

  private readonly maxAttempts: number;

  run(job: SvgJob): EventPipe<EngineEvent> {
    const outputs = outputsOf(job);
    const channel = new EventChannel<EngineEvent>(outputs);
    let close: (() => void) | undefined;
    const start = async () => {
      if (job.operation === 'svg_vectorize') {
        throw new ApiError('model_unavailable', { message: `The model '${this.entry.id}' cannot run ${job.operation} yet.` });
      }
      const { signal, close: closeSignal } = jobSignal(job.signal);
      close = closeSignal;
      // Inputs first: a reference that cannot be fetched is a plain 400 before any model work.
      const prepared = await this.prepare(job, signal);
      for (let index = 0; index < outputs; index++) {
        this.produce(job, index, prepared, signal, (event) => channel.push(event)).then(
          () => channel.done(),
          (error: unknown) => {
            if (error instanceof ApiError) {
              channel.push({ type: 'failed', index, error });
              channel.done();
            } else {
              channel.done(error);
            }
          },
        );
      }
    };
    // The client left, or the batch ended: no upstream call outlives the request.
    return channel.events(start, () => close?.());
  }

  /**
   * One output: a completion (and, for edits, its review rounds), then the SVG pipeline. Each call
   * holds a server (a place in its max_concurrency) only while it runs.
   */
  private async produce(job: SvgJob, index: number, prepared: Prepared, signal: AbortSignal, emit: (event: EngineEvent) => void): Promise<void> {
    const metered = new Meter(this.options, (texts) => this.services.renderer.countTokens(texts, signal));
    const { messages, viewBox } = prepared;
    let announced = false;
    const onEvent = (event: CallEvent) => {
      if (event.type !== 'accepted') return emit(event);
      if (!announced) emit({ type: 'generating', index });
      announced = true;
    };
    const context = this.callContext(signal, job.streaming);
    const drafts = job.streaming ? { fallbackViewBox: viewBox, viewBox: job.viewBox } : undefined;
    const maxTokens = this.outputBudget(job.maxOutputTokens);
    const result = await runCall(context, { index, messages, maxTokens, sampling: this.sampling(job, job.temperature), drafts }, onEvent);
    await metered.add(messages, result);
    let svg = await this.deliverable(result, viewBox, job, signal);
    if (job.operation === 'svg_edit' && job.maxReviewSteps > 0 && this.options.vision) {
      svg = await reviewEdit({
        instruction: job.prompt,
        svg,
        steps: job.maxReviewSteps,
        renderer: this.services.renderer,
        signal,
        review: async (reviewMessages) => {
          const reviewed = await runCall(context, { index, messages: reviewMessages, maxTokens: this.outputBudget(job.settings.orchestratorMaxOutputTokens ?? REVIEW_OUTPUT_TOKENS), sampling: this.sampling(job, 0) }, () => undefined);
          await metered.add(reviewMessages, reviewed);
          return reviewed.text;
        },
        redo: async (redoMessages) => {
          const redone = await runCall(
            context,
            { index, messages: redoMessages, maxTokens: this.outputBudget(job.settings.shallowMaxOutputTokens ?? job.maxOutputTokens), sampling: this.sampling(job, job.temperature), drafts },
            onEvent,
          );
          await metered.add(redoMessages, redone);
          return this.deliverable(redone, viewBox, job, signal);
        },
        status: (text) => emit({ type: 'generating', index, text }),
      });
    }
    emit({ type: 'content', index, svg, usage: metered.total() });
  }

  /** A client that does not stream sees no drafts or reasoning: the upstream answers in one piece then. */
  private callContext(signal: AbortSignal, streaming: boolean): CallContext {
    return {
      stream: streaming,
      policy: {
        signal,
        upstreams: this.upstreams,
        maxAttempts: this.maxAttempts,
        deadline: new CallDeadline(this.options.total_timeout_ms),
        streamOptions: streaming,
      },
      extraBody: this.options.extra_body,
      firstTokenTimeoutMs: this.options.first_token_timeout_ms,
    };
  }

  /** The output cap asked for (or the entry's), plus the reasoning budget of a reasoning model. */
  private outputBudget(requested: number | null | undefined): number {
    return outputBudget(this.entry, this.options, requested);
  }

  /** Sampling fields the entry lists as supported; reasoning_effort for reasoning models. */
  private sampling(job: SvgJob, temperature: number | null | undefined): Record<string, number | string> {
    const sampling: Record<string, number | string> = supportedSampling(this.entry, { temperature, top_p: job.topP, presence_penalty: job.presencePenalty });
    if (this.options.reasoning && job.reasoningEffort) sampling.reasoning_effort = job.reasoningEffort;
    return sampling;
  }

  /** The messages of the first call, and the viewBox the answer should have. */
  private async prepare(job: SvgJob, signal: AbortSignal): Promise<Prepared> {
    if (job.operation === 'svg_generate') {
      const images = await this.images(job.references, signal);
      const viewBox = job.viewBox ? formatViewBox(job.viewBox) : DEFAULT_VIEWBOX;
      return {
        viewBox,
        messages: [
          { role: 'system', content: systemPrompt(GENERATE_SYSTEM_PROMPT, viewBox) },
          { role: 'user', content: withImages(generateUserPrompt(job.prompt, job.instructions, images.length), images) },
        ],
      };
    }
    if (job.operation === 'svg_animate') return prepareAnimation(job, this.services.media, DEFAULT_VIEWBOX, signal);
    if (job.operation !== 'svg_edit') throw new Error('unreachable');
    const [source, images] = await Promise.all([this.services.media.loadSvg(job.source, signal), this.images(job.referenceImages, signal)]);
    const viewBox = job.viewBox ? formatViewBox(job.viewBox) : (parseSvg(source).attributes.get('viewBox') ?? DEFAULT_VIEWBOX);
    return {
      viewBox,
      messages: [
        { role: 'system', content: EDIT_SYSTEM_PROMPT },
        { role: 'user', content: withImages(editUserPrompt(job.prompt, source, images.length), images) },
      ],
    };
  }

  private images(refs: ImageRef[], signal: AbortSignal): Promise<string[]> {
    return Promise.all(refs.map((ref) => this.services.referenceImage(ref, this.options.reference_max_side, signal)));
  }

  /**
   * The answer's SVG through the model-output pipeline, finished for delivery (sanitized, the
   * request's viewBox applied), and shown to draw something: a refusal, nothing usable or a
   * blank fails the output. A large answer is finished in the render workers, so no answer
   * holds the event loop for long.
   */
  private async deliverable(result: CallResult, viewBox: string, job: SvgJob, signal: AbortSignal): Promise<SafeSvg> {
    if (result.refusal || result.finishReason === 'content_filter') {
      throw new ApiError('content_policy_violation', { message: 'The model declined this request under its content policy.' });
    }
    const answer: ModelAnswer = { text: result.text, truncated: result.finishReason === 'length', fallbackViewBox: viewBox, viewBox: job.viewBox };
    const renderer = this.services.renderer;
    const verdict = answer.text.length > INLINE_ANSWER_CHARS ? await renderer.modelSvg(answer, signal) : modelSvgVerdict(answer.text, answer);
    if ('refused' in verdict) {
      const cut = answer.truncated ? ' (the answer hit its token limit)' : '';
      throw new ApiError('model_error', { message: `The model returned no usable SVG${cut}: ${verdict.refused}` });
    }
    // Rendering decides only when the structure cannot tell.
    if (!(verdict.visible ?? (await renderer.isVisible(verdict.svg, signal)))) {
      throw new ApiError('model_error', { message: 'The model returned an SVG that shows nothing.' });
    }
    return verdict.svg;
  }
}

interface Prepared {
  messages: ChatMessage[];
  /** The viewBox asked for (or the source's, for an edit): the answer's when it writes none. */
  viewBox: string;
}

function withImages(text: string, images: string[]): ChatMessage['content'] {
  if (images.length === 0) return text;
  return [{ type: 'text', text }, ...images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))];
}

/**
 * Usage over every upstream call of one output. A server that reports none is counted locally
 * (budget.ts), so real work is never settled as zero.
 */
class Meter {
  private usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 };

  constructor(
    private readonly options: OpenAiCompatibleOptions,
    /** Tokens in texts, counted off the event loop. */
    private readonly countTokens: CountTokens,
  ) {}

  async add(messages: ChatMessage[], result: CallResult): Promise<void> {
    const counted = result.usage ?? (await localUsage(this.countTokens, this.options, promptOf(messages), [result.text, result.reasoning]));
    this.usage.inputTokens += counted.promptTokens;
    this.usage.outputTokens += counted.completionTokens;
    this.usage.cachedInputTokens += Math.min(counted.cachedTokens, counted.promptTokens);
  }

  total(): TokenUsage {
    return { ...this.usage };
  }
}

/** The texts and the number of images of a call's messages. */
function promptOf(messages: ChatMessage[]): { texts: string[]; images: number } {
  const texts: string[] = [];
  let images = 0;
  for (const message of messages) {
    if (typeof message.content === 'string') texts.push(message.content);
    else for (const part of message.content) part.type === 'text' ? texts.push(part.text) : images++;
  }
  return { texts, images };
}
