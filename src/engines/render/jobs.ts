import type { ReferenceSource } from '../../media/reference-image.ts';
import type { AnimationReport } from '../../svg/animation/measure.ts';
import type { ModelAnswer, ModelSvgVerdict } from '../../svg/model-output.ts';

/** The job kinds the render workers serve (worker-main.ts maps each to its handler). */
export type RenderJobs = {
  /** Whether a sanitized SVG shows anything. */
  visible: { task: { svg: string }; progress: never; result: boolean };
  /** A PNG of a sanitized SVG on white. */
  png: { task: { svg: string; maxSide: number }; progress: never; result: Uint8Array };
  /** A reference image as a data: URL a vision model takes. */
  reference: { task: { source: ReferenceSource; maxSide: number }; progress: never; result: string };
  /**
   * A large model answer through the model-output pipeline, and its visibility settled by a
   * render when the structure cannot tell (`visible` is never undefined in the result).
   */
  modelSvg: { task: ModelAnswer; progress: never; result: ModelSvgVerdict };
  /** Tokens in these texts by the o200k_base encoding (for a server that reported no usage). */
  tokens: { task: { texts: string[] }; progress: never; result: number };
  /** An animation's timing, and with `render` its checks and svg_score from frames rendered at sampled times. */
  animation: { task: { svg: string; render: boolean }; progress: never; result: AnimationReport };
};
