import { ConfigError } from '../../config/load.ts';
import type { CatalogEntry } from '../../config/schema.ts';
import type { ViewBox } from '../../contract/common.ts';
import { ApiError } from '../../contract/errors.ts';
import type { TokenBounds, TokenUsage } from '../../contract/usage.ts';
import { checkImageBytes } from '../../media/image.ts';
import type { ImageRef, MediaInputs } from '../../media/inputs.ts';
import { outputsOf, type Engine, type EngineEvent, type SvgJob } from '../engine.ts';
import { EventChannel } from '../event-channel.ts';
import type { EventPipe } from '../event-pipe.ts';
import type { TracePool } from '../trace/pool.ts';
import { CallDeadline, jobSignal, resultOf, upstreamCall, type CallPolicy } from '../upstream/call.ts';
import { maxAttemptsOf } from '../upstream/options.ts';
import type { UpstreamSet } from '../upstream/routing/upstream-set.ts';
import { buildUpstreamSet, type ServerServices } from '../upstream/servers.ts';
import { editBody, generationBody, IMAGES, mapImagesFailure, type ImagesUsage, type InputPicture, type Picture, type PictureRequest } from './images-api.ts';
import { nearestSize, parseImageTraceOptions, type ImageTraceOptions } from './options.ts';
import { imagePrompt } from './prompt.ts';

/** What the engine needs from the rest of the service. */
export interface ImageTraceServices extends ServerServices {
  media: MediaInputs;
  tracePool: TracePool;
  /** A checked image as a data: URL, at most `maxSide` pixels a side (the render workers). */
  referenceImage(ref: ImageRef, maxSide: number, signal: AbortSignal): Promise<string>;
}

/** Wire bytes a picture given by URL may take in an answer (the URL itself). */
const URL_ALLOWANCE_BYTES = 8192;

/**
 * Text → picture → SVG: each output is a picture from an OpenAI-compatible Images API, traced by
 * the built-in tracer (in its worker processes), cropped to the request's viewBox shape, then the
 * SVG pipeline every output passes. Only generations: an edit or an animation needs a model that
 * reads and writes SVG, which an image model does not.
 */
export function createImageTraceEngine(entry: CatalogEntry, services: ImageTraceServices): Engine {
  const options = parseImageTraceOptions(entry);
  if (entry.input_modalities && entry.input_modalities.includes('image') !== options.vision) {
    throw new ConfigError(`Model ${entry.id}: options.vision is ${options.vision}, but input_modalities ${options.vision ? 'does not list' : 'lists'} image; make them agree.`);
  }
  const others = entry.operations.filter((operation) => operation !== 'svg_generate');
  if (others.length > 0) {
    throw new ConfigError(`Model ${entry.id}: the image-trace engine only generates (svg_generate); remove ${others.join(', ')} from its operations (an edit or animation needs a model that writes SVG).`);
  }
  // A picture's base64 is 4/3 of its bytes; a streamed call also carries its partial pictures.
  const pictureWire = Math.ceil(options.max_image_bytes / 3) * 4 + URL_ALLOWANCE_BYTES;
  const upstreams = buildUpstreamSet(
    entry,
    options,
    {
      idleTimeoutMs: options.idle_timeout_ms ?? options.timeout_ms,
      maxOutputBytes: pictureWire * options.images_per_call,
      maxResponseBytes: pictureWire * (options.images_per_call + options.partial_images) + 1024 * 1024,
    },
    services,
  );
  const engine = new ImageTraceEngine(options, upstreams, services);
  return {
    runSvg: (job) => engine.run(job),
    tokenBounds: (job) => engine.tokenBounds(job),
    upstreams: () => upstreams.status(),
    close: () => upstreams.close(),
  };
}

type Generation = Extract<SvgJob, { operation: 'svg_generate' }>;

/** What every call of one job shares. */
interface Plan {
  job: Generation;
  prompt: string;
  size: string;
  /** The references, as the edits endpoint takes them (none: generations). */
  inputs: InputPicture[];
  /** The tracer crops to this and draws in it: the request's viewBox, or the picture's own square. */
  frame: ViewBox | undefined;
  /** Input tokens one call is held and, without usage, billed for. */
  callInputTokens: number;
  /** Each output's drafts go out (a streaming client). */
  drafts: boolean;
  /** Partial pictures to ask each call for. */
  partialImages: number;
}

