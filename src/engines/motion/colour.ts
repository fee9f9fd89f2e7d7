// CSS colours as the animator needs them: parsed to sRGB, written as hex, shifted in hue.
import { NAMED_COLOURS } from '../../svg/css/colour-names.ts';

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** An opaque colour, or undefined for anything else (transparent, alpha below 1, keywords, url()). */
export function parseOpaqueColour(value: string): Rgb | undefined {
  const v = value.trim().toLowerCase();
  const named = NAMED_COLOURS.get(v);
  if (named) return hex(named);
  if (/^#[0-9a-f]{3}$/.test(v)) return hex([...v.slice(1)].map((c) => c + c).join(''));
  if (/^#[0-9a-f]{4}$/.test(v)) return v[4] === 'f' ? hex([...v.slice(1, 4)].map((c) => c + c).join('')) : undefined;
  if (/^#[0-9a-f]{6}$/.test(v)) return hex(v.slice(1));
  if (/^#[0-9a-f]{8}$/.test(v)) return v.endsWith('ff') ? hex(v.slice(1, 7)) : undefined;
  const fn = /^(rgba?|hsla?)\(([^()]*)\)$/.exec(v);
  if (!fn) return undefined;
  const parts = fn[2]!.split(/[\s,/]+/).filter(Boolean);
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  if (parts.length === 4) {
    const alpha = parts[3]!.endsWith('%') ? Number.parseFloat(parts[3]!) / 100 : Number.parseFloat(parts[3]!);
    if (!(alpha >= 1)) return undefined;
  }
  const numbers = parts.slice(0, 3).map((p) => Number.parseFloat(p));
  if (numbers.some((n) => !Number.isFinite(n))) return undefined;
  if (fn[1]!.startsWith('rgb')) {
    const channel = (p: string, n: number) => clamp255(p.endsWith('%') ? (n * 255) / 100 : n);
    return { r: channel(parts[0]!, numbers[0]!), g: channel(parts[1]!, numbers[1]!), b: channel(parts[2]!, numbers[2]!) };
  }
  return hslToRgb(numbers[0]!, numbers[1]! / 100, numbers[2]! / 100);
}

function hex(h: string): Rgb {
  return { r: Number.parseInt(h.slice(0, 2), 16), g: Number.parseInt(h.slice(2, 4), 16), b: Number.parseInt(h.slice(4, 6), 16) };
}

const clamp255 = (n: number) => Math.min(255, Math.max(0, n));

/** `#rrggbb`, channels rounded. */
export function formatColour({ r, g, b }: Rgb): string {
  const h = (n: number) => Math.round(clamp255(n)).toString(16).padStart(2, '0');
  return `#${h(r)}${h(g)}${h(b)}`;
}

function rgbToHsl({ r, g, b }: Rgb): { h: number; s: number; l: number } {
  const rn = r / 255;
  const gn = g / 255;
  const bn = b / 255;
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  if (max === min) return { h: 0, s: 0, l };
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === rn ? (gn - bn) / d + (gn < bn ? 6 : 0) : max === gn ? (bn - rn) / d + 2 : (rn - gn) / d + 4;
  return { h: h * 60, s, l };
}

function hslToRgb(hDegrees: number, s: number, l: number): Rgb {
  const h = (((hDegrees % 360) + 360) % 360) / 360;
  const sat = Math.min(1, Math.max(0, s));
  const lig = Math.min(1, Math.max(0, l));
  if (sat === 0) return { r: lig * 255, g: lig * 255, b: lig * 255 };
  const q = lig < 0.5 ? lig * (1 + sat) : lig + sat - lig * sat;
  const p = 2 * lig - q;
  const channel = (t: number) => {
    const u = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (u < 1 / 6) return p + (q - p) * 6 * u;
    if (u < 1 / 2) return q;
    if (u < 2 / 3) return p + (q - p) * (2 / 3 - u) * 6;
    return p;
  };
  return { r: channel(h + 1 / 3) * 255, g: channel(h) * 255, b: channel(h - 1 / 3) * 255 };
}

/**
 * The colour shifted by `degrees` around the colour wheel. A colour with (almost) no hue —
 * black, white, greys — has nothing to rotate, so it is tinted instead: mixed halfway with the
 * hue at that angle, keeping some of its lightness.
 */
export function shiftHue(colour: Rgb, degrees: number): Rgb {
  const { h, s, l } = rgbToHsl(colour);
  if (s >= 0.15 && l > 0.04 && l < 0.96) return hslToRgb(h + degrees, s, l);
  const tint = hslToRgb(degrees, 0.85, 0.5);
  const mix = 0.45;
  return { r: colour.r + (tint.r - colour.r) * mix, g: colour.g + (tint.g - colour.g) * mix, b: colour.b + (tint.b - colour.b) * mix };
}
