// Values an animation moves between: times, numbers with units, colours, transforms, easing.
// Pure functions; every parser reads its input once.

/* ---------- times ---------- */

const CSS_TIME = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)(ms|s)$/i;

/** A CSS `<time>` (`2s`, `150ms`) in milliseconds, or undefined. */
export function cssTimeMs(value: string): number | undefined {
  const match = CSS_TIME.exec(value.trim());
  if (!match) return undefined;
  const n = Number(match[1]);
  const ms = match[2]!.toLowerCase() === 's' ? n * 1000 : n;
  return Number.isFinite(ms) ? ms : undefined;
}

const CLOCK_FULL = /^(\d+):([0-5]\d):([0-5]\d(?:\.\d+)?)$/;
const CLOCK_PARTIAL = /^([0-5]?\d):([0-5]\d(?:\.\d+)?)$/;
const TIMECOUNT = /^((?:\d+(?:\.\d*)?|\.\d+))(h|min|s|ms)?$/;

/** A SMIL clock value (`2s`, `150ms`, `1.5`, `0:01.5`, `00:00:01.5`, `2min`, `1h`) in ms, or undefined. */
export function clockMs(value: string): number | undefined {
  const v = value.trim();
  let match = CLOCK_FULL.exec(v);
  if (match) return (Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3])) * 1000;
  match = CLOCK_PARTIAL.exec(v);
  if (match) return (Number(match[1]) * 60 + Number(match[2])) * 1000;
  match = TIMECOUNT.exec(v);
  if (!match) return undefined;
  const n = Number(match[1]);
  const unit = match[2] ?? 's';
  const scale = unit === 'h' ? 3_600_000 : unit === 'min' ? 60_000 : unit === 's' ? 1000 : 1;
  const ms = n * scale;
  return Number.isFinite(ms) ? ms : undefined;
}

/** Rounds a time to a millionth of a millisecond, so sums of decimal inputs stay exact. */
export function tidy(ms: number): number {
  return Math.round(ms * 1e6) / 1e6;
}

/* ---------- numbers and lengths ---------- */

const NUMBER_SOURCE = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?';
const NUMBER_GLOBAL = new RegExp(NUMBER_SOURCE, 'g');
const NUMBER_ONLY = new RegExp(`^${NUMBER_SOURCE}$`);

export function parseNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  return NUMBER_ONLY.test(v) ? Number(v) : undefined;
}

/** All numbers in a list such as `"10 20, 30"`. */
export function numbersIn(value: string): number[] {
  return (value.match(NUMBER_GLOBAL) ?? []).map(Number);
}

/** A length in px: px or unitless, absolute units, em/rem at 16 px. Percentages need a basis. */
const LENGTH = new RegExp(`^(${NUMBER_SOURCE})\\s*([a-z%]*)$`, 'i');
const ANGLE = new RegExp(`^(${NUMBER_SOURCE})\\s*(deg|rad|grad|turn)?$`, 'i');

export function lengthPx(value: string, percentBasis = 0): number | undefined {
  const match = LENGTH.exec(value.trim());
  if (!match) return undefined;
  const n = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  const scale: Record<string, number> = { '': 1, px: 1, pt: 4 / 3, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, q: 96 / 101.6, em: 16, rem: 16, ex: 8, ch: 8 };
  if (unit === '%') return (n / 100) * percentBasis;
  const s = scale[unit];
  return s === undefined ? undefined : n * s;
}

/** An angle in degrees: deg, rad, grad, turn, or a unitless number (SVG). */
export function angleDeg(value: string): number | undefined {
  const match = ANGLE.exec(value.trim());
  if (!match) return undefined;
  const n = Number(match[1]);
  switch ((match[2] ?? '').toLowerCase()) {
    case 'rad':
      return (n * 180) / Math.PI;
    case 'grad':
      return n * 0.9;
    case 'turn':
      return n * 360;
    default:
      return n;
  }
}

/** Formats a number briefly (six significant digits, no exponent for usual sizes). */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return '0';
  const r = Number(n.toPrecision(6));
  return Object.is(r, -0) ? '0' : String(r);
}

