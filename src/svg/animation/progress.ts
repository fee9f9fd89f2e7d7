// Where an animation is at time t: the directed iteration progress of a CSS animation, and the
// progress, iteration and begin of a SMIL animation's current (or frozen) interval.
import type { CssAnimation, SmilAnimation } from './model.ts';

/** The directed iteration progress of a CSS animation at time t, or undefined when it has no effect. */
export function cssProgress(a: CssAnimation, t: number): number | undefined {
  if (a.paused) t = 0;
  const local = t - a.delayMs;
  const d = a.durationMs;
  const active = a.iterations === Infinity ? Infinity : d * a.iterations;
  let iteration: number;
  let progress: number;
  if (local < 0) {
    if (a.fill !== 'backwards' && a.fill !== 'both') return undefined;
    iteration = 0;
    progress = 0;
  } else if (local >= active) {
    if (a.fill !== 'forwards' && a.fill !== 'both') return undefined;
    if (a.iterations === 0 || d === 0) {
      iteration = Math.max(0, Math.ceil(a.iterations) - 1);
      progress = a.iterations === 0 ? 0 : 1;
    } else if (Number.isInteger(a.iterations)) {
      iteration = a.iterations - 1;
      progress = 1;
    } else {
      iteration = Math.floor(a.iterations);
      progress = a.iterations - iteration;
    }
  } else if (d === 0) {
    return undefined;
  } else {
    iteration = Math.floor(local / d);
    progress = (local - iteration * d) / d;
  }
  const reversed =
    a.direction === 'reverse' || (a.direction === 'alternate' && iteration % 2 === 1) || (a.direction === 'alternate-reverse' && iteration % 2 === 0);
  return reversed ? 1 - progress : progress;
}

export interface SmilProgress {
  /** Progress through the current simple duration (0–1). */
  p: number;
  iteration: number;
  beginMs: number;
}

/** Where a SMIL animation is at time t: active or frozen in its latest interval, or no effect. */
export function smilProgress(a: SmilAnimation, t: number): SmilProgress | undefined {
  let interval: (typeof a.intervals)[number] | undefined;
  for (const candidate of a.intervals) {
    if (candidate.beginMs <= t) interval = candidate;
    else break;
  }
  if (!interval) return undefined;
  const d = a.durMs;
  if (t < interval.endMs) {
    if (d === undefined) return { p: 0, iteration: 0, beginMs: interval.beginMs };
    const elapsed = t - interval.beginMs;
    const iteration = Math.floor(elapsed / d);
    return { p: (elapsed - iteration * d) / d, iteration, beginMs: interval.beginMs };
  }
  if (a.fill !== 'freeze') return undefined;
  const elapsed = interval.endMs - interval.beginMs;
  if (d === undefined) return { p: 0, iteration: 0, beginMs: interval.beginMs };
  const ratio = elapsed / d;
  if (elapsed > 0 && Math.abs(ratio - Math.round(ratio)) < 1e-9) return { p: 1, iteration: Math.round(ratio) - 1, beginMs: interval.beginMs };
  const iteration = Math.floor(ratio);
  return { p: ratio - iteration, iteration, beginMs: interval.beginMs };
}