/** What one call brought: its pictures, its usage, and the host a URL answer is fetched from. */
interface CallAnswer {
  pictures: Picture[];
  usage?: ImagesUsage;
  host: string;
}

class ImageTraceEngine {
  private readonly maxAttempts: number;

  constructor(
    private readonly options: ImageTraceOptions,
    private readonly upstreams: UpstreamSet,
    private readonly services: ImageTraceServices,
  ) {
    this.maxAttempts = maxAttemptsOf(options, upstreams.size);
  }

  /** The most tokens a job can be billed: each output's call input and its picture. */
  tokenBounds(job: SvgJob): TokenBounds {
    if (job.operation !== 'svg_generate') return { inputTokens: 0, outputTokens: 0 };
    const prompt = imagePrompt(job.prompt, job.instructions, this.options.style_prompt);
    return { inputTokens: job.outputs * this.callInputTokens(prompt, job.references.length), outputTokens: job.outputs * this.options.output_tokens_per_image };
  }

  run(job: SvgJob): EventPipe<EngineEvent> {
    const channel = new EventChannel<EngineEvent>(outputsOf(job));
    let close: (() => void) | undefined;
    const start = async () => {
      if (job.operation !== 'svg_generate') {
        throw new ApiError('invalid_request', { param: 'model', message: 'This model draws new pictures only: it generates, and does not edit, vectorize or animate.' });
      }
      const { signal, close: closeSignal } = jobSignal(job.signal);
      close = closeSignal;
      // Inputs first: a reference that cannot be fetched is a plain 400 before any model work.
      const plan = await this.plan(job, signal);
      const perCall = plan.partialImages > 0 ? 1 : this.options.images_per_call;
      for (let first = 0; first < job.outputs; first += perCall) {
        const indexes = Array.from({ length: Math.min(perCall, job.outputs - first) }, (_, i) => first + i);
        const emit = (event: EngineEvent) => channel.push(event);
        this.batch(plan, indexes, signal, emit).then(
          () => indexes.forEach(() => channel.done()),
          (error: unknown) => indexes.forEach(() => channel.done(error)),
        );
      }
    };
    // The client left, or the batch ended: no call or trace outlives the request.
    return channel.events(start, () => close?.());
  }

  private async plan(job: Generation, signal: AbortSignal): Promise<Plan> {
    const size = nearestSize(this.options.sizes, job.viewBox);
    const longest = Math.max(size.width, size.height);
    const inputs = await Promise.all(job.references.map(async (ref) => dataUrlPicture(await this.services.referenceImage(ref, longest, signal))));
    const prompt = imagePrompt(job.prompt, job.instructions, this.options.style_prompt);
    return {
      job,
      prompt,
      size: size.size,
      inputs,
      frame: job.viewBox ?? undefined,
      callInputTokens: this.callInputTokens(prompt, job.references.length),
      drafts: job.streaming,
      partialImages: job.streaming ? this.options.partial_images : 0,
    };
  }

  /** A call's input tokens: the prompt's bytes bound its tokens; each reference counts image_input_tokens. */
  private callInputTokens(prompt: string, references: number): number {
    return this.options.prompt_overhead_tokens + Buffer.byteLength(prompt, 'utf8') + references * this.options.image_input_tokens;
  }

