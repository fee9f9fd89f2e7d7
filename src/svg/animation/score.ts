// svg_score: a 0–1 score of an animation from automatic checks on frames sampled over its
// opening and loop. Pure: frames come in as RGBA pixels (rendered elsewhere, in the render workers).
//
// Checks
// - renders: every sampled frame renders.
// - moves: some sampled frame differs from the first one (at least MOVE_PIXELS pixels change by
//   at least MOVE_LEVELS in some channel). An animation that does not move fails (502 model_error).
// - in the viewBox: frames are rendered with a margin around the viewBox; a frame stays inside when
//   at most 0.2 % of the inner area (and at least two pixels) is drawn in the margin beyond what
//   is drawn there in every sampled frame (a background that bleeds past the viewBox is not motion).
//   The check's value is the share of frames that stay inside.
// - no flashing (WCAG 2.3.1): each frame's mean relative luminance, composited on white and on
//   black; a transition is a swing of at least 0.1 between successive extremes with the darker
//   side below 0.8; two opposing transitions are one flash; more than three flashes in any
//   one-second window fails. The whole frame is averaged, so a flash counts in proportion to its
//   area (a small blinking dot passes, as WCAG's area threshold lets it).
// - size: 1 up to 16 KiB, falling to 0 at 512 KiB (logarithmically).
//
// svg_score = 0 when it does not render or does not move; otherwise
//   0.5 + 0.2 × (share of frames inside the viewBox) + 0.2 × (no flashing) + 0.1 × size,
// rounded to two decimals.
import type { AnimationTiming } from './timing.ts';

export interface AnimationChecks {
  renders: boolean;
  moves: boolean;
  /** Share of sampled frames that stay inside the viewBox (0–1). */
  inViewBox: number;
  /** Most flashes found in any one-second window. */
  flashesPerSecond: number;
  flashFree: boolean;
  /** Size of the delivered document in bytes. */
  bytes: number;
}

/** One rendered frame: RGBA pixels (not premultiplied) with the viewBox's place in them. */
export interface RenderedFrame {
  timeMs: number;
  pixels: Uint8Array;
  width: number;
  height: number;
  /** The viewBox inside the frame (the rest is margin). */
  inner: { x0: number; y0: number; x1: number; y1: number };
}

/** How far the sampled window reaches into a loop. */
const LOOP_SAMPLE_CAP_MS = 10_000;
const UNIFORM_FRAMES = 40;
const BURST_FPS = 30;
const MOVE_LEVELS = 6;
const MOVE_PIXELS = 4;
const FLASH_SWING = 0.1;
const FLASH_DARK = 0.8;
const MAX_FLASHES_PER_SECOND = 3;

export interface SampleTimes {
  /** Frames across the opening and one loop (at most UNIFORM_FRAMES, at most 24 a second). */
  uniform: number[];
  /**
   * One second at 30 frames a second from the start of the loop (or of the opening), for
   * flashes, when the loop is shorter than a second or the uniform samples are sparse.
   */
  burst: number[];
}

/**
 * Where to sample: the window is the opening plus one loop period (at most ten seconds of it),
 * or the opening alone. Uniform samples cover the window; a dense one-second burst is added when
 * the uniform ones are sparser than 24 a second or the loop is shorter than a second.
 */
export function sampleTimes(timing: Pick<AnimationTiming, 'loopPeriodMs' | 'openingAnimationMs'>): SampleTimes {
  const opening = timing.openingAnimationMs ?? 0;
  const loop = Math.min(timing.loopPeriodMs ?? 0, LOOP_SAMPLE_CAP_MS);
  const window = opening + loop;
  if (window <= 0) return { uniform: [0], burst: [] };
  const count = Math.min(UNIFORM_FRAMES, Math.max(2, Math.ceil(window / (1000 / 24)) + 1));
  const uniform = Array.from({ length: count }, (_, i) => Math.round((window * i) / (count - 1) * 1000) / 1000);
  const step = window / (count - 1);
  const burst: number[] = [];
  // Flashes are counted per second: a loop shorter than a second, or samples sparser than 24 a
  // second, get a dense second of their own.
  if (step > 1000 / 24 || (timing.loopPeriodMs && window < 1000)) {
    const start = timing.loopPeriodMs ? opening : 0;
    for (let i = 0; i <= BURST_FPS; i++) burst.push(start + Math.round((1000 * i) / BURST_FPS));
  }
  return { uniform, burst };
}

/** The checks over rendered frames (uniform samples, then the burst, each in time order). */
export function checkFrames(uniform: RenderedFrame[], burst: RenderedFrame[], bytes: number): AnimationChecks {
  const all = [...uniform, ...burst];
  if (all.length === 0) return { renders: false, moves: false, inViewBox: 0, flashesPerSecond: 0, flashFree: true, bytes };
  const moves = all.some((frame) => changedPixels(all[0]!, frame) >= MOVE_PIXELS);
  const inside = insideShare(all);
  const flashes = Math.max(maxFlashesPerSecond(uniform), maxFlashesPerSecond(burst));
  return { renders: true, moves, inViewBox: inside, flashesPerSecond: flashes, flashFree: flashes <= MAX_FLASHES_PER_SECOND, bytes };
}

