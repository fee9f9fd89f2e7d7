// Numbers as CSS and SMIL write them: times (CSS `<time>`, SMIL clock values), plain numbers and
// lists of them, lengths and angles; and the brief form frames write numbers in.

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

export const NUMBER_SOURCE = '[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?';
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
