// Measuring a delivered animation: its timing, and (when asked) the checks and svg_score from
// frames rendered with resvg. For the render worker processes only: rendering is native work
// that must not run on the server's event loop.
import { renderRgba } from '../render.ts';
import { FrameEvaluator } from './frames.ts';
import { checkFrames, sampleTimes, svgScore, type AnimationChecks, type RenderedFrame } from './score.ts';

export interface AnimationReport {
  loopPeriodMs: number | null;
  openingAnimationMs: number | null;
  /** Anything in the document animates (something loops or something runs once). */
  animated: boolean;
  /** The checks and score, when frames were rendered. */
  checks?: AnimationChecks;
  score?: number;
}

/** Frames are rendered this many pixels across the viewBox, with a quarter of margin on each side. */
const INNER_SIDE = 96;
const MARGIN = 0.25;

export function measureAnimation(svg: string, options: { render: boolean }): AnimationReport {
  const evaluator = new FrameEvaluator(svg);
  const { loopPeriodMs, openingAnimationMs } = evaluator.timing;
  const animated = loopPeriodMs !== null || openingAnimationMs !== null;
  const report: AnimationReport = { loopPeriodMs, openingAnimationMs, animated };
  if (!options.render || !animated) return report;
  const bytes = Buffer.byteLength(svg, 'utf8');
  const times = sampleTimes(evaluator.timing);
  const side = Math.round(INNER_SIDE * (1 + 2 * MARGIN));
  const render = (timeMs: number): RenderedFrame => {
    const { pixels, width, height } = renderRgba(evaluator.frameAt(timeMs, { margin: MARGIN }), side);
    const mx = (width * MARGIN) / (1 + 2 * MARGIN);
    const my = (height * MARGIN) / (1 + 2 * MARGIN);
    return { timeMs, pixels, width, height, inner: { x0: Math.round(mx), y0: Math.round(my), x1: Math.round(width - mx), y1: Math.round(height - my) } };
  };
  let checks: AnimationChecks;
  try {
    checks = checkFrames(times.uniform.map(render), times.burst.map(render), bytes);
  } catch {
    checks = { renders: false, moves: false, inViewBox: 0, flashesPerSecond: 0, flashFree: true, bytes };
  }
  return { ...report, checks, score: svgScore(checks) };
}
