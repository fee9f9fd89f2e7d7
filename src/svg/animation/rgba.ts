// CSS colours with alpha, as animations interpolate them.
import { NAMED_COLOURS } from '../css/colour-names.ts';
import { angleDeg, fmt, parseNumber } from './numbers.ts';

export interface Rgba {
  r: number;
  g: number;
  b: number;
  /** 0–1 */
  a: number;
}

function hex(h: string): Rgba | undefined {
  if (!/^[0-9a-f]+$/i.test(h)) return undefined;
  if (h.length === 3 || h.length === 4) {
    const [r, g, b, a] = [...h].map((c) => parseInt(c + c, 16));
    return { r: r!, g: g!, b: b!, a: h.length === 4 ? a! / 255 : 1 };
  }
  if (h.length === 6 || h.length === 8) {
    const n = (i: number) => parseInt(h.slice(i, i + 2), 16);
    return { r: n(0), g: n(2), b: n(4), a: h.length === 8 ? n(6) / 255 : 1 };
  }
  return undefined;
}

function channel(token: string): number | undefined {
  const t = token.trim();
  if (t.endsWith('%')) {
    const n = parseNumber(t.slice(0, -1));
    return n === undefined ? undefined : (n / 100) * 255;
  }
  return parseNumber(t);
}

function alpha(token: string | undefined): number | undefined {
  if (token === undefined) return 1;
  const t = token.trim();
  if (t.endsWith('%')) {
    const n = parseNumber(t.slice(0, -1));
    return n === undefined ? undefined : n / 100;
  }
  return parseNumber(t);
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const hue = (((h % 360) + 360) % 360) / 360;
  const f = (n: number) => {
    const k = (n + hue * 12) % 12;
    const a = s * Math.min(l, 1 - l);
    return l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [f(0) * 255, f(8) * 255, f(4) * 255];
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** A CSS colour, or undefined (`none`, `currentColor`, `url(#…)` and unknown words are not colours here). */
export function parseColor(value: string): Rgba | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  if (v.startsWith('#')) return hex(v.slice(1));
  const named = NAMED_COLOURS.get(v);
  if (named) return hex(named);
  const fn = /^(rgba?|hsla?)\(([^)]*)\)$/.exec(v);
  if (!fn) return undefined;
  const body = fn[2]!;
  let parts: string[];
  let a: string | undefined;
  if (body.includes(',')) {
    parts = body.split(',');
    if (parts.length === 4) a = parts.pop();
  } else {
    const [main, slash] = body.split('/');
    parts = main!.trim().split(/\s+/);
    a = slash;
  }
  if (parts.length !== 3) return undefined;
  const al = alpha(a);
  if (al === undefined) return undefined;
  if (fn[1]!.startsWith('rgb')) {
    const [r, g, b] = parts.map(channel);
    if (r === undefined || g === undefined || b === undefined) return undefined;
    return { r: clamp(r, 0, 255), g: clamp(g, 0, 255), b: clamp(b, 0, 255), a: clamp(al, 0, 1) };
  }
  const h = angleDeg(parts[0]!);
  const s = parseNumber(parts[1]!.replace('%', ''));
  const l = parseNumber(parts[2]!.replace('%', ''));
  if (h === undefined || s === undefined || l === undefined) return undefined;
  const [r, g, b] = hslToRgb(h, clamp(s / 100, 0, 1), clamp(l / 100, 0, 1));
  return { r, g, b, a: clamp(al, 0, 1) };
}

export function formatColor(c: Rgba): string {
  const r = Math.round(clamp(c.r, 0, 255));
  const g = Math.round(clamp(c.g, 0, 255));
  const b = Math.round(clamp(c.b, 0, 255));
  const a = clamp(c.a, 0, 1);
  return a >= 1 ? `rgb(${r},${g},${b})` : `rgba(${r},${g},${b},${fmt(a)})`;
}

/** CSS interpolates colours premultiplied by alpha; SMIL channel by channel. */
export function mixColor(from: Rgba, to: Rgba, p: number, premultiplied: boolean): Rgba {
  const a = from.a + (to.a - from.a) * p;
  if (!premultiplied || a === 0) {
    return { r: from.r + (to.r - from.r) * p, g: from.g + (to.g - from.g) * p, b: from.b + (to.b - from.b) * p, a };
  }
  const mix = (x: number, y: number) => (x * from.a + (y * to.a - x * from.a) * p) / a;
  return { r: mix(from.r, to.r), g: mix(from.g, to.g), b: mix(from.b, to.b), a };
}
