import type { ReasoningEffort, ViewBox } from '../contract/common.ts';
import type { ApiError } from '../contract/errors.ts';
import type { CatalogModel } from '../config/catalog.ts';
import type { ResponsesRequest, ResponsesStreamEvent } from '../contract/responses.ts';
import type { TokenBounds, TokenUsage } from '../contract/usage.ts';
import type { ImageRef, SvgRef } from '../media/inputs.ts';
import type { SafeSvg } from '../svg/safe-svg.ts';
import type { UpstreamStatus } from '../contract/upstreams.ts';

/** Engines report usage in the measured-usage type of contract/usage.ts (billing prices it). */
export type { TokenUsage } from '../contract/usage.ts';

/** What every SVG job carries, whatever its operation (operations/svg-job.ts fills it). */
export interface SvgJobBase {
  requestId: string;
  model: CatalogModel;
  /** Stable for the same key and request body; deterministic engines derive their output from it. */
  seed: string;
  viewBox: ViewBox | null;
  reasoningEffort?: ReasoningEffort;
  temperature?: number;
  topP?: number;
  presencePenalty?: number | null;
  maxOutputTokens?: number;
  /** Test-mode directives from the Inkwell-Mock header; only the sandbox reads them. */
  mockHeader?: string;
  /** The client asked for a stream: without one, nobody sees drafts or reasoning, so an engine may skip them. */
  streaming: boolean;
  signal: AbortSignal;
}

export type SvgJob =
  | (SvgJobBase & {
      operation: 'svg_generate';
      prompt: string;
      instructions?: string;
      references: ImageRef[];
      outputs: number;
    })
  | (SvgJobBase & { operation: 'svg_vectorize'; image: ImageRef; autoCrop: boolean; targetSize?: number })
  | (SvgJobBase & {
      operation: 'svg_edit';
      prompt: string;
      source: SvgRef;
      referenceImages: ImageRef[];
      maxReviewSteps: number;
      /** The review loop's caps (`settings`); its output cap and temperature are the base's. */
      settings: {
        orchestratorMaxOutputTokens?: number | null;
        shallowMaxOutputTokens?: number | null;
      };
    })
  | (SvgJobBase & { operation: 'svg_animate'; prompt?: string; source: SvgRef });

/** An edit review's output cap when the request names none (`settings.orchestrator_max_output_tokens`). */
export const REVIEW_OUTPUT_TOKENS = 1024;

/** How many documents a job is to deliver: a generation's `n`, one for every other operation. */
export function outputsOf(job: SvgJob): number {
  return job.operation === 'svg_generate' ? job.outputs : 1;
}

/**
 * A document an engine hands over: `svg`, one it already sent through the SVG pipeline (the
 * type only svg/ can make), delivered as it is; or `markup`, which the runner sends through the
 * pipeline (strict parse, sanitizer, the request's viewBox). Nothing else can leave the service.
 */
export type EngineDocument = { svg: SafeSvg; markup?: never } | { markup: string; svg?: never };

/**
 * What an engine reports while it works, per output `index`. `content` is a finished output;
 * `failed` ends one output of a batch without ending the others.
 */
export type EngineEvent =
  | { type: 'generating'; index: number; text?: string }
  | { type: 'reasoning'; index: number; text: string }
  /** A preview of the output so far: a complete document (every open element closed). */
  | ({ type: 'draft'; index: number } & EngineDocument)
  | ({
      type: 'content';
      index: number;
      usage?: TokenUsage;
      /**
       * An animation engine's own account of its timing. Not what the client sees: the runner
       * measures `loop_period_ms` and `opening_animation_ms` from the delivered document.
       */
      loopPeriodMs?: number | null;
      openingAnimationMs?: number | null;
    } & EngineDocument)
  | { type: 'failed'; index: number; error: ApiError }
  /**
   * An animation's svg_score from an engine whose output passes the checks by construction (the
   * sandbox); it rides on the content events that follow it, and the runner then measures the
   * timing without rendering frames. Engines that send none are scored by rendered checks.
   */
  | { type: 'score'; svgScore: number | null };

/** One POST /v1/responses request, validated and checked, for an engine that runs Responses. */
export interface ResponsesJob {
  requestId: string;
  model: CatalogModel;
  request: ResponsesRequest;
  /** The checked image of each `input_image` part of the input (keyed by the part object). */
  images: ReadonlyMap<object, ImageRef>;
  signal: AbortSignal;
}

export interface Engine {
  /**
   * Streams the work of one SVG job. Throwing before the first output fails the whole request;
   * the iterator is closed early (return()) when the client goes away, and must stop its work.
   */
  runSvg(job: SvgJob): AsyncIterable<EngineEvent>;
  /**
   * Runs one Responses request, if the engine can: Open Responses events with increasing
   * `sequence_number`, from `response.created` (once the model accepted the request) to a
   * terminal `response.completed` or `response.incomplete` carrying the measured `usage`.
   * A failure is thrown (never yielded); the operation turns it into a JSON error or, once
   * events went out, an `error` event. Closed early (return()) when the client goes away.
   */
  respond?(job: ResponsesJob): AsyncIterable<ResponsesStreamEvent>;
  /**
   * The most tokens a job may use, in and out — what a token-priced reservation holds and the
   * token rate limits count — from the same caps the engine's own calls are made with. An engine
   * that uses no tokens leaves it out: nothing is held for tokens then.
   */
  tokenBounds?(job: SvgJob): TokenBounds;
  /**
   * The same for a Responses request; throws the ApiError for a request the model cannot serve
   * within its limits (a `max_output_tokens` past what it can write).
   */
  responsesTokenBounds?(request: ResponsesRequest, images: number): TokenBounds;
  /** The model servers it routes calls to, and their state now (engines that call servers). */
  upstreams?(): UpstreamStatus[];
  /** Stops its background work (health checks) when the service closes. */
  close?(): void;
}
