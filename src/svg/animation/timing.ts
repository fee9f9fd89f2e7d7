// Timing measured from the animation actually in an SVG: its loop period and its opening.
//
// Rules (the README quotes them):
// - A CSS animation counts when its `animation-name` names `@keyframes` that set at least one
//   property, it applies to an element (the selectors of the sheet are matched), its duration is
//   above zero, its play state is `running` and its timeline is time (`auto`). A SMIL element
//   (`animate`, `set`, `animateTransform`, `animateMotion`) counts when it has a target and a
//   begin that happens without script or user input (offsets and syncbase values; `indefinite`,
//   events, access keys and wallclock values never fire in a picture).
// - Something repeats indefinitely: a CSS animation with `animation-iteration-count: infinite`
//   (period = duration, doubled by `alternate`/`alternate-reverse`); a SMIL element whose
//   active duration is indefinite through `repeatCount`/`repeatDur="indefinite"` (period = `dur`);
//   a SMIL syncbase chain that keeps restarting itself (`begin="0s;b.end"` …; period = the time
//   between its starts, simulated for ten minutes).
// - loop_period_ms = the least common multiple of those periods (computed in microseconds, then
//   rounded to the millisecond) — the time after which everything that loops is where it was.
//   When that exceeds LOOP_PERIOD_CAP_MS (one minute) the animation never exactly repeats within
//   a minute, and the longest single period is reported instead. Null when nothing loops.
// - Something runs once: a CSS animation with a finite iteration count ends at
//   delay + duration × count; a SMIL interval with a finite active duration ends at its end (its
//   begin + the active duration from dur, repeatCount, repeatDur, end, min and max); a `set` or an
//   animation without `dur` changes the drawing once, at its begin.
// - opening_animation_ms = the end of the last of those, rounded to the millisecond; null when
//   nothing runs once, or everything that does has ended by time 0 (negative delays).
import { parseSvg } from '../parse.ts';
import type { SvgElement } from '../tree.ts';
import { documentAnimations, type DocumentAnimations } from './model.ts';

export interface AnimationTiming {
  loopPeriodMs: number | null;
  openingAnimationMs: number | null;
  /** The periods of everything that loops (ms, before the least common multiple). */
  periodsMs: number[];
}

export const LOOP_PERIOD_CAP_MS = 60_000;

export function animationTiming(svg: string | SvgElement): AnimationTiming {
  return timingOf(documentAnimations(typeof svg === 'string' ? parseSvg(svg) : svg));
}

export function timingOf(doc: DocumentAnimations): AnimationTiming {
  const periods: number[] = [];
  let opening = 0;
  for (const a of doc.css) {
    if (a.paused || a.properties.size === 0 || a.durationMs <= 0 || a.iterations === 0) continue;
    if (a.iterations === Infinity) {
      periods.push(a.direction === 'alternate' || a.direction === 'alternate-reverse' ? a.durationMs * 2 : a.durationMs);
    } else {
      opening = Math.max(opening, a.delayMs + a.durationMs * a.iterations);
    }
  }
  for (const a of doc.smil) {
    if (a.intervals.length === 0) continue;
    if (a.recurring) {
      const begins = a.intervals.map((i) => i.beginMs);
      const gap = begins.at(-1)! - begins.at(-2)!;
      if (gap > 0) periods.push(gap);
      continue;
    }
    for (const interval of a.intervals) {
      if (a.tag === 'set' || a.durMs === undefined) {
        // A constant value applied at its begin, and removed at its end (unless frozen).
        opening = Math.max(opening, interval.beginMs);
        if (interval.endMs !== Infinity && a.fill === 'remove') opening = Math.max(opening, interval.endMs);
      } else if (interval.endMs === Infinity) {
        periods.push(a.durMs);
      } else if (interval.endMs > interval.beginMs) {
        opening = Math.max(opening, interval.endMs);
      }
    }
  }
  const rounded = Math.round(opening);
  return { loopPeriodMs: loopPeriod(periods), openingAnimationMs: rounded > 0 ? rounded : null, periodsMs: periods };
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The least common multiple of the periods (µs precision), or the longest period past the cap. */
export function loopPeriod(periods: number[]): number | null {
  if (periods.length === 0) return null;
  const capUs = LOOP_PERIOD_CAP_MS * 1000;
  let lcm = 1;
  for (const p of periods) {
    const us = Math.max(1, Math.round(p * 1000));
    lcm = (lcm / gcd(lcm, us)) * us;
    if (lcm > capUs) return Math.max(1, Math.round(Math.max(...periods)));
  }
  return Math.max(1, Math.round(lcm / 1000));
}