  /**
   * One call for the outputs `indexes`, then each picture traced and delivered. A failure of the
   * call fails every output of it; a picture that cannot be used fails its own output only.
   */
  private async batch(plan: Plan, indexes: number[], signal: AbortSignal, emit: (event: EngineEvent) => void): Promise<void> {
    const drafter = plan.drafts ? new Drafts(this.services.tracePool, this.traceTask(plan), this.options.trace_detail, signal, emit) : undefined;
    let answer: CallAnswer;
    try {
      answer = await this.call(plan, indexes, signal, emit, drafter);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      for (const index of indexes) emit({ type: 'failed', index, error });
      return;
    }
    const pictures = answer.pictures.slice(0, indexes.length);
    await Promise.all(
      indexes.map(async (index, position) => {
        const picture = pictures[position];
        try {
          if (!picture) throw new ApiError('model_error', { message: `The image model returned ${pictures.length} of the ${indexes.length} pictures asked for.` });
          const bytes = await this.pictureBytes(picture, answer.host, signal);
          const svg = drafter ? await drafter.finalWithDraft(index, bytes) : await this.trace(plan, bytes, this.options.trace_detail, signal);
          emit({ type: 'content', index, markup: svg, usage: this.usageShare(plan, answer.usage, position, indexes.length) });
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          emit({ type: 'failed', index, error });
        }
      }),
    );
  }

  /** The call, with the engine's failure policy: another server or one retry, while no draft of it went out. */
  private call(plan: Plan, indexes: number[], signal: AbortSignal, emit: (event: EngineEvent) => void, drafter: Drafts | undefined): Promise<CallAnswer> {
    const policy: CallPolicy = {
      signal,
      upstreams: this.upstreams,
      maxAttempts: this.maxAttempts,
      deadline: new CallDeadline(this.options.timeout_ms),
      streamOptions: false,
      mapFailure: mapImagesFailure,
    };
    const options = this.options;
    let forwarded = false;
    return resultOf(
      upstreamCall(
        policy,
        async function* (member, _streamOptions, deadlineAt) {
          const request: PictureRequest = {
            model: member.model,
            prompt: plan.prompt,
            n: indexes.length,
            size: plan.size,
            quality: options.quality,
            outputFormat: options.output_format,
            responseFormat: options.response_format,
            transparent: options.background === 'transparent',
            partialImages: plan.partialImages,
            extraBody: options.extra_body,
          };
          const body = plan.inputs.length > 0 ? await editBody(request, plan.inputs) : generationBody(request);
          const endpoint = plan.inputs.length > 0 ? 'images/edits' : 'images/generations';
          // The first event may be the finished picture: only the whole deadline bounds the wait for it.
          const call = { body, signal, firstTokenTimeoutMs: Math.max(0, deadlineAt - Date.now()), deadlineAt };
          const answer: CallAnswer = { pictures: [], host: member.client.host };
          for await (const deltas of member.client.call(endpoint, call, IMAGES)) {
            for (const delta of deltas) {
              if (delta.accepted) for (const index of indexes) emit({ type: 'generating', index });
              if (delta.partial !== undefined && drafter) {
                drafter.partial(indexes[0]!, delta.partial);
                forwarded = true; // its draft is on its way: another attempt would show a second picture
              }
              if (delta.pictures) answer.pictures.push(...delta.pictures);
              if (delta.usage) answer.usage = delta.usage;
            }
          }
          if (answer.pictures.length === 0) throw new ApiError('model_error', { message: 'The image model answered without a picture.' });
          return answer;
        },
        () => forwarded,
      ),
    );
  }

  /** A picture's bytes, checked as any image input is; a URL is fetched from the server's own host. */
  private async pictureBytes(picture: Picture, host: string, signal: AbortSignal): Promise<Uint8Array> {
    try {
      const image =
        picture.url !== undefined
          ? await this.services.media.loadServerImage(picture.url, host, 'the picture URL', signal)
          : await checkImageBytes(Buffer.from(picture.b64, 'base64'), 'the picture');
      if (image.format === 'svg') throw new ApiError('invalid_request', { message: 'an SVG, not a picture' });
      return image.bytes;
    } catch (error) {
      if (signal.aborted || !(error instanceof ApiError)) throw error;
      // The server's picture, not the caller's input: its failure is the model's (502).
      throw new ApiError('model_error', { message: `The image model's picture could not be used: ${error.message}`, cause: error });
    }
  }

  private traceTask(plan: Plan): TraceSettings {
    return { clearBackground: this.options.background !== 'keep', fit: plan.frame };
  }

