import type { ReferenceSource } from '../../media/reference-image.ts';
import type { AnimationReport } from '../../svg/animation/measure.ts';

/** The job kinds the render workers serve (worker-main.ts maps each to its handler). */
export type RenderJobs = {
  /** Whether a sanitized SVG shows anything. */
  visible: { task: { svg: string }; progress: never; result: boolean };
  /** A PNG of a sanitized SVG on white. */
  png: { task: { svg: string; maxSide: number }; progress: never; result: Uint8Array };
  /** A reference image as a data: URL a vision model takes. */
  reference: { task: { source: ReferenceSource; maxSide: number }; progress: never; result: string };
  /** An animation's timing, and with `render` its checks and svg_score from frames rendered at sampled times. */
  animation: { task: { svg: string; render: boolean }; progress: never; result: AnimationReport };
};
