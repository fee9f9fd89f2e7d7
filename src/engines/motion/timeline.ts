// Animations as the animator writes them — CSS keyframe animations on one element each — and
// their exact state at a time t, evaluated as CSS Animations Level 1 does: delay, duration,
// iteration count, fill mode, per-keyframe timing functions (cubic-bezier solved as browsers
// do), and the later animation of an element winning where two set the same property.

import { cubicBezierAt } from '../../svg/animation/cubic-bezier.ts';
import type { Rgb } from './colour.ts';

export type Easing = { kind: 'linear' } | { kind: 'cubic'; x1: number; y1: number; x2: number; y2: number };

export const LINEAR: Easing = { kind: 'linear' };
export const cubic = (x1: number, y1: number, x2: number, y2: number): Easing => ({ kind: 'cubic', x1, y1, x2, y2 });
/** The curves the motions use, named for what they do. */
export const EASE = {
  linear: LINEAR,
  out: cubic(0, 0, 0.58, 1),
  in: cubic(0.42, 0, 1, 1),
  inOut: cubic(0.42, 0, 0.58, 1),
  outBack: cubic(0.22, 1, 0.36, 1),
  sineInOut: cubic(0.37, 0, 0.63, 1),
  sineOut: cubic(0.61, 1, 0.88, 1),
  sineIn: cubic(0.12, 0, 0.39, 0),
  fall: cubic(0.55, 0, 0.85, 0.45),
  rise: cubic(0.15, 0.55, 0.45, 1),
} as const;

/** A 2D transform about a fixed pivot: translate(pivot + t) rotate(r) scale(sx, sy) translate(-pivot). */
export interface TransformValue {
  tx: number;
  ty: number;
  rotate: number;
  sx: number;
  sy: number;
}

export const REST_TRANSFORM: TransformValue = { tx: 0, ty: 0, rotate: 0, sx: 1, sy: 1 };

/** The properties the motions animate. */
export interface Values {
  transform?: TransformValue;
  opacity?: number;
  'fill-opacity'?: number;
  /** Dash and gap, in pathLength units (the element carries pathLength="1"). */
  'stroke-dasharray'?: [number, number];
  'stroke-dashoffset'?: number;
  fill?: Rgb;
  stroke?: Rgb;
  'stop-color'?: Rgb;
}
export type Property = keyof Values;

export interface Keyframe {
  /** 0–1. */
  offset: number;
  values: Values;
  /** The timing function from this keyframe to the next. */
  easing: Easing;
}

export type FillMode = 'none' | 'backwards' | 'forwards' | 'both';

export interface Track {
  keyframes: Keyframe[];
  /** The pivot of the transform, in the element's parent coordinates (constant over the track). */
  pivot?: { x: number; y: number };
  durationMs: number;
  delayMs: number;
  iterations: number | 'infinite';
  fill: FillMode;
}

/** A timing function at x (0–1). */
export function ease(easing: Easing, x: number): number {
  return easing.kind === 'linear' ? x : cubicBezierAt(easing.x1, easing.y1, easing.x2, easing.y2, x);
}

const lerp = (a: number, b: number, p: number) => a + (b - a) * p;

function mix(a: Values, b: Values, p: number): Values {
  const out: Values = {};
  for (const key of Object.keys(a) as Property[]) {
    const va = a[key];
    const vb = b[key];
    if (va === undefined || vb === undefined) continue;
    if (key === 'transform') {
      const ta = va as TransformValue;
      const tb = vb as TransformValue;
      out.transform = { tx: lerp(ta.tx, tb.tx, p), ty: lerp(ta.ty, tb.ty, p), rotate: lerp(ta.rotate, tb.rotate, p), sx: lerp(ta.sx, tb.sx, p), sy: lerp(ta.sy, tb.sy, p) };
    } else if (key === 'stroke-dasharray') {
      const da = va as [number, number];
      const db = vb as [number, number];
      out[key] = [lerp(da[0], db[0], p), lerp(da[1], db[1], p)];
    } else if (key === 'fill' || key === 'stroke' || key === 'stop-color') {
      const ca = va as Rgb;
      const cb = vb as Rgb;
      out[key] = { r: lerp(ca.r, cb.r, p), g: lerp(ca.g, cb.g, p), b: lerp(ca.b, cb.b, p) };
    } else {
      (out as Record<string, number>)[key] = lerp(va as number, vb as number, p);
    }
  }
  return out;
}

/** Where a track is at time t: its iteration progress (0–1), or undefined when it has no effect. */
export function progressAt(track: Track, timeMs: number): number | undefined {
  const local = timeMs - track.delayMs;
  const duration = track.durationMs;
  const activeEnd = track.iterations === 'infinite' ? Infinity : duration * track.iterations;
  if (local < 0) return track.fill === 'backwards' || track.fill === 'both' ? 0 : undefined;
  if (local >= activeEnd) {
    if (!(track.fill === 'forwards' || track.fill === 'both')) return undefined;
    const iterations = track.iterations as number;
    const fraction = iterations % 1;
    return fraction === 0 ? 1 : fraction;
  }
  if (duration <= 0) return 1;
  return (local % duration) / duration;
}

/** The values of a track at an iteration progress. */
function valuesAtProgress(track: Track, progress: number): Values {
  const frames = track.keyframes;
  if (progress <= frames[0]!.offset) return frames[0]!.values;
  for (let i = 0; i < frames.length - 1; i++) {
    const a = frames[i]!;
    const b = frames[i + 1]!;
    if (progress <= b.offset) {
      if (progress === b.offset) return b.values;
      const span = b.offset - a.offset;
      const p = span > 0 ? (progress - a.offset) / span : 1;
      return mix(a.values, b.values, ease(a.easing, p));
    }
  }
  return frames[frames.length - 1]!.values;
}

/** The values a track applies at time t, or undefined when it applies none. */
function trackValuesAt(track: Track, timeMs: number): Values | undefined {
  const progress = progressAt(track, timeMs);
  return progress === undefined ? undefined : valuesAtProgress(track, progress);
}

/** What an element's animations apply at t: per property, the last track in effect wins. */
export function hostValuesAt(tracks: readonly Track[], timeMs: number): { values: Values; pivot?: { x: number; y: number } } {
  const values: Values = {};
  let pivot: { x: number; y: number } | undefined;
  for (const track of tracks) {
    const v = trackValuesAt(track, timeMs);
    if (!v) continue;
    Object.assign(values, v);
    if (v.transform) pivot = track.pivot;
  }
  return { values, pivot };
}

/** When a finite track ends (delay + duration × iterations); Infinity for an endless one. */
export function trackEnd(track: Track): number {
  return track.iterations === 'infinite' ? Infinity : track.delayMs + track.durationMs * track.iterations;
}