/* ---------- colours ---------- */

export interface Rgba {
  r: number;
  g: number;
  b: number;
  /** 0–1 */
  a: number;
}

const NAMED: Record<string, string> = {
  aliceblue: 'f0f8ff', antiquewhite: 'faebd7', aqua: '00ffff', aquamarine: '7fffd4', azure: 'f0ffff', beige: 'f5f5dc',
  bisque: 'ffe4c4', black: '000000', blanchedalmond: 'ffebcd', blue: '0000ff', blueviolet: '8a2be2', brown: 'a52a2a',
  burlywood: 'deb887', cadetblue: '5f9ea0', chartreuse: '7fff00', chocolate: 'd2691e', coral: 'ff7f50',
  cornflowerblue: '6495ed', cornsilk: 'fff8dc', crimson: 'dc143c', cyan: '00ffff', darkblue: '00008b', darkcyan: '008b8b',
  darkgoldenrod: 'b8860b', darkgray: 'a9a9a9', darkgreen: '006400', darkgrey: 'a9a9a9', darkkhaki: 'bdb76b',
  darkmagenta: '8b008b', darkolivegreen: '556b2f', darkorange: 'ff8c00', darkorchid: '9932cc', darkred: '8b0000',
  darksalmon: 'e9967a', darkseagreen: '8fbc8f', darkslateblue: '483d8b', darkslategray: '2f4f4f', darkslategrey: '2f4f4f',
  darkturquoise: '00ced1', darkviolet: '9400d3', deeppink: 'ff1493', deepskyblue: '00bfff', dimgray: '696969',
  dimgrey: '696969', dodgerblue: '1e90ff', firebrick: 'b22222', floralwhite: 'fffaf0', forestgreen: '228b22',
  fuchsia: 'ff00ff', gainsboro: 'dcdcdc', ghostwhite: 'f8f8ff', gold: 'ffd700', goldenrod: 'daa520', gray: '808080',
  green: '008000', greenyellow: 'adff2f', grey: '808080', honeydew: 'f0fff0', hotpink: 'ff69b4', indianred: 'cd5c5c',
  indigo: '4b0082', ivory: 'fffff0', khaki: 'f0e68c', lavender: 'e6e6fa', lavenderblush: 'fff0f5', lawngreen: '7cfc00',
  lemonchiffon: 'fffacd', lightblue: 'add8e6', lightcoral: 'f08080', lightcyan: 'e0ffff', lightgoldenrodyellow: 'fafad2',
  lightgray: 'd3d3d3', lightgreen: '90ee90', lightgrey: 'd3d3d3', lightpink: 'ffb6c1', lightsalmon: 'ffa07a',
  lightseagreen: '20b2aa', lightskyblue: '87cefa', lightslategray: '778899', lightslategrey: '778899',
  lightsteelblue: 'b0c4de', lightyellow: 'ffffe0', lime: '00ff00', limegreen: '32cd32', linen: 'faf0e6', magenta: 'ff00ff',
  maroon: '800000', mediumaquamarine: '66cdaa', mediumblue: '0000cd', mediumorchid: 'ba55d3', mediumpurple: '9370db',
  mediumseagreen: '3cb371', mediumslateblue: '7b68ee', mediumspringgreen: '00fa9a', mediumturquoise: '48d1cc',
  mediumvioletred: 'c71585', midnightblue: '191970', mintcream: 'f5fffa', mistyrose: 'ffe4e1', moccasin: 'ffe4b5',
  navajowhite: 'ffdead', navy: '000080', oldlace: 'fdf5e6', olive: '808000', olivedrab: '6b8e23', orange: 'ffa500',
  orangered: 'ff4500', orchid: 'da70d6', palegoldenrod: 'eee8aa', palegreen: '98fb98', paleturquoise: 'afeeee',
  palevioletred: 'db7093', papayawhip: 'ffefd5', peachpuff: 'ffdab9', peru: 'cd853f', pink: 'ffc0cb', plum: 'dda0dd',
  powderblue: 'b0e0e6', purple: '800080', rebeccapurple: '663399', red: 'ff0000', rosybrown: 'bc8f8f',
  royalblue: '4169e1', saddlebrown: '8b4513', salmon: 'fa8072', sandybrown: 'f4a460', seagreen: '2e8b57',
  seashell: 'fff5ee', sienna: 'a0522d', silver: 'c0c0c0', skyblue: '87ceeb', slateblue: '6a5acd', slategray: '708090',
  slategrey: '708090', snow: 'fffafa', springgreen: '00ff7f', steelblue: '4682b4', tan: 'd2b48c', teal: '008080',
  thistle: 'd8bfd8', tomato: 'ff6347', turquoise: '40e0d0', violet: 'ee82ee', wheat: 'f5deb3', white: 'ffffff',
  whitesmoke: 'f5f5f5', yellow: 'ffff00', yellowgreen: '9acd32',
};

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
  const named = NAMED[v];
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