  /** The picture traced in the tracer's processes at `effort`. */
  private async trace(plan: Plan, bytes: Uint8Array, effort: ImageTraceOptions['trace_detail'], signal: AbortSignal): Promise<string> {
    return traced(this.services.tracePool, { ...this.traceTask(plan), input: { kind: 'raster', bytes }, autoCrop: false, effort }, signal);
  }

  /**
   * An output's share of its call's usage (n pictures split it, the remainder on the first); a
   * server that reports none is billed the bounds it was held for (input split alike, and
   * output_tokens_per_image).
   */
  private usageShare(plan: Plan, usage: ImagesUsage | undefined, position: number, count: number): TokenUsage {
    const share = (total: number) => Math.floor(total / count) + (position < total % count ? 1 : 0);
    return {
      inputTokens: share(usage ? usage.inputTokens : plan.callInputTokens),
      outputTokens: usage ? share(usage.outputTokens) : this.options.output_tokens_per_image,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
    };
  }
}

type TraceSettings = { clearBackground: boolean; fit: ViewBox | undefined };

/** Runs one trace; a picture the tracer cannot decode is the model's failure. */
async function traced(pool: TracePool, task: Parameters<TracePool['run']>[0], signal: AbortSignal): Promise<string> {
  const outcome = await pool.run(task, signal);
  if (!outcome.ok) throw new ApiError('model_error', { message: `The image model's picture could not be traced: ${outcome.detail}` });
  return outcome.svg;
}

/**
 * A streaming output's drafts: each partial picture traced at low detail (one at a time; a
 * partial that comes while one is tracing replaces the one waiting), and a quick low-detail
 * trace of the final picture before its full one when no partial's draft went out. A draft never follows
 * its output's content, and a draft's failure costs nothing but the draft.
 */
class Drafts {
  private readonly busy = new Set<number>();
  private readonly waiting = new Map<number, string>();
  private readonly drafted = new Set<number>();
  private readonly finished = new Set<number>();

  constructor(
    private readonly pool: TracePool,
    private readonly settings: TraceSettings,
    /** The detail of the delivered trace. */
    private readonly fullEffort: ImageTraceOptions['trace_detail'],
    private readonly signal: AbortSignal,
    private readonly emit: (event: EngineEvent) => void,
  ) {}


  /** A partial picture of output `index` came: traced now, or after the one tracing. */
  partial(index: number, b64: string): void {
    if (this.busy.has(index)) {
      this.waiting.set(index, b64);
      return;
    }
    this.busy.add(index);
    void this.draft(index, Buffer.from(b64, 'base64')).finally(() => {
      this.busy.delete(index);
      const next = this.waiting.get(index);
      this.waiting.delete(index);
      if (next !== undefined && !this.finished.has(index)) this.partial(index, next);
    });
  }

  /**
   * The output's full trace; with no draft yet, a quick low-detail one first (a fraction of the
   * full one's time, and nothing beside the image model's own).
   */
  async finalWithDraft(index: number, bytes: Uint8Array): Promise<string> {
    try {
      if (!this.drafted.has(index) && !this.busy.has(index)) await this.draft(index, bytes);
      return await traced(this.pool, { ...this.settings, input: { kind: 'raster', bytes }, autoCrop: false, effort: this.fullEffort }, this.signal);
    } finally {
      this.finished.add(index);
    }
  }

  private async draft(index: number, bytes: Uint8Array): Promise<void> {
    try {
      const svg = await traced(this.pool, { ...this.settings, input: { kind: 'raster', bytes }, autoCrop: false, effort: 'low' }, this.signal);
      if (this.finished.has(index) || this.signal.aborted) return;
      this.drafted.add(index);
      this.emit({ type: 'draft', index, markup: svg });
    } catch {
      // a draft is a courtesy: its picture may be cut short, the tracer busy, the output done
    }
  }
}

/** A data: URL (the render workers' reference image) as the bytes and type of an input picture. */
function dataUrlPicture(url: string): InputPicture {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!match) throw new Error('a reference image is not a base64 data: URL');
  return { mediaType: match[1]!, bytes: new Uint8Array(Buffer.from(match[2]!, 'base64')) };
}
