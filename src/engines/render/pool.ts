import { availableParallelism } from 'node:os';
import { ApiError } from '../../contract/errors.ts';
import type { CheckedImage } from '../../media/image.ts';
import { JobTimeoutError, PoolFullError, WorkerPool } from '../../workers/pool.ts';
import type { AnimationReport } from '../../svg/animation/measure.ts';
import type { ModelAnswer, ModelSvgVerdict } from '../../svg/model-output.ts';
import type { RenderJobs } from './jobs.ts';

export interface RenderPoolOptions {
  /** Worker processes (default: two, or one on a single core). */
  workers?: number;
  /** Jobs that may wait; more are refused with 503. */
  queue?: number;
  /** Longest one render may take; beyond it the worker is killed. */
  timeoutMs?: number;
}

/**
 * Rendering for the model engines, in worker processes of its own (a render is milliseconds;
 * it should never wait behind a minute-long trace): whether a model's SVG shows anything, a PNG
 * for a reviewer, reference images downscaled for a vision model. A render that runs past its
 * deadline has its process killed, so a filter-heavy SVG cannot hold a core.
 */
export class RenderPool {
  private readonly pool: WorkerPool<RenderJobs>;

  constructor(options: RenderPoolOptions = {}) {
    const workers = options.workers ?? Math.min(2, availableParallelism());
    this.pool = new WorkerPool<RenderJobs>({
      entry: new URL(import.meta.url.endsWith('.ts') ? './worker-entry.mjs' : './worker-main.js', import.meta.url),
      workers,
      queue: options.queue ?? workers * 32,
      timeoutMs: options.timeoutMs ?? 15_000,
      // A render is milliseconds: one whose client left finishes rather than costing a new process.
      abandonGraceMs: 2_000,
    });
  }

  /** Whether the SVG shows anything; one that cannot be rendered in time shows nothing. */
  async isVisible(svg: string, signal: AbortSignal): Promise<boolean> {
    try {
      return await this.pool.run('visible', { svg }, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      if (error instanceof PoolFullError) throw busy(error);
      return false;
    }
  }

  async png(svg: string, maxSide: number, signal: AbortSignal): Promise<Buffer> {
    try {
      return Buffer.from(await this.pool.run('png', { svg, maxSide }, signal));
    } catch (error) {
      throw this.failure(error, signal, 'The drawing could not be rendered for review.');
    }
  }

  /** A checked image input as a data: URL at most `maxSide` pixels a side; a failure names the field. */
  async referenceImage(image: CheckedImage, param: string, maxSide: number, signal: AbortSignal): Promise<string> {
    const source = image.format === 'svg' ? { kind: 'svg' as const, markup: image.markup } : { kind: 'raster' as const, bytes: new Uint8Array(image.bytes) };
    try {
      return await this.pool.run('reference', { source, maxSide }, signal);
    } catch (error) {
      if (signal.aborted || error instanceof PoolFullError) throw this.failure(error, signal, '');
      throw new ApiError('invalid_request', { param, message: `Invalid image in '${param}': it could not be prepared for the model.`, cause: error });
    }
  }

  /**
   * Tokens in these texts by a common encoding, counted in a worker, for a server that reported
   * no usage. When the workers cannot count them (at capacity, past the deadline), about one
   * token per three characters — the count only estimates the model's own tokenizer anyway, and
   * real work is never settled as zero.
   */
  async countTokens(texts: string[], signal: AbortSignal): Promise<number> {
    try {
      return await this.pool.run('tokens', { texts }, signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      return texts.reduce((sum, text) => sum + Math.ceil(text.length / 3), 0);
    }
  }

  /**
   * A model's answer through the model-output pipeline, off the event loop (for answers large
   * enough to hold it): the document and whether it shows anything, or why it is unusable. One
   * that cannot be finished in time fails its output (`502 model_error`).
   */
  async modelSvg(answer: ModelAnswer, signal: AbortSignal): Promise<ModelSvgVerdict> {
    try {
      return await this.pool.run('modelSvg', answer, signal);
    } catch (error) {
      throw this.failure(error, signal, 'The model\'s answer could not be read.');
    }
  }

  /**
   * An animation's timing measured from its markup and, with `render`, its checks and svg_score
   * from frames rendered at sampled times (see src/svg/animation/). A document that cannot be
   * measured in time fails its output (`502 model_error`).
   */
  async measureAnimation(svg: string, render: boolean, signal: AbortSignal): Promise<AnimationReport> {
    try {
      return await this.pool.run('animation', { svg, render }, signal);
    } catch (error) {
      throw this.failure(error, signal, 'The animation could not be measured.');
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private failure(error: unknown, signal: AbortSignal, message: string): unknown {
    if (signal.aborted) return signal.reason ?? error;
    if (error instanceof PoolFullError) return busy(error);
    if (error instanceof JobTimeoutError) return new ApiError('model_error', { message: `${message} It took too long.`, cause: error });
    return new ApiError('model_error', { message, cause: error });
  }
}

function busy(error: PoolFullError): ApiError {
  return new ApiError('model_unavailable', { message: 'The renderer is at capacity; retry after the indicated time.', retryAfter: Math.max(1, Math.ceil(error.retryAfterMs / 1000)) });
}
