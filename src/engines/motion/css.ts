// The animator's style sheet, written and read back. The sheet is plain CSS any browser plays
// (and passes the sanitizer: no `<`, no url(), no escapes); reading it back gives the very
// tracks a browser plays, rounded values included, which is what makes frames exact.
//
//   .P{transform-box:view-box;transform-origin:0 0}
//   @keyframes Pk1{0%{opacity:0;animation-timing-function:cubic-bezier(0,0,0.58,1)}100%{opacity:1}}
//   .P1{animation:Pk1 900ms linear 0ms 1 backwards}
//   @media (prefers-reduced-motion:reduce){.P{animation:none!important}}

import { formatColour, parseOpaqueColour } from './colour.ts';
import { LINEAR, cubic, type Easing, type FillMode, type Keyframe, type Track, type TransformValue, type Values } from './timeline.ts';

/** A number as written: at most four decimals, no needless zeros, never -0. */
export function fmt(n: number): string {
  const rounded = Math.round(n * 10_000) / 10_000;
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

function easingCss(easing: Easing): string {
  return easing.kind === 'linear' ? 'linear' : `cubic-bezier(${fmt(easing.x1)},${fmt(easing.y1)},${fmt(easing.x2)},${fmt(easing.y2)})`;
}

function transformCss(value: TransformValue, pivot: { x: number; y: number }): string {
  return (
    `translate(${fmt(pivot.x + value.tx)}px,${fmt(pivot.y + value.ty)}px) rotate(${fmt(value.rotate)}deg) ` +
    `scale(${fmt(value.sx)},${fmt(value.sy)}) translate(${fmt(-pivot.x)}px,${fmt(-pivot.y)}px)`
  );
}

function valuesCss(values: Values, pivot: { x: number; y: number }): string[] {
  const out: string[] = [];
  if (values.opacity !== undefined) out.push(`opacity:${fmt(values.opacity)}`);
  if (values.transform) out.push(`transform:${transformCss(values.transform, pivot)}`);
  if (values['stroke-dasharray']) out.push(`stroke-dasharray:${fmt(values['stroke-dasharray'][0])} ${fmt(values['stroke-dasharray'][1])}`);
  if (values['stroke-dashoffset'] !== undefined) out.push(`stroke-dashoffset:${fmt(values['stroke-dashoffset'])}`);
  if (values['fill-opacity'] !== undefined) out.push(`fill-opacity:${fmt(values['fill-opacity'])}`);
  if (values.fill) out.push(`fill:${formatColour(values.fill)}`);
  if (values.stroke) out.push(`stroke:${formatColour(values.stroke)}`);
  if (values['stop-color']) out.push(`stop-color:${formatColour(values['stop-color'])}`);
  return out;
}

function offsetCss(offset: number): string {
  return `${fmt(offset * 100)}%`;
}

export interface SheetHost {
  className: string;
  tracks: { name: string; track: Track }[];
}

/** The whole sheet for a prefix and its hosts. Identical keyframes are written once and shared. */
export function writeSheet(prefix: string, hosts: SheetHost[]): string {
  const parts: string[] = [`.${prefix}{transform-box:view-box;transform-origin:0 0}`];
  const written = new Map<string, string>();
  for (const host of hosts) {
    const animations: string[] = [];
    for (const { name, track } of host.tracks) {
      const pivot = track.pivot ?? { x: 0, y: 0 };
      const frames = track.keyframes
        .map((keyframe, i) => {
          const declarations = valuesCss(keyframe.values, pivot);
          if (i < track.keyframes.length - 1) declarations.push(`animation-timing-function:${easingCss(keyframe.easing)}`);
          return `${offsetCss(keyframe.offset)}{${declarations.join(';')}}`;
        })
        .join('');
      let shared = written.get(frames);
      if (!shared) {
        shared = name;
        written.set(frames, name);
        parts.push(`@keyframes ${name}{${frames}}`);
      }
      animations.push(`${shared} ${fmt(track.durationMs)}ms linear ${fmt(track.delayMs)}ms ${track.iterations === 'infinite' ? 'infinite' : fmt(track.iterations)} ${track.fill}`);
    }
    parts.push(`.${host.className}{animation:${animations.join(',')}}`);
  }
  parts.push(`@media (prefers-reduced-motion:reduce){.${prefix}{animation:none!important}}`);
  return parts.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Reading back (the animator's own format only).

const NUM = '(-?[\\d.]+(?:e-?\\d+)?)';
const TRANSFORM = new RegExp(`^translate\\(${NUM}px,${NUM}px\\) rotate\\(${NUM}deg\\) scale\\(${NUM},${NUM}\\) translate\\(${NUM}px,${NUM}px\\)$`);
const CUBIC = new RegExp(`^cubic-bezier\\(${NUM},${NUM},${NUM},${NUM}\\)$`);

function readEasing(value: string | undefined): Easing {
  if (!value || value === 'linear') return LINEAR;
  const m = CUBIC.exec(value);
  return m ? cubic(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])) : LINEAR;
}

function readKeyframe(offset: number, block: string): { keyframe: Keyframe; pivot?: { x: number; y: number } } {
  const values: Values = {};
  let easing: Easing = LINEAR;
  let pivot: { x: number; y: number } | undefined;
  for (const declaration of block.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon < 0) continue;
    const property = declaration.slice(0, colon).trim();
    const value = declaration.slice(colon + 1).trim();
    switch (property) {
      case 'opacity':
      case 'fill-opacity':
      case 'stroke-dashoffset':
        values[property] = Number(value);
        break;
      case 'stroke-dasharray': {
        const [dash, gap] = value.split(/\s+/).map(Number);
        values['stroke-dasharray'] = [dash!, gap!];
        break;
      }
      case 'fill':
      case 'stroke':
      case 'stop-color': {
        const colour = parseOpaqueColour(value);
        if (colour) values[property] = colour;
        break;
      }
      case 'transform': {
        const m = TRANSFORM.exec(value);
        if (!m) break;
        const [a, b, rotate, sx, sy, c, d] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
        pivot = { x: -c, y: -d };
        values.transform = { tx: a + c, ty: b + d, rotate, sx, sy };
        break;
      }
      case 'animation-timing-function':
        easing = readEasing(value);
        break;
    }
  }
  return { keyframe: { offset, values, easing }, pivot };
}