/* ---------- generic values ---------- */

/** A value as numbers and the text between them, e.g. `10px 20px` → [10, 20] and ['', 'px ', 'px']. */
function skeleton(value: string): { numbers: number[]; text: string[] } {
  const numbers: number[] = [];
  const text: string[] = [];
  let at = 0;
  for (const match of value.matchAll(NUMBER_GLOBAL)) {
    // A number glued to a letter before it is part of a name (e.g. `h1`), not a value.
    const before = value[match.index! - 1];
    if (before !== undefined && /[a-zA-Z_#]/.test(before)) continue;
    text.push(value.slice(at, match.index));
    numbers.push(Number(match[0]));
    at = match.index! + match[0].length;
  }
  text.push(value.slice(at));
  return { numbers, text };
}

/**
 * Interpolates two values of a property that is not a transform: colours as colours, values
 * that differ only in their numbers number by number (lengths, lists, path data with the same
 * commands), anything else discretely (the first value until halfway, as CSS does).
 */
export function interpolate(from: string, to: string, p: number, options: { premultiplied: boolean; discreteAt?: number }): string {
  if (from === to) return from;
  const a = parseColor(from);
  const b = parseColor(to);
  if (a && b) return formatColor(mixColor(a, b, p, options.premultiplied));
  const sa = skeleton(from.trim());
  const sb = skeleton(to.trim());
  if (sa.numbers.length > 0 && sa.numbers.length === sb.numbers.length && sa.text.every((t, i) => t.trim() === sb.text[i]!.trim() || sameUnit(t, sb.text[i]!))) {
    let out = sa.text[0]!;
    for (let i = 0; i < sa.numbers.length; i++) out += fmt(sa.numbers[i]! + (sb.numbers[i]! - sa.numbers[i]!) * p) + (sa.text[i + 1]!.trim() === '' ? sb.text[i + 1]! : sa.text[i + 1]!);
    return out;
  }
  // A lone 0 stands for a length of any unit.
  const na = lengthPx(from);
  const nb = lengthPx(to);
  if (na !== undefined && nb !== undefined) return fmt(na + (nb - na) * p);
  return p < (options.discreteAt ?? 0.5) ? from : to;
}

function sameUnit(a: string, b: string): boolean {
  // `10 20` vs `10, 20`: separators differ, the values are the same kind.
  return a.replace(/[\s,]+/g, ' ').trim() === b.replace(/[\s,]+/g, ' ').trim();
}

/** Adds two values (additive or accumulating animations): numbers number by number, colours channel by channel. */
export function addValues(base: string, value: string, times = 1): string {
  const a = parseColor(base);
  const b = parseColor(value);
  if (a && b) return formatColor({ r: a.r + b.r * times, g: a.g + b.g * times, b: a.b + b.b * times, a: Math.min(1, a.a + b.a * times) });
  const sa = skeleton(base.trim());
  const sb = skeleton(value.trim());
  if (sa.numbers.length > 0 && sa.numbers.length === sb.numbers.length) {
    let out = sb.text[0]!;
    for (let i = 0; i < sa.numbers.length; i++) out += fmt(sa.numbers[i]! + sb.numbers[i]! * times) + sb.text[i + 1]!;
    return out;
  }
  const na = lengthPx(base);
  const nb = lengthPx(value);
  if (na !== undefined && nb !== undefined) return fmt(na + nb * times);
  return value;
}

/** A distance between two values for paced animations (numbers: Euclidean; colours: RGB). */
export function distance(from: string, to: string): number | undefined {
  const a = parseColor(from);
  const b = parseColor(to);
  if (a && b) return Math.hypot(a.r - b.r, a.g - b.g, a.b - b.b);
  const na = numbersIn(from);
  const nb = numbersIn(to);
  if (na.length === 0 || na.length !== nb.length) return undefined;
  return Math.hypot(...na.map((n, i) => n - nb[i]!));
}

/* ---------- easing ---------- */

export type Easing = (p: number) => number;

function cubicBezier(x1: number, y1: number, x2: number, y2: number): Easing {
  const bx = (t: number) => 3 * x1 * t * (1 - t) ** 2 + 3 * x2 * t ** 2 * (1 - t) + t ** 3;
  const by = (t: number) => 3 * y1 * t * (1 - t) ** 2 + 3 * y2 * t ** 2 * (1 - t) + t ** 3;
  const dx = (t: number) => 3 * x1 * (1 - t) ** 2 + 6 * (x2 - x1) * t * (1 - t) + 3 * (1 - x2) * t ** 2;
  return (x) => {
    if (x <= 0) return x1 > 0 ? (y1 / x1) * x : x2 > 0 && y2 !== 0 && x1 === 0 ? 0 : 0;
    if (x >= 1) return 1 + (x2 < 1 ? ((y2 - 1) / (x2 - 1)) * (x - 1) : 0);
    let t = x;
    for (let i = 0; i < 8; i++) {
      const err = bx(t) - x;
      if (Math.abs(err) < 1e-7) return by(t);
      const d = dx(t);
      if (Math.abs(d) < 1e-6) break;
      t -= err / d;
    }
    let lo = 0;
    let hi = 1;
    t = x;
    for (let i = 0; i < 60; i++) {
      const v = bx(t);
      if (Math.abs(v - x) < 1e-9) break;
      if (v < x) lo = t;
      else hi = t;
      t = (lo + hi) / 2;
    }
    return by(t);
  };
}

function steps(n: number, position: string): Easing {
  const count = Math.max(1, Math.floor(n));
  return (p) => {
    let jumps = count;
    let step = Math.floor(p * count);
    if (position === 'jump-start' || position === 'start' || position === 'jump-both') step += 1;
    if (position === 'jump-both') jumps = count + 1;
    if (position === 'jump-none') jumps = count - 1;
    if (p >= 0 && step < 0) step = 0;
    if (p <= 1 && step > jumps) step = jumps;
    return jumps <= 0 ? (p < 1 ? 0 : 1) : step / jumps;
  };
}

const linear: Easing = (p) => p;

/** The easing of a CSS `<easing-function>` (SMIL keySplines use `cubic-bezier` too). Unknown: linear. */
export function parseEasing(value: string | undefined): Easing {
  const v = (value ?? 'ease').trim().toLowerCase();
  switch (v) {
    case 'linear':
      return linear;
    case 'ease':
      return cubicBezier(0.25, 0.1, 0.25, 1);
    case 'ease-in':
      return cubicBezier(0.42, 0, 1, 1);
    case 'ease-out':
      return cubicBezier(0, 0, 0.58, 1);
    case 'ease-in-out':
      return cubicBezier(0.42, 0, 0.58, 1);
    case 'step-start':
      return steps(1, 'jump-start');
    case 'step-end':
      return steps(1, 'jump-end');
  }
  const fn = /^([a-z-]+)\((.*)\)$/.exec(v);
  if (!fn) return linear;
  if (fn[1] === 'cubic-bezier') {
    const n = numbersIn(fn[2]!);
    return n.length === 4 ? cubicBezier(n[0]!, n[1]!, n[2]!, n[3]!) : linear;
  }
  if (fn[1] === 'steps') {
    const [count, position] = fn[2]!.split(',').map((s) => s.trim());
    const n = parseNumber(count);
    return n === undefined ? linear : steps(n, position ?? 'jump-end');
  }
  if (fn[1] === 'linear') return linearFunction(fn[2]!);
  return linear;
}

export function splineEasing(x1: number, y1: number, x2: number, y2: number): Easing {
  return cubicBezier(x1, y1, x2, y2);
}

/** `linear(0, 0.25 40%, 1)`: piecewise-linear easing. */
function linearFunction(args: string): Easing {
  const points: { x?: number; y: number }[] = [];
  for (const part of args.split(',')) {
    const tokens = part.trim().split(/\s+/);
    const y = parseNumber(tokens[0]);
    if (y === undefined) return linear;
    const xs = tokens.slice(1).map((t) => parseNumber(t.replace('%', '')));
    if (xs.length === 0) points.push({ y });
    for (const x of xs) points.push({ x: x === undefined ? undefined : x / 100, y });
  }
  if (points.length < 2) return linear;
  if (points[0]!.x === undefined) points[0]!.x = 0;
  if (points.at(-1)!.x === undefined) points.at(-1)!.x = 1;
  for (let i = 1; i < points.length; i++) {
    if (points[i]!.x !== undefined) points[i]!.x = Math.max(points[i]!.x!, points[i - 1]!.x!);
  }
  for (let i = 1; i < points.length - 1; i++) {
    if (points[i]!.x !== undefined) continue;
    let j = i;
    while (points[j]!.x === undefined) j++;
    const start = points[i - 1]!.x!;
    const end = points[j]!.x!;
    for (let k = i; k < j; k++) points[k]!.x = start + ((end - start) * (k - i + 1)) / (j - i + 1);
  }
  return (p) => {
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1]!;
      const b = points[i]!;
      if (p <= b.x! || i === points.length - 1) {
        if (b.x! === a.x!) return b.y;
        return a.y + ((b.y - a.y) * (p - a.x!)) / (b.x! - a.x!);
      }
    }
    return points.at(-1)!.y;
  };
}

