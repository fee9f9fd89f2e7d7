import type { ReasoningEffort, ViewBox } from '../contract/common.ts';
import type { ApiError } from '../contract/errors.ts';
import type { CatalogModel } from '../config/catalog.ts';
import type { ImageRef, SvgRef } from '../media/inputs.ts';

/** Token counts as measured by the engine; cached and cache-write counts are part of input. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
}

interface SvgJobBase {
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
      settings: {
        maxOutputTokens?: number | null;
        orchestratorMaxOutputTokens?: number | null;
        shallowMaxOutputTokens?: number | null;
        temperature?: number | null;
      };
    })
  | (SvgJobBase & { operation: 'svg_animate'; prompt?: string; source: SvgRef });

/**
 * What an engine reports while it works, per output `index`. `content` is a finished output;
 * `failed` ends one output of a batch without ending the others.
 */
export type EngineEvent =
  | { type: 'generating'; index: number; text?: string }
  | { type: 'reasoning'; index: number; text: string }
  | { type: 'draft'; index: number; svg: string; update: 'delta' | 'snapshot' }
  | {
      type: 'content';
      index: number;
      svg: string;
      usage?: TokenUsage;
      loopPeriodMs?: number | null;
      openingAnimationMs?: number | null;
    }
  | { type: 'failed'; index: number; error: ApiError }
  /** An animation's quality score; it rides on the content events that follow it. */
  | { type: 'score'; svgScore: number | null };

export interface Engine {
  /**
   * Streams the work of one SVG job. Throwing before the first output fails the whole request;
   * the iterator is closed early (return()) when the client goes away, and must stop its work.
   */
  runSvg(job: SvgJob): AsyncIterable<EngineEvent>;
}