/** Reads a sheet written by writeSheet: the tracks of each host class. */
export function readSheet(css: string): Map<string, Track[]> {
  const keyframes = new Map<string, { keyframes: Keyframe[]; pivot?: { x: number; y: number } }>();
  for (const match of css.matchAll(/@keyframes\s+([\w-]+)\s*\{((?:[^{}]*\{[^{}]*\})*)\s*\}/g)) {
    const frames: Keyframe[] = [];
    let pivot: { x: number; y: number } | undefined;
    for (const f of match[2]!.matchAll(/([\d.]+)%\s*\{([^{}]*)\}/g)) {
      const read = readKeyframe(Number(f[1]) / 100, f[2]!);
      frames.push(read.keyframe);
      pivot ??= read.pivot;
    }
    frames.sort((a, b) => a.offset - b.offset);
    keyframes.set(match[1]!, { keyframes: frames, pivot });
  }
  const hosts = new Map<string, Track[]>();
  for (const match of css.matchAll(/(?:^|\n)\.([\w-]+)\{animation:([^{}]*)\}/g)) {
    const tracks: Track[] = [];
    for (const item of match[2]!.split(',')) {
      const m = /^\s*([\w-]+)\s+([\d.]+)ms\s+linear\s+(-?[\d.]+)ms\s+(infinite|[\d.]+)\s+(none|backwards|forwards|both)\s*$/.exec(item);
      if (!m) continue;
      const frames = keyframes.get(m[1]!);
      if (!frames || frames.keyframes.length === 0) continue;
      tracks.push({
        keyframes: frames.keyframes,
        pivot: frames.pivot,
        durationMs: Number(m[2]),
        delayMs: Number(m[3]),
        iterations: m[4] === 'infinite' ? 'infinite' : Number(m[4]),
        fill: m[5] as FillMode,
      });
    }
    if (tracks.length > 0) hosts.set(match[1]!, tracks);
  }
  return hosts;
}