/* ---------- transforms ---------- */

/** A 2D affine matrix [a b c d e f] as SVG writes it. */
export type Matrix = [number, number, number, number, number, number];
export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

export function applyMatrix(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

const rad = (deg: number) => (deg * Math.PI) / 180;

/** One transform function with its arguments resolved to px and degrees. */
export interface TransformFunction {
  name: 'translate' | 'scale' | 'rotate' | 'skew' | 'skewX' | 'skewY' | 'matrix';
  args: number[];
}

export function functionMatrix(f: TransformFunction): Matrix {
  const [x = 0, y = 0] = f.args;
  switch (f.name) {
    case 'translate':
      return [1, 0, 0, 1, x, y];
    case 'scale':
      return [x, 0, 0, f.args.length > 1 ? y : x, 0, 0];
    case 'rotate': {
      const c = Math.cos(rad(x));
      const s = Math.sin(rad(x));
      const [, cx = 0, cy = 0] = f.args;
      // rotate(a cx cy) = translate(cx cy) rotate(a) translate(-cx -cy)
      return [c, s, -s, c, cx - c * cx + s * cy, cy - s * cx - c * cy];
    }
    case 'skew':
      return [1, Math.tan(rad(y)), Math.tan(rad(x)), 1, 0, 0];
    case 'skewX':
      return [1, 0, Math.tan(rad(x)), 1, 0, 0];
    case 'skewY':
      return [1, Math.tan(rad(x)), 0, 1, 0, 0];
    case 'matrix':
      return f.args.length === 6 ? (f.args as Matrix) : IDENTITY;
  }
}

export function listMatrix(list: TransformFunction[]): Matrix {
  return list.reduce<Matrix>((m, f) => multiply(m, functionMatrix(f)), IDENTITY);
}

/** An SVG `transform` attribute (unitless numbers, rotate with a centre), or undefined when malformed. */
export function parseSvgTransform(value: string): TransformFunction[] | undefined {
  const list: TransformFunction[] = [];
  const re = /\s*(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)\s*,?/gy;
  const text = value.trim();
  if (text === '' || text === 'none') return [];
  let at = 0;
  let match: RegExpExecArray | null;
  while (at < text.length && (match = re.exec(text))) {
    at = re.lastIndex;
    const args = numbersIn(match[2]!);
    const name = match[1] as TransformFunction['name'];
    const arity: Record<string, number[]> = { matrix: [6], translate: [1, 2], scale: [1, 2], rotate: [1, 3], skewX: [1], skewY: [1] };
    if (!arity[name]!.includes(args.length)) return undefined;
    list.push({ name, args: name === 'translate' && args.length === 1 ? [args[0]!, 0] : args });
  }
  return at >= text.length ? list : undefined;
}

/** The reference box CSS transforms resolve percentages and `transform-origin` against. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A CSS `transform` value (`translateX(10px) rotate(45deg)`, also SVG's unitless syntax),
 * percentages against the reference box. 3D functions are flattened the way they look without
 * perspective: rotateX(a) as scaleY(cos a), rotateY(a) as scaleX(cos a), Z parts dropped.
 */
export function parseCssTransform(value: string, box: Box): TransformFunction[] | undefined {
  const text = value.trim();
  if (text === '' || text.toLowerCase() === 'none') return [];
  const list: TransformFunction[] = [];
  const re = /\s*([a-zA-Z0-9]+)\s*\(([^)]*)\)\s*/gy;
  let at = 0;
  let match: RegExpExecArray | null;
  while (at < text.length && (match = re.exec(text))) {
    at = re.lastIndex;
    const name = match[1]!.toLowerCase();
    const args = match[2]!.split(/\s*,\s*|\s+/).filter(Boolean);
    const len = (i: number, basis: number) => (args[i] === undefined ? 0 : lengthPx(args[i]!, basis));
    const ang = (i: number) => (args[i] === undefined ? 0 : angleDeg(args[i]!));
    const num = (i: number) => parseNumber(args[i]);
    const pct = (i: number) => (args[i]?.endsWith('%') ? parseNumber(args[i]!.slice(0, -1))! / 100 : num(i));
    let f: TransformFunction | undefined;
    switch (name) {
      case 'translate': {
        const x = len(0, box.width);
        const y = len(1, box.height);
        if (x !== undefined && y !== undefined) f = { name: 'translate', args: [x, y] };
        break;
      }
      case 'translatex':
      case 'translatey': {
        const v = len(0, name === 'translatex' ? box.width : box.height);
        if (v !== undefined) f = { name: 'translate', args: name === 'translatex' ? [v, 0] : [0, v] };
        break;
      }
      case 'translate3d': {
        const x = len(0, box.width);
        const y = len(1, box.height);
        if (x !== undefined && y !== undefined) f = { name: 'translate', args: [x, y] };
        break;
      }
      case 'translatez':
      case 'perspective':
        f = { name: 'translate', args: [0, 0] };
        break;
      case 'scale':
      case 'scale3d': {
        const x = pct(0);
        const y = args.length > 1 ? pct(1) : x;
        if (x !== undefined && y !== undefined) f = { name: 'scale', args: [x, y] };
        break;
      }
      case 'scalex':
      case 'scaley': {
        const v = pct(0);
        if (v !== undefined) f = { name: 'scale', args: name === 'scalex' ? [v, 1] : [1, v] };
        break;
      }
      case 'scalez':
        f = { name: 'scale', args: [1, 1] };
        break;
      case 'rotate':
      case 'rotatez': {
        // SVG's rotate(a cx cy) is accepted in CSS only as rotate(a); a centre is honoured for SVG syntax.
        const a = ang(0);
        if (a !== undefined && args.length === 1) f = { name: 'rotate', args: [a] };
        else if (a !== undefined && args.length === 3) {
          const cx = num(1);
          const cy = num(2);
          if (cx !== undefined && cy !== undefined) f = { name: 'rotate', args: [a, cx, cy] };
        }
        break;
      }
      case 'rotatex':
      case 'rotatey': {
        const a = ang(0);
        if (a !== undefined) f = { name: 'scale', args: name === 'rotatex' ? [1, Math.cos(rad(a))] : [Math.cos(rad(a)), 1] };
        break;
      }
      case 'rotate3d': {
        const [x, y, z] = [num(0), num(1), num(2)];
        const a = ang(3);
        if (x !== undefined && y !== undefined && z !== undefined && a !== undefined) {
          const n = Math.hypot(x, y, z) || 1;
          // Only the Z part rotates in the plane; X and Y parts foreshorten.
          if (Math.abs(z / n) > 0.999) f = { name: 'rotate', args: [Math.sign(z) * a] };
          else f = { name: 'scale', args: [Math.abs(x / n) > 0.5 ? 1 : Math.cos(rad(a)), Math.abs(y / n) > 0.5 ? 1 : Math.cos(rad(a))] };
        }
        break;
      }
      case 'skew': {
        const x = ang(0);
        const y = args.length > 1 ? ang(1) : 0;
        if (x !== undefined && y !== undefined) f = { name: 'skew', args: [x, y] };
        break;
      }
      case 'skewx':
      case 'skewy': {
        const a = ang(0);
        if (a !== undefined) f = { name: name === 'skewx' ? 'skewX' : 'skewY', args: [a] };
        break;
      }
      case 'matrix': {
        const n = args.map((a) => parseNumber(a));
        if (n.length === 6 && n.every((v) => v !== undefined)) f = { name: 'matrix', args: n as number[] };
        break;
      }
      case 'matrix3d': {
        const n = args.map((a) => parseNumber(a));
        if (n.length === 16 && n.every((v) => v !== undefined)) {
          const m = n as number[];
          f = { name: 'matrix', args: [m[0]!, m[1]!, m[4]!, m[5]!, m[12]!, m[13]!] };
        }
        break;
      }
    }
    if (!f) return undefined;
    list.push(f);
  }
  return at >= text.length ? list : undefined;
}

