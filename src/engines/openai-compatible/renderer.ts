import type { ModelAnswer, ModelSvgVerdict } from '../../svg/model-output.ts';

/**
 * What the engine does in the render workers, off the event loop, with a deadline: render
 * sanitized SVG, finish large answers, count tokens.
 */
export interface SvgRenderer {
  /** Tokens in texts by a common encoding, for a server that reported no usage (an estimate when the workers cannot count). */
  countTokens(texts: string[], signal: AbortSignal): Promise<number>;
  /** A large answer through the model-output pipeline, its visibility settled (never undefined). */
  modelSvg(answer: ModelAnswer, signal: AbortSignal): Promise<ModelSvgVerdict>;
  /** Whether the document shows anything at all. */
  isVisible(svg: string, signal: AbortSignal): Promise<boolean>;
  /** A PNG on white, at most `maxSide` pixels a side. */
  png(svg: string, maxSide: number, signal: AbortSignal): Promise<Buffer>;
}