export function changedPixels(a: RenderedFrame, b: RenderedFrame): number {
  if (a.pixels.length !== b.pixels.length) return a.width * a.height;
  let n = 0;
  const p = a.pixels;
  const q = b.pixels;
  for (let i = 0; i < p.length; i += 4) {
    // Compare premultiplied, so changes of colour under full transparency do not count.
    const pa = p[i + 3]!;
    const qa = q[i + 3]!;
    if (
      Math.abs(pa - qa) >= MOVE_LEVELS ||
      Math.abs((p[i]! * pa - q[i]! * qa) / 255) >= MOVE_LEVELS ||
      Math.abs((p[i + 1]! * pa - q[i + 1]! * qa) / 255) >= MOVE_LEVELS ||
      Math.abs((p[i + 2]! * pa - q[i + 2]! * qa) / 255) >= MOVE_LEVELS
    ) {
      n++;
    }
  }
  return n;
}

const VISIBLE_ALPHA = 32;

/** Share of frames drawing nothing in the margin beyond what every frame draws there. */
function insideShare(frames: RenderedFrame[]): number {
  const first = frames[0]!;
  const { width, height, inner } = first;
  const innerArea = (inner.x1 - inner.x0) * (inner.y1 - inner.y0);
  const allowed = Math.max(2, innerArea * 0.002);
  const outside = (x: number, y: number) => x < inner.x0 || x >= inner.x1 || y < inner.y0 || y >= inner.y1;
  // Margin pixels drawn in every frame: static bleed, not motion.
  const always = new Uint8Array(width * height).fill(1);
  for (const frame of frames) {
    for (let i = 0; i < width * height; i++) if (frame.pixels[i * 4 + 3]! < VISIBLE_ALPHA) always[i] = 0;
  }
  let inside = 0;
  for (const frame of frames) {
    let drawn = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!outside(x, y)) continue;
        const i = y * width + x;
        if (!always[i] && frame.pixels[i * 4 + 3]! >= VISIBLE_ALPHA) drawn++;
      }
    }
    if (drawn <= allowed) inside++;
  }
  return inside / frames.length;
}

const linear = (c: number) => {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
const LINEAR = Array.from({ length: 256 }, (_, i) => linear(i));

/** Mean relative luminance of the viewBox area, composited on a background (0 black, 1 white). */
function meanLuminance(frame: RenderedFrame, background: 0 | 1): number {
  const { inner, width, pixels } = frame;
  let sum = 0;
  let n = 0;
  for (let y = inner.y0; y < inner.y1; y++) {
    for (let x = inner.x0; x < inner.x1; x++) {
      const i = (y * width + x) * 4;
      const a = pixels[i + 3]! / 255;
      const l = 0.2126 * LINEAR[pixels[i]!]! + 0.7152 * LINEAR[pixels[i + 1]!]! + 0.0722 * LINEAR[pixels[i + 2]!]!;
      sum += l * a + background * (1 - a);
      n++;
    }
  }
  return n > 0 ? sum / n : background;
}

/** Flashes in the worst one-second window of a frame sequence (on white and on black). */
export function maxFlashesPerSecond(frames: RenderedFrame[]): number {
  if (frames.length < 3) return 0;
  let worst = 0;
  for (const background of [0, 1] as const) {
    const series = frames.map((f) => ({ t: f.timeMs, l: meanLuminance(f, background) }));
    worst = Math.max(worst, flashesIn(series));
  }
  return worst;
}

/** Transitions between successive luminance extremes, counted in one-second windows; two make a flash. */
export function flashesIn(series: { t: number; l: number }[]): number {
  // Successive extremes: collapse monotonic runs.
  const extremes: { t: number; l: number }[] = [];
  for (const point of series) {
    const n = extremes.length;
    if (n >= 2) {
      const a = extremes[n - 2]!;
      const b = extremes[n - 1]!;
      if ((b.l - a.l) * (point.l - b.l) >= 0) {
        extremes[n - 1] = point;
        continue;
      }
    }
    if (n >= 1 && extremes[n - 1]!.l === point.l) {
      extremes[n - 1] = point;
      continue;
    }
    extremes.push(point);
  }
  const transitions: number[] = [];
  for (let i = 1; i < extremes.length; i++) {
    const a = extremes[i - 1]!;
    const b = extremes[i]!;
    if (Math.abs(b.l - a.l) >= FLASH_SWING && Math.min(a.l, b.l) < FLASH_DARK) transitions.push(b.t);
  }
  let most = 0;
  for (let i = 0; i < transitions.length; i++) {
    let j = i;
    while (j + 1 < transitions.length && transitions[j + 1]! - transitions[i]! < 1000) j++;
    most = Math.max(most, Math.floor((j - i + 1) / 2));
  }
  return most;
}

const SIZE_FULL = 16 * 1024;
const SIZE_ZERO = 512 * 1024;

export function sizeScore(bytes: number): number {
  if (bytes <= SIZE_FULL) return 1;
  if (bytes >= SIZE_ZERO) return 0;
  return 1 - Math.log2(bytes / SIZE_FULL) / Math.log2(SIZE_ZERO / SIZE_FULL);
}

/** The documented formula (see the top of this file). */
export function svgScore(checks: AnimationChecks): number {
  if (!checks.renders || !checks.moves) return 0;
  const score = 0.5 + 0.2 * checks.inViewBox + 0.2 * (checks.flashFree ? 1 : 0) + 0.1 * sizeScore(checks.bytes);
  return Math.round(score * 100) / 100;
}