/** The identity function of a transform function's kind (for interpolating from `none`). */
function identityOf(f: TransformFunction): TransformFunction {
  switch (f.name) {
    case 'scale':
      return { name: 'scale', args: [1, 1] };
    case 'matrix':
      return { name: 'matrix', args: [...IDENTITY] };
    case 'rotate':
      return { name: 'rotate', args: f.args.length === 3 ? [0, f.args[1]!, f.args[2]!] : [0] };
    case 'skew':
      return { name: 'skew', args: [0, 0] };
    default:
      return { name: f.name, args: f.args.map(() => 0) };
  }
}

/**
 * Interpolates two transform lists as CSS does: function by function when they have the same
 * kinds (a missing side counts as identity functions), else through the decomposition of their
 * 2D matrices (translation, rotation, scale and skew interpolated separately).
 */
export function interpolateTransforms(from: TransformFunction[], to: TransformFunction[], p: number): TransformFunction[] {
  const a = from.length === 0 ? to.map(identityOf) : from;
  const b = to.length === 0 ? from.map(identityOf) : to;
  const pairwise = a.length === b.length && a.every((f, i) => f.name === b[i]!.name && f.args.length === b[i]!.args.length);
  if (pairwise) return a.map((f, i) => ({ name: f.name, args: f.args.map((v, j) => v + (b[i]!.args[j]! - v) * p) }));
  return [{ name: 'matrix', args: interpolateMatrices(listMatrix(a), listMatrix(b), p) }];
}

interface Decomposed {
  translate: [number, number];
  scale: [number, number];
  angle: number;
  m: [number, number, number, number];
}

/** CSS Transforms 1, "Decomposing a 2D matrix". */
function decompose(matrix: Matrix): Decomposed {
  let [row0x, row0y, row1x, row1y] = matrix;
  const translate: [number, number] = [matrix[4], matrix[5]];
  const scale: [number, number] = [Math.hypot(row0x, row0y), Math.hypot(row1x, row1y)];
  const determinant = row0x * row1y - row0y * row1x;
  if (determinant < 0) {
    if (row0x < row1y) scale[0] = -scale[0];
    else scale[1] = -scale[1];
  }
  if (scale[0]) {
    row0x /= scale[0];
    row0y /= scale[0];
  }
  if (scale[1]) {
    row1x /= scale[1];
    row1y /= scale[1];
  }
  const angle = Math.atan2(row0y, row0x);
  if (angle) {
    const sn = -row0y;
    const cs = row0x;
    const [m11, m12, m21, m22] = [row0x, row0y, row1x, row1y];
    row0x = cs * m11 + sn * m21;
    row0y = cs * m12 + sn * m22;
    row1x = -sn * m11 + cs * m21;
    row1y = -sn * m12 + cs * m22;
  }
  return { translate, scale, angle: (angle * 180) / Math.PI, m: [row0x, row0y, row1x, row1y] };
}

function recompose(d: Decomposed): Matrix {
  let m: Matrix = [d.m[0], d.m[1], d.m[2], d.m[3], 0, 0];
  m = multiply([1, 0, 0, 1, d.translate[0], d.translate[1]], multiply(functionMatrix({ name: 'rotate', args: [d.angle] }), m));
  return multiply(m, [d.scale[0], 0, 0, d.scale[1], 0, 0]);
}

/**
 * The decomposition browsers use (CSS Transforms 2's 3D "unmatrix", here for plane matrices):
 * translation, rotation, an XY shear and scale, M = T · R(θ) · skewX(atan k) · S.
 */
function unmatrix(m: Matrix): { tx: number; ty: number; angle: number; shear: number; sx: number; sy: number } {
  const sx = Math.hypot(m[0], m[1]);
  const ux = m[0] / sx;
  const uy = m[1] / sx;
  let shear = ux * m[2] + uy * m[3];
  const vx = m[2] - shear * ux;
  const vy = m[3] - shear * uy;
  const sy = Math.hypot(vx, vy);
  shear /= sy;
  return { tx: m[4], ty: m[5], angle: (Math.atan2(uy, ux) * 180) / Math.PI, shear, sx, sy };
}

export function interpolateMatrices(from: Matrix, to: Matrix, p: number): Matrix {
  const det = (m: Matrix) => m[0] * m[3] - m[1] * m[2];
  if (det(from) > 0 && det(to) > 0) {
    const a = unmatrix(from);
    const b = unmatrix(to);
    // Rotations take the shorter way round (quaternion slerp about the Z axis).
    let delta = b.angle - a.angle;
    if (delta > 180) delta -= 360;
    if (delta < -180) delta += 360;
    const lerp = (x: number, y: number) => x + (y - x) * p;
    const r = functionMatrix({ name: 'rotate', args: [a.angle + delta * p] });
    let m = multiply([1, 0, 0, 1, lerp(a.tx, b.tx), lerp(a.ty, b.ty)], r);
    m = multiply(m, [1, 0, lerp(a.shear, b.shear), 1, 0, 0]);
    return multiply(m, [lerp(a.sx, b.sx), 0, 0, lerp(a.sy, b.sy), 0, 0]);
  }
  const a = decompose(from);
  const b = decompose(to);
  if ((a.scale[0] < 0 && b.scale[1] < 0) || (a.scale[1] < 0 && b.scale[0] < 0)) {
    a.scale = [-a.scale[0], -a.scale[1]];
    a.angle += a.angle < 0 ? 180 : -180;
  }
  if (!a.angle) a.angle = 360;
  if (!b.angle) b.angle = 360;
  if (Math.abs(a.angle - b.angle) > 180) {
    if (a.angle > b.angle) a.angle -= 360;
    else b.angle -= 360;
  }
  const lerp = (x: number, y: number) => x + (y - x) * p;
  return recompose({
    translate: [lerp(a.translate[0], b.translate[0]), lerp(a.translate[1], b.translate[1])],
    scale: [lerp(a.scale[0], b.scale[0]), lerp(a.scale[1], b.scale[1])],
    angle: lerp(a.angle, b.angle),
    m: [lerp(a.m[0], b.m[0]), lerp(a.m[1], b.m[1]), lerp(a.m[2], b.m[2]), lerp(a.m[3], b.m[3])],
  });
}

export function formatMatrix(m: Matrix): string {
  return `matrix(${m.map(fmt).join(' ')})`;
}
